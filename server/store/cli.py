"""``jantaku db upgrade|downgrade|check``: the database schema, from the command line.

All take the options of ``jantaku serve``: ``--data-dir DIR`` (the SQLite file
``DIR/jantaku.sqlite3``) or ``--database-url URL`` / ``DATABASE_URL`` (PostgreSQL).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from server.store.db import create_engine, display_url, resolve_url, verify_engine
from server.store.errors import StoreConfigError
from server.store.migrate import check, current_revision, downgrade, head_revision, upgrade


def add_database_options(parser: argparse.ArgumentParser) -> None:
    """``--data-dir`` and ``--database-url``, as ``jantaku serve`` and ``jantaku admin`` take them."""
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path("data"),
        help="data directory; the default database is DIR/jantaku.sqlite3 (default: ./data)",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="database URL, e.g. postgresql+asyncpg://user@host/db (default: $DATABASE_URL, else SQLite)",
    )


def database_url(args: argparse.Namespace) -> str:
    return resolve_url(data_dir=args.data_dir, database_url=args.database_url)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    db = sub.add_parser("db", help="database schema: upgrade, downgrade, check")
    db_sub = db.add_subparsers(dest="db_command", metavar="DB_COMMAND")
    db.set_defaults(handler=lambda _args: _usage(db))

    up = db_sub.add_parser("upgrade", help="apply the migrations (creates the database if needed)")
    up.add_argument("revision", nargs="?", default="head", help="target revision (default: head)")
    add_database_options(up)
    up.set_defaults(handler=run_upgrade)

    down = db_sub.add_parser("downgrade", help="revert migrations")
    down.add_argument("revision", help="target revision: an id, -1 (one step back) or base (empty)")
    add_database_options(down)
    down.set_defaults(handler=run_downgrade)

    chk = db_sub.add_parser(
        "check", help="exit 0 if the database is at the latest revision and matches the models"
    )
    add_database_options(chk)
    chk.set_defaults(handler=run_check)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _run(args: argparse.Namespace, fn: Callable[[AsyncEngine], Awaitable[int]]) -> int:
    try:
        url = database_url(args)
    except StoreConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    async def main() -> int:
        engine = create_engine(url)
        try:
            await verify_engine(engine)
            return await fn(engine)
        finally:
            await engine.dispose()

    try:
        return asyncio.run(main())
    except StoreConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (SQLAlchemyError, OSError) as exc:
        print(f"error: database {display_url(url)}: {exc}", file=sys.stderr)
        return 1


def run_upgrade(args: argparse.Namespace) -> int:
    async def go(engine: AsyncEngine) -> int:
        before = await current_revision(engine)
        await upgrade(engine, args.revision)
        after = await current_revision(engine)
        print(f"{display_url(str(engine.url))}: {before or 'empty'} -> {after or 'empty'}")
        return 0

    return _run(args, go)


def run_downgrade(args: argparse.Namespace) -> int:
    async def go(engine: AsyncEngine) -> int:
        before = await current_revision(engine)
        await downgrade(engine, args.revision)
        after = await current_revision(engine)
        print(f"{display_url(str(engine.url))}: {before or 'empty'} -> {after or 'empty'}")
        return 0

    return _run(args, go)


def run_check(args: argparse.Namespace) -> int:
    async def go(engine: AsyncEngine) -> int:
        status = await check(engine)
        where = display_url(str(engine.url))
        if status.current != status.head:
            print(f"{where}: at revision {status.current or 'none'}, latest is {head_revision()}")
            print("run `jantaku db upgrade`")
            return 1
        if status.diff:
            print(f"{where}: the schema differs from the models:")
            for item in status.diff:
                print(f"  {item}")
            return 1
        print(f"{where}: at revision {status.current}, schema matches the models")
        return 0

    return _run(args, go)
