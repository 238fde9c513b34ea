"""``jantaku db upgrade|downgrade|check`` with ``--data-dir`` and ``--database-url``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import make_url, text
from sqlalchemy.ext.asyncio import create_async_engine

from server.app.cli import main
from server.store.db import SQLITE_FILENAME
from server.store.migrate import head_revision
from tests.store.conftest import RUN_ID


def test_upgrade_check_downgrade_on_sqlite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ["--data-dir", str(tmp_path / "data")]
    assert main(["db", "check", *data]) == 1
    assert "jantaku db upgrade" in capsys.readouterr().out
    assert main(["db", "upgrade", *data]) == 0
    assert f"empty -> {head_revision()}" in capsys.readouterr().out
    assert (tmp_path / "data" / SQLITE_FILENAME).is_file()
    assert main(["db", "check", *data]) == 0
    assert "schema matches the models" in capsys.readouterr().out
    assert main(["db", "upgrade", *data]) == 0  # at head: nothing to do
    assert main(["db", "downgrade", "base", *data]) == 0
    assert f"{head_revision()} -> empty" in capsys.readouterr().out
    assert main(["db", "check", *data]) == 1


def test_database_url_option_and_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "elsewhere.sqlite3"
    assert main(["db", "upgrade", "--database-url", f"sqlite:///{target}"]) == 0
    assert target.is_file()
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{target}")
    capsys.readouterr()
    assert main(["db", "check", "--data-dir", str(tmp_path / "unused")]) == 0
    assert "elsewhere.sqlite3" in capsys.readouterr().out
    assert not (tmp_path / "unused").exists()


def test_bad_url_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "check", "--database-url", "mysql://u:secret@h/db"]) == 2
    err = capsys.readouterr().err
    assert "unsupported database URL" in err and "secret" not in err


def test_unreachable_database_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    # Port 9 (discard) on loopback: refused at once.
    assert main(["db", "check", "--database-url", "postgresql://u@127.0.0.1:9/db"]) == 1
    assert "error: database" in capsys.readouterr().err


def test_db_without_subcommand_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db"]) == 2
    assert "upgrade" in capsys.readouterr().out


@pytest.fixture
def postgres_database(postgres: str) -> Iterator[str]:
    """A whole database of its own (the CLI takes a URL, so no per-test schema)."""
    name = f"{RUN_ID}_cli"

    async def run(sql: str) -> None:
        engine = create_async_engine(postgres, isolation_level="AUTOCOMMIT")
        try:
            async with engine.connect() as conn:
                await conn.execute(text(sql))
        finally:
            await engine.dispose()

    def sync(sql: str) -> None:
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, run(sql)).result()

    sync(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(postgres).set(database=name).render_as_string(hide_password=False)
    finally:
        sync(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_upgrade_check_downgrade_on_postgresql(
    postgres_database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = ["--database-url", postgres_database]
    assert main(["db", "check", *url]) == 1
    assert main(["db", "upgrade", *url]) == 0
    assert main(["db", "check", *url]) == 0
    assert "schema matches the models" in capsys.readouterr().out
    assert main(["db", "downgrade", "-1", *url]) == 0
    assert main(["db", "check", *url]) == 1


def test_the_alembic_command_itself(tmp_path: Path) -> None:
    """``alembic upgrade head`` and ``alembic check`` from the repository root, as a developer
    runs them (alembic.ini + migrations/env.py building its own engine)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    base = [sys.executable, "-m", "alembic", "-c", str(root / "alembic.ini")]
    url = ["-x", f"url=sqlite:///{tmp_path / 'a.sqlite3'}"]
    for command in (["upgrade", "head"], ["check"], ["current"]):
        done = subprocess.run([*base, *url, *command], cwd=root, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
    assert "No new upgrade operations detected" in done.stdout or f"{head_revision()} (head)" in done.stdout
