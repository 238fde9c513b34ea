"""Ranked play: players' passwords, standings per board and game length, rated matches, rating changes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25

* ``credentials``: the argon2id hash of a registered player's password (accounts made by an
  administrator keep only their API token).
* ``standings``: rank, points, R, games and placements per account, board (``ranked`` or the bot
  ``ladder``) and game length; indexed for the leaderboards.
* ``rated_matches``: one row per rated match (``match_id`` unique: a match is rated exactly once;
  ``seq``: the order ratings were applied, which ``jantaku admin ratings rebuild`` replays).
* ``rating_changes``: each seat's standing before and after a rated match, with the ranking tables'
  version used.

Only new tables: nothing existing is rebuilt.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _ts(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)


def _int(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.Integer(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "credentials",
        sa.Column("account_id", sa.String(length=64), nullable=False),
        sa.Column("password_hash", sa.String(length=256), nullable=False),
        _ts("updated_at"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_credentials_account_id_accounts"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_credentials")),
    )
    op.create_table(
        "standings",
        sa.Column("account_id", sa.String(length=64), nullable=False),
        sa.Column("board", sa.String(length=16), nullable=False),
        sa.Column("length", sa.String(length=16), nullable=False),
        _int("rank"),
        _int("points"),
        sa.Column("rating", sa.Float(), nullable=False),
        _int("games"),
        _int("firsts"),
        _int("seconds"),
        _int("thirds"),
        _int("fourths"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_standings_account_id_accounts"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("account_id", "board", "length", name=op.f("pk_standings")),
    )
    op.create_index(
        "ix_standings_board_order", "standings", ["board", "length", "rank", "points", "rating", "account_id"]
    )
    op.create_index("ix_standings_board_rating", "standings", ["board", "length", "rating"])
    op.create_table(
        "rated_matches",
        sa.Column("seq", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("room", sa.String(length=32), nullable=False),
        sa.Column("board", sa.String(length=16), nullable=False),
        sa.Column("length", sa.String(length=16), nullable=False),
        sa.Column("table_version", sa.String(length=32), nullable=False),
        _ts("rated_at"),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_rated_matches_match_id_matches"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_rated_matches")),
        sa.UniqueConstraint("match_id", name=op.f("uq_rated_matches_match_id")),
    )
    op.create_table(
        "rating_changes",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        _int("seat"),
        _int("seq"),
        sa.Column("account_id", sa.String(length=64), nullable=False),
        sa.Column("board", sa.String(length=16), nullable=False),
        sa.Column("length", sa.String(length=16), nullable=False),
        _int("placement"),
        _int("rank_before"),
        _int("points_before"),
        sa.Column("rating_before", sa.Float(), nullable=False),
        _int("rank_after"),
        _int("points_after"),
        sa.Column("rating_after", sa.Float(), nullable=False),
        _int("games_after"),
        sa.Column("table_version", sa.String(length=32), nullable=False),
        _ts("rated_at"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_rating_changes_account_id_accounts"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["rated_matches.match_id"],
            name=op.f("fk_rating_changes_match_id_rated_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_rating_changes")),
    )
    op.create_index("ix_rating_changes_account_seq", "rating_changes", ["account_id", "seq"])


def downgrade() -> None:
    op.drop_index("ix_rating_changes_account_seq", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_table("rated_matches")
    op.drop_index("ix_standings_board_rating", table_name="standings")
    op.drop_index("ix_standings_board_order", table_name="standings")
    op.drop_table("standings")
    op.drop_table("credentials")
