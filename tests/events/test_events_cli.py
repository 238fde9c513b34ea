"""``jantaku event ...`` and ``jantaku admin organizer|events ...`` on a SQLite data directory, with
a round played by a hub on the same database (as ``jantaku serve`` would)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from server.app.cli import main
from server.app.compose import event_service
from server.domain.records import Account, AccountKind
from server.domain.tournaments import AdjustmentRecord
from server.hub.server import Hub
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.hub.tables import LocalTable
from server.services.tournaments import Actor
from server.store.db import sqlite_url
from server.store.repository import SqlRepository
from tests.hub.helpers import EAST


def url(path: Path) -> str:
    return sqlite_url(str(path / "jantaku.sqlite3"))


async def _accounts(path: Path) -> None:
    async with await SqlRepository.open(url(path)) as repo:
        await repo.create_account(Account("a-org", "org", AccountKind.PLAYER, frozenset(), 0.0))


async def organizer(repo: SqlRepository) -> Actor:
    account = await repo.account_by_id("a-org")
    assert account is not None
    return Actor(account)


async def _add_bots(path: Path, event_id: str) -> None:
    async with await SqlRepository.open(url(path)) as repo:
        service = event_service(repo, Hub(HubSettings(port=0), repo).tables)
        org = await organizer(repo)
        for _ in range(4):
            await service.add_bot(org, event_id, "greedy")


async def _start_and_play(path: Path, event_id: str) -> None:
    """What the running server does for ``POST /api/events/ID/start``: the round's tables play out."""
    async with await SqlRepository.open(url(path)) as repo:
        hub = Hub(HubSettings(port=0, timers=TableTimers(), spectate=SpectatePolicy(delay_s=0.0)), repo)
        service = event_service(repo, hub.tables)
        org = await organizer(repo)
        rnd = await service.start(org, event_id)
        for t in rnd.tables:
            live = await hub.tables.find(t.match_id or "")
            assert isinstance(live, LocalTable)
            await live.actor.ended.wait()
            await live.actor.stop()


async def _tamper(path: Path, event_id: str) -> None:
    """An adjustment written behind the service's back, dated before the round's end."""
    async with await SqlRepository.open(url(path)) as repo:
        await repo.add_adjustment(AdjustmentRecord(event_id, "bot:greedy:1", 30, "forged", "nobody", 1.0))


def test_an_event_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = ["--data-dir", str(tmp_path)]
    asyncio.run(_accounts(tmp_path))
    assert main(["admin", "organizer", "grant", "nobody", "--reason", "x", *db]) == 1
    assert "no account named 'nobody'" in capsys.readouterr().err
    assert main(["admin", "organizer", "grant", "org", "--reason", "runs the club", *db]) == 0
    assert "organizer role granted" in capsys.readouterr().out
    settings = tmp_path / "event.json"
    settings.write_text(json.dumps({"name": "Bot night", "ruleset_json": EAST.to_dict(), "rounds": 1}))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "Bot night", "rounds": 1, "colour": "red"}))
    assert main(["event", "create", str(bad), *db]) == 2
    assert "unknown settings: colour" in capsys.readouterr().err
    assert main(["event", "create", str(settings), "--organizer", "org", *db]) == 0
    event_id = capsys.readouterr().out.strip()
    assert event_id.startswith("ev-")
    assert main(["event", "list", *db]) == 0
    assert event_id in capsys.readouterr().out
    asyncio.run(_add_bots(tmp_path, event_id))
    assert main(["event", "seat", event_id, *db]) == 0
    assert "round 1 seated: 1 tables" in capsys.readouterr().out
    # the command line runs no tables: start asks the running server (none listens here)
    assert main(["event", "start", event_id, "--api", "http://127.0.0.1:9", "--token", "t", *[]]) == 1
    capsys.readouterr()
    assert main(["event", "finish-round", event_id, *db]) == 1
    assert "no round is running" in capsys.readouterr().err
    asyncio.run(_start_and_play(tmp_path, event_id))
    assert main(["event", "finish-round", event_id, "--reason", "done", *db]) == 0
    assert "seeds revealed" in capsys.readouterr().out
    assert main(["event", "standings", event_id, "--csv", *db]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "rank,name,total,games,places,adjustments" and len(lines) == 5
    assert main(["event", "show", event_id, *db]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["rounds"][0]["status"] == "finished" and shown["rounds"][0]["sets"][0]["seed"]
    assert main(["admin", "events", "rebuild", "--check", *db]) == 0
    assert "1 events checked: 0 differences" in capsys.readouterr().out
    asyncio.run(_tamper(tmp_path, event_id))
    assert main(["admin", "events", "rebuild", event_id, "--check", *db]) == 1
    out = capsys.readouterr().out
    assert "after round 1: bot:greedy:1: shown total" in out and "1 differences" in out
