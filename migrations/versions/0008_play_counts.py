"""How each seat of a rated match played: ``rated_matches.play_counts``.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25

Per seat ``[hands, hands with a riichi declared, hands with an open call]``, counted from the step
log once, when the match is rated (``server.domain.playcounts``), so that a profile's riichi rate and
call rate are read without the log (``docs/ranking.md``). NULL for matches rated before: they count
in the other statistics, not in these two.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("rated_matches", sa.Column("play_counts", sa.JSON(none_as_null=True), nullable=True))


def downgrade() -> None:
    op.drop_column("rated_matches", "play_counts")
