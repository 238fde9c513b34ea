"""Alembic environment (the async template), shared by the ``alembic`` command and ``jantaku db``.

* Called by :mod:`server.store.migrate`: a connection is handed in ``config.attributes`` and used
  as it is (inside the caller's transaction).
* Called by the ``alembic`` command (``alembic -c alembic.ini upgrade head``, ``alembic check``):
  the URL is ``-x url=…``, else ``sqlalchemy.url``, else ``DATABASE_URL``, else
  ``data/jantaku.sqlite3``; the engine comes from :func:`server.store.db.create_engine`, so SQLite
  gets its pragmas.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from server.store.db import create_engine, resolve_url
from server.store.migrate import MIGRATION_OPTIONS
from server.store.models import Base

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    return context.get_x_argument(as_dictionary=True).get("url") or resolve_url(
        database_url=config.get_main_option("sqlalchemy.url") or None
    )


def run_migrations_offline() -> None:
    """Emit SQL to stdout instead of running it (``alembic upgrade head --sql``)."""
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        **MIGRATION_OPTIONS,
    )
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata, **MIGRATION_OPTIONS)
    with context.begin_transaction():
        context.run_migrations()


async def run_async_migrations() -> None:
    engine = create_engine(_url())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
            await connection.commit()
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        asyncio.run(run_async_migrations())
    else:
        do_run_migrations(connection)


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
