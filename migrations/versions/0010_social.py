"""Players together: links between accounts (friend requests, friendships, blocks), personal mutes,
and the chat bans and suspensions administrators give.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04

No foreign key to ``accounts``: a guest's links and mutes may outlive the guest account's row.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = 64


def upgrade() -> None:
    op.create_table(
        "social_links",
        sa.Column("low", sa.String(ID), nullable=False),
        sa.Column("high", sa.String(ID), nullable=False),
        sa.Column("a", sa.String(ID), nullable=False),
        sa.Column("b", sa.String(ID), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("low", "high", name=op.f("pk_social_links")),
    )
    op.create_index(op.f("ix_social_links_high"), "social_links", ["high"])
    op.create_table(
        "social_mutes",
        sa.Column("account_id", sa.String(ID), nullable=False),
        sa.Column("muted_id", sa.String(ID), nullable=False),
        sa.PrimaryKeyConstraint("account_id", "muted_id", name=op.f("pk_social_mutes")),
    )
    op.create_table(
        "sanctions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.String(ID), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("given_by", sa.String(64), nullable=False),
        sa.Column("starts", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lifted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lifted_by", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sanctions")),
    )
    op.create_index(op.f("ix_sanctions_account_id"), "sanctions", ["account_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_sanctions_account_id"), table_name="sanctions")
    op.drop_table("sanctions")
    op.drop_table("social_mutes")
    op.drop_index(op.f("ix_social_links_high"), table_name="social_links")
    op.drop_table("social_links")
