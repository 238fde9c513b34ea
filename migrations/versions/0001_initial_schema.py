"""Initial schema: accounts, sessions, matches, seats, the step log, hand and final results, audit log.

Revision ID: 0001
Revises:
Create Date: 2026-11-21

Written to match ``server/store/models.py`` exactly (``tests/store/test_migrations.py`` checks it).
Migrations never import the models: they describe the schema as it was at this revision.
Timestamps are ``DateTime(timezone=True)``; the models' ``UTCDateTime`` is a Python-side wrapper of
that same column type.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _ts(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _id(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.String(length=64), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "accounts",
        _id("id"),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("scopes", sa.JSON(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        _ts("created_at"),
        _ts("revoked_at", nullable=True),
        sa.CheckConstraint("kind IN ('guest', 'player', 'bot')", name=op.f("ck_accounts_kind")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_accounts_token_hash")),
    )
    op.create_index(
        "uq_accounts_registered_name",
        "accounts",
        ["name"],
        unique=True,
        sqlite_where=sa.text("kind != 'guest'"),
        postgresql_where=sa.text("kind != 'guest'"),
    )

    op.create_table(
        "sessions",
        _id("id"),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        _id("account_id"),
        _ts("created_at"),
        _ts("expires_at"),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_sessions_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_sessions_token_hash")),
    )
    op.create_index(op.f("ix_sessions_account_id"), "sessions", ["account_id"])
    op.create_index(op.f("ix_sessions_expires_at"), "sessions", ["expires_at"])

    op.create_table(
        "matches",
        _id("id"),
        sa.Column("ruleset_json", sa.Text(), nullable=False),
        sa.Column("ruleset_hash", sa.String(length=64), nullable=False),
        sa.Column("seed_commitment", sa.String(length=64), nullable=False),
        sa.Column("seed_hex", sa.String(length=256), nullable=True),
        sa.Column("engine_version", sa.String(length=32), nullable=False),
        sa.Column("wall_algorithm", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("source", sa.String(length=128), nullable=False),
        _ts("created_at"),
        _ts("ended_at", nullable=True),
        sa.CheckConstraint(
            "seed_hex IS NULL OR status != 'running'", name=op.f("ck_matches_seed_revealed_after_end")
        ),
        sa.CheckConstraint("status IN ('running', 'completed', 'aborted')", name=op.f("ck_matches_status")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    op.create_index(op.f("ix_matches_created_at"), "matches", ["created_at"])
    op.create_index(op.f("ix_matches_ruleset_hash"), "matches", ["ruleset_hash"])
    op.create_index(op.f("ix_matches_status"), "matches", ["status"])

    op.create_table(
        "seats",
        _id("match_id"),
        sa.Column("seat", sa.Integer(), nullable=False),
        _id("account_id", nullable=True),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("bot", sa.String(length=64), nullable=True),
        sa.CheckConstraint("seat BETWEEN 0 AND 3", name=op.f("ck_seats_seat")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_seats_account_id_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_seats_match_id_matches"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_seats")),
    )
    op.create_index(op.f("ix_seats_account_id"), "seats", ["account_id"])

    op.create_table(
        "steps",
        _id("match_id"),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("action", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("request_id", sa.BigInteger(), nullable=True),
        _ts("applied_at"),
        sa.CheckConstraint("step >= 0", name=op.f("ck_steps_step")),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_steps_match_id_matches"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("match_id", "step", name=op.f("pk_steps")),
    )

    op.create_table(
        "hand_results",
        _id("match_id"),
        sa.Column("hand_index", sa.Integer(), nullable=False),
        sa.Column("round_wind", sa.Integer(), nullable=False),
        sa.Column("kyoku", sa.Integer(), nullable=False),
        sa.Column("honba", sa.Integer(), nullable=False),
        sa.Column("riichi_sticks", sa.Integer(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("scores_before", sa.JSON(), nullable=False),
        sa.Column("wall_commitment", sa.String(length=64), nullable=False),
        sa.Column("start_step", sa.Integer(), nullable=False),
        sa.Column("end_step", sa.Integer(), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("draw_reason", sa.String(length=32), nullable=True),
        sa.Column("wins", sa.JSON(), nullable=False),
        sa.Column("tenpai", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("nagashi", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("deltas", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("scores_after", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("wall_salt", sa.String(length=128), nullable=True),
        sa.Column("wall", sa.JSON(none_as_null=True), nullable=True),
        sa.CheckConstraint("outcome IN ('won', 'drawn')", name=op.f("ck_hand_results_outcome")),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_hand_results_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "hand_index", name=op.f("pk_hand_results")),
    )

    op.create_table(
        "match_results",
        _id("match_id"),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("final_points", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_match_results_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_match_results")),
    )

    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        _ts("at"),
        _id("actor_id", nullable=True),
        sa.Column("actor", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        _id("match_id", nullable=True),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["actor_id"], ["accounts.id"], name=op.f("fk_audit_log_actor_id_accounts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_index(op.f("ix_audit_log_at"), "audit_log", ["at"])
    op.create_index(op.f("ix_audit_log_match_id"), "audit_log", ["match_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_audit_log_match_id"), table_name="audit_log")
    op.drop_index(op.f("ix_audit_log_at"), table_name="audit_log")
    op.drop_table("audit_log")
    op.drop_table("match_results")
    op.drop_table("hand_results")
    op.drop_table("steps")
    op.drop_index(op.f("ix_seats_account_id"), table_name="seats")
    op.drop_table("seats")
    op.drop_index(op.f("ix_matches_status"), table_name="matches")
    op.drop_index(op.f("ix_matches_ruleset_hash"), table_name="matches")
    op.drop_index(op.f("ix_matches_created_at"), table_name="matches")
    op.drop_table("matches")
    op.drop_index(op.f("ix_sessions_expires_at"), table_name="sessions")
    op.drop_index(op.f("ix_sessions_account_id"), table_name="sessions")
    op.drop_table("sessions")
    op.drop_index("uq_accounts_registered_name", table_name="accounts")
    op.drop_table("accounts")
