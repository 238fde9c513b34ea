"""Lobby chat and reports: the lines said in the lobby's channels (the history shown on join and the
context of reports, pruned after the retention) and the reports players file, with their resolution.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04

Additive: two new tables, nothing else changes.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = 64


def upgrade() -> None:
    op.create_table(
        "lobby_lines",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("channel", sa.String(64), nullable=False),
        sa.Column("account_id", sa.String(ID), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("stamp", sa.String(32), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lobby_lines")),
    )
    op.create_index("ix_lobby_lines_channel_id", "lobby_lines", ["channel", "id"])
    op.create_index(op.f("ix_lobby_lines_at"), "lobby_lines", ["at"])
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("reporter_id", sa.String(ID), nullable=False),
        sa.Column("target_id", sa.String(ID), nullable=False),
        sa.Column("place", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("context", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("resolved_by", sa.String(64), nullable=True),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("resolution", sa.Text(), nullable=True),
        sa.Column("sanction_id", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reports")),
    )
    op.create_index(op.f("ix_reports_target_id"), "reports", ["target_id"])
    op.create_index(op.f("ix_reports_status"), "reports", ["status"])


def downgrade() -> None:
    op.drop_index(op.f("ix_reports_status"), table_name="reports")
    op.drop_index(op.f("ix_reports_target_id"), table_name="reports")
    op.drop_table("reports")
    op.drop_index(op.f("ix_lobby_lines_at"), table_name="lobby_lines")
    op.drop_index("ix_lobby_lines_channel_id", table_name="lobby_lines")
    op.drop_table("lobby_lines")
