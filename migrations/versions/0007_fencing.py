"""Cluster mode's fencing token: ``matches.owner_node`` and ``matches.fence``.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25

In cluster mode (``docs/scaling.md``) each running match is owned by one node. Taking a match over
bumps ``fence`` (``UPDATE matches SET fence = fence + 1, owner_node = :me``); every step the owner
appends is checked, in the writer's transaction and under the row's lock, against the fence it
acquired, so a node that lost the match (paused, cut off, presumed dead) can never write another
step: a match cannot fork. A single-process server never sets them (NULL, 0) and checks nothing.

Two additions with constant defaults: neither database rewrites ``matches`` for them.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("owner_node", sa.String(length=64), nullable=True))
    op.add_column(
        "matches", sa.Column("fence", sa.BigInteger(), nullable=False, server_default=sa.text("0"))
    )


def downgrade() -> None:
    op.drop_column("matches", "fence")
    op.drop_column("matches", "owner_node")
