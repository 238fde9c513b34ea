"""Crash recovery: the secret seed and table settings of each match, and why a match ended.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22

* ``match_recovery``: one row per match, written with it: the seed (secret until the end, so not a
  column of ``matches``) and the table's settings (timers, spectators), so that a restarted server
  can rebuild a running match by replaying its log.
* ``matches.status_reason``: why a match ended when that is not obvious (``diverged: ...`` when the
  replay of its log did not regenerate the stored events).

Both are additions (``CREATE TABLE``, ``ALTER TABLE ... ADD COLUMN``): no table is rebuilt, which on
SQLite would mean dropping ``matches`` and, with foreign keys on, cascading to its steps.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "match_recovery",
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("seed_hex", sa.String(length=256), nullable=False),
        sa.Column("table_settings", sa.JSON(none_as_null=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_match_recovery_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_match_recovery")),
    )
    op.add_column("matches", sa.Column("status_reason", sa.Text(), nullable=True))


def downgrade() -> None:
    # A plain DROP COLUMN (SQLite >= 3.35 has it), not a batch rebuild of ``matches``.
    op.drop_column("matches", "status_reason")
    op.drop_table("match_recovery")
