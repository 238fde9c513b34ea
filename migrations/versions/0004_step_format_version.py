"""The event-log format of each stored step: ``steps.format_version``.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-28

* ``steps.format_version``: the format its ``events`` and ``action`` are written in
  (``server.eventlog.codec``); readers decode each step with its own version, so the format can
  change without rewriting the log. Every step stored before this revision is format 1 (the only
  format there was: the wire vocabulary's JSON), which the column's default gives them.

An addition with a constant default (``ALTER TABLE ... ADD COLUMN ... DEFAULT 1``): neither SQLite
nor PostgreSQL (11+) rewrites the ``steps`` table for it, however long the log.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "steps",
        sa.Column("format_version", sa.SmallInteger(), nullable=False, server_default=sa.text("1")),
    )


def downgrade() -> None:
    # A plain DROP COLUMN (SQLite >= 3.35 has it), not a batch rebuild of ``steps``.
    op.drop_column("steps", "format_version")
