"""The seat count of each match: ``matches.seat_count`` (4, or 3 for a three-player ruleset).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04

Admin search filters by it (``seats=3``). Existing matches get the number of their seat rows (every
match stored before it has four); a match without seat rows keeps the default, 4.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "matches", sa.Column("seat_count", sa.SmallInteger(), server_default=sa.text("4"), nullable=False)
    )
    op.execute(
        "UPDATE matches SET seat_count = (SELECT count(*) FROM seats WHERE seats.match_id = matches.id) "
        "WHERE EXISTS (SELECT 1 FROM seats WHERE seats.match_id = matches.id)"
    )
    op.create_index(op.f("ix_matches_seat_count"), "matches", ["seat_count"])


def downgrade() -> None:
    op.drop_index(op.f("ix_matches_seat_count"), table_name="matches")
    op.drop_column("matches", "seat_count")
