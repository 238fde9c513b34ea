"""Alembic migrations, run programmatically (``jantaku db …``, ``jantaku serve`` on a fresh data dir).

The migration scripts live in the top-level ``migrations/`` directory of the source tree (in a
wheel they are shipped as ``server/store/migrations``). Each command opens an engine of
:func:`server.store.db.create_engine` (so SQLite has its pragmas) and hands alembic the connection
(``config.attributes["connection"]``, read by ``migrations/env.py``); alembic's synchronous API
runs inside :meth:`AsyncConnection.run_sync`, one transaction per command (DDL is transactional on
both databases, so a failed migration leaves the schema as it was).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from server.store.db import create_engine, verify_engine, write_connection
from server.store.errors import StoreConfigError
from server.store.models import Base

T = TypeVar("T")

# The options both env.py and the drift check use, so "alembic check" and our test agree.
MIGRATION_OPTIONS: dict[str, Any] = {"compare_type": True, "render_as_batch": True}


def migrations_dir() -> Path:
    """The directory holding ``env.py`` and ``versions/``."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "migrations", here.parent.parent / "migrations"):
        if (candidate / "env.py").is_file():
            return candidate
    raise StoreConfigError(f"alembic migrations not found next to {here}")


def alembic_config(url: str | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise StoreConfigError("the migrations have no head revision")
    return head


async def _with_alembic(engine: AsyncEngine, fn: Callable[[Config], None]) -> None:
    def run(sync_conn: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = sync_conn
        fn(config)

    async with write_connection(engine) as conn:
        await conn.run_sync(run)


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    await _with_alembic(engine, lambda cfg: command.upgrade(cfg, revision))


async def downgrade(engine: AsyncEngine, revision: str) -> None:
    await _with_alembic(engine, lambda cfg: command.downgrade(cfg, revision))


async def _read(engine: AsyncEngine, fn: Callable[[Connection], T]) -> T:
    async with engine.connect() as conn:
        result = await conn.run_sync(fn)
        await conn.rollback()
        return result


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision the database is at (None: never migrated)."""
    return await _read(engine, lambda c: MigrationContext.configure(c).get_current_revision())


async def schema_diff(engine: AsyncEngine) -> list[Any]:
    """What alembic's autogenerate finds between the models and the database (``alembic check``):
    an empty list when they match."""

    def diff(sync_conn: Connection) -> list[Any]:
        context = MigrationContext.configure(sync_conn, opts=dict(MIGRATION_OPTIONS))
        return list(compare_metadata(context, Base.metadata))

    return await _read(engine, diff)


@dataclass(frozen=True, slots=True)
class SchemaStatus:
    current: str | None
    head: str
    diff: tuple[Any, ...]

    @property
    def ok(self) -> bool:
        return self.current == self.head and not self.diff


async def check(engine: AsyncEngine) -> SchemaStatus:
    return SchemaStatus(await current_revision(engine), head_revision(), tuple(await schema_diff(engine)))


async def prepare_database(url: str, *, search_path: str | None = None) -> None:
    """Create or upgrade the database at ``url`` to the latest schema (verifying SQLite's pragmas
    first). Safe to call on every start: at head it changes nothing."""
    engine = create_engine(url, search_path=search_path)
    try:
        await verify_engine(engine)
        await upgrade(engine)
    finally:
        await engine.dispose()


async def require_current_schema(engine: AsyncEngine) -> None:
    """Raise StoreConfigError unless the database is at the head revision."""
    current, head = await current_revision(engine), head_revision()
    if current != head:
        raise StoreConfigError(
            f"database schema is at revision {current or 'none'}, the server needs {head}: "
            "run `jantaku db upgrade`"
        )
