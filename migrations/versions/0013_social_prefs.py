"""Players together: each player's own social settings (hiding their presence from their friends).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04

Additive: a new table; a player without a row does not hide their presence.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "social_prefs",
        sa.Column("account_id", sa.String(64), nullable=False),
        sa.Column("hide_presence", sa.SmallInteger(), nullable=False),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_social_prefs")),
    )


def downgrade() -> None:
    op.drop_table("social_prefs")
