"""``jantaku admin ratings rebuild [--check]`` on a SQLite data directory: no difference after rated
matches; a tampered standing is reported (exit 1, nothing changed), then repaired."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import text

from server.app.cli import main
from server.store.db import sqlite_url
from server.store.repository import SqlRepository
from tests.store.test_ratings import PLAYERS, _play, _players


async def _seed(path: Path, tamper: bool = False) -> None:
    async with await SqlRepository.open(sqlite_url(str(path / "jantaku.sqlite3"))) as store:
        if not tamper:
            await _players(store)
            await _play(store, "m-1", PLAYERS[:4], (1, 2, 3, 4))
            await _play(store, "m-2", PLAYERS[2:6], (3, 1, 4, 2), source="ranked:upper:east_south")
            return
        async with store.engine.begin() as conn:
            await conn.execute(text("UPDATE standings SET points = 77 WHERE account_id = 'p-02'"))


def test_ratings_rebuild(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(_seed(tmp_path))
    args = ["admin", "ratings", "rebuild", "--data-dir", str(tmp_path)]
    assert main([*args, "--check"]) == 0
    assert "no difference" in capsys.readouterr().out
    asyncio.run(_seed(tmp_path, tamper=True))
    assert main([*args, "--check"]) == 1
    out = capsys.readouterr().out
    assert "standing: p-02/ranked/east" in out and "nothing changed" in out
    assert main([*args, "--check"]) == 1  # --check changed nothing
    capsys.readouterr()
    assert main(args) == 0
    assert "recomputation is stored" in capsys.readouterr().out
    assert main([*args, "--check"]) == 0


async def _seed_sanma(path: Path, tamper: bool = False) -> None:
    from tests.store.test_ratings_sanma import _play as play3

    async with await SqlRepository.open(sqlite_url(str(path / "jantaku.sqlite3"))) as store:
        if not tamper:
            await _players(store)
            await play3(store, "s-1", PLAYERS[:3], (2, 1, 3), "ranked:sanma-open:east")
            await play3(store, "s-2", PLAYERS[1:4], (3, 1, 2), "ranked:sanma-ladder:east_south")
            await _play(store, "m-1", PLAYERS[:4], (1, 2, 3, 4))
            return
        async with store.engine.begin() as conn:
            await conn.execute(
                text("UPDATE standings SET rating = 1234 WHERE account_id = 'p-01' AND board = 'sanma'")
            )


def test_ratings_rebuild_covers_sanma(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A three-player standing is recomputed too: ``--check`` finds a tampered one by its board."""
    asyncio.run(_seed_sanma(tmp_path))
    args = ["admin", "ratings", "rebuild", "--data-dir", str(tmp_path)]
    assert main([*args, "--check"]) == 0
    capsys.readouterr()
    asyncio.run(_seed_sanma(tmp_path, tamper=True))
    assert main([*args, "--check"]) == 1
    assert "standing: p-01/sanma/east" in capsys.readouterr().out
    assert main(args) == 0
    assert main([*args, "--check"]) == 0
