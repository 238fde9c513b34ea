"""Who decided each stored step: ``steps.source``.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21

* ``steps.source``: ``player`` (the seat's client), ``bot`` (a built-in bot seat), ``timeout`` (the
  seat's time and bank ran out while it was connected), ``disconnected`` (the seat was not
  connected); NULL for the deal and for the steps stored before this revision (the admin review
  then only knows that the server played a human seat's decision, not why).

An addition (``ALTER TABLE ... ADD COLUMN``) with no CHECK constraint: the ``steps`` table is never
rebuilt (a batch rebuild on SQLite would copy the whole event log).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("steps", sa.Column("source", sa.String(length=16), nullable=True))


def downgrade() -> None:
    # A plain DROP COLUMN (SQLite >= 3.35 has it), not a batch rebuild of ``steps``.
    op.drop_column("steps", "source")
