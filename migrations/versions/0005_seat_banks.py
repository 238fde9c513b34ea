"""Each seat's time bank with each stored step: ``steps.banks``.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25

* ``steps.banks``: a JSON array of the four seats' time bank left (whole milliseconds, by seat)
  once the step was applied. Crash recovery restarts the pending decision with the full action time
  and these banks, so a restarted server charges nobody for the time it was down, nor gives anyone
  a fresh bank (``docs/hub.md``, "Time"). NULL for the steps stored before this revision: a match
  recovered from such a log starts its banks full, as before.

An addition (``ALTER TABLE ... ADD COLUMN``, nullable, no default): neither SQLite nor PostgreSQL
rewrites the ``steps`` table for it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("steps", sa.Column("banks", sa.JSON(none_as_null=True), nullable=True))


def downgrade() -> None:
    # A plain DROP COLUMN (SQLite >= 3.35 has it), not a batch rebuild of ``steps``.
    op.drop_column("steps", "banks")
