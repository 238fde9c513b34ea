"""Tournaments: events, their entrants, rounds, adjustments and audit log, and the organizer role.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04

Settings, entrants and rounds are JSON documents (``server/store/events.py`` encodes them), so an
event option added later needs no schema change; status columns are kept beside them for queries.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = 64


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.String(ID), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_by", sa.String(ID), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("organizers", sa.JSON(), nullable=False),
        sa.Column("secret_hex", sa.String(128), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
    )
    op.create_table(
        "event_entrants",
        sa.Column("event_id", sa.String(ID), nullable=False),
        sa.Column("entrant_id", sa.String(ID), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("entered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("doc", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_event_entrants_event_id_events"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("event_id", "entrant_id", name=op.f("pk_event_entrants")),
    )
    op.create_table(
        "event_rounds",
        sa.Column("event_id", sa.String(ID), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("doc", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_event_rounds_event_id_events"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("event_id", "number", name=op.f("pk_event_rounds")),
    )
    op.create_table(
        "event_adjustments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("event_id", sa.String(ID), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("doc", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_event_adjustments_event_id_events"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_adjustments")),
    )
    op.create_index(op.f("ix_event_adjustments_event_id"), "event_adjustments", ["event_id"])
    op.create_table(
        "event_audit",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("event_id", sa.String(ID), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(ID), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("key", sa.String(128), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_audit")),
    )
    op.create_index(op.f("ix_event_audit_event_id"), "event_audit", ["event_id"])
    op.create_table(
        "organizers",
        sa.Column("account_id", sa.String(ID), nullable=False),
        sa.Column("granted_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_organizers_account_id_accounts"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_organizers")),
    )


def downgrade() -> None:
    op.drop_table("organizers")
    op.drop_index(op.f("ix_event_audit_event_id"), table_name="event_audit")
    op.drop_table("event_audit")
    op.drop_index(op.f("ix_event_adjustments_event_id"), table_name="event_adjustments")
    op.drop_table("event_adjustments")
    op.drop_table("event_rounds")
    op.drop_table("event_entrants")
    op.drop_table("events")
