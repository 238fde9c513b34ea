"""``jantaku event checkin`` (an organizer checks an entrant in or out) and ``jantaku event close``
(before the last round) on a SQLite data directory, with a round played by a hub on the same
database; ``jantaku admin events rebuild --check`` agrees with the closed event's standings."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from server.app.cli import main
from server.app.compose import event_service
from server.domain.records import Account, AccountKind
from server.hub.server import Hub
from server.hub.settings import HubSettings
from server.services.tournaments import Actor
from server.store.repository import SqlRepository
from tests.events.test_events_cli import _accounts, _add_bots, _start_and_play, url
from tests.hub.helpers import EAST


async def _enter_ann(path: Path, event_id: str) -> None:
    async with await SqlRepository.open(url(path)) as repo:
        ann = Account("a-ann", "ann", AccountKind.PLAYER, frozenset(), 0.0)
        await repo.create_account(ann)
        await event_service(repo, Hub(HubSettings(port=0), repo).tables).enter(Actor(ann), event_id)


async def _audit(path: Path, event_id: str) -> list[tuple[str, str, str]]:
    async with await SqlRepository.open(url(path)) as repo:
        return [(a.action, a.detail, a.reason) for a in await repo.audit(event_id)]


def test_checkin_and_close_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = ["--data-dir", str(tmp_path)]
    asyncio.run(_accounts(tmp_path))
    assert main(["admin", "organizer", "grant", "org", "--reason", "runs the club", *db]) == 0
    settings = tmp_path / "event.json"
    settings.write_text(
        json.dumps({"name": "Night", "ruleset_json": EAST.to_dict(), "rounds": 3, "checkin": True})
    )
    assert main(["event", "create", str(settings), "--organizer", "org", *db]) == 0
    event_id = capsys.readouterr().out.strip().splitlines()[-1]
    asyncio.run(_add_bots(tmp_path, event_id))
    asyncio.run(_enter_ann(tmp_path, event_id))
    checkin = ["event", "checkin", event_id]
    assert main([*checkin, "bot:greedy:1", *db]) == 1  # bots need no check-in
    assert main([*checkin, "a-nobody", *db]) == 1
    assert "conflict" in (err := capsys.readouterr().err) and "not_found" in err
    assert main([*checkin, "a-ann", "--reason", "phoned in", "--key", "k", *db]) == 0
    assert capsys.readouterr().out.strip() == "a-ann: checked in; checked in for rounds: 1"
    assert main([*checkin, "a-ann", "--reason", "phoned in", "--key", "k", *db]) == 0  # the same key
    assert main([*checkin, "a-ann", "--out", "--reason", "left", *db]) == 0
    assert capsys.readouterr().out.strip().endswith("a-ann: checked out; checked in for rounds: none")
    log = asyncio.run(_audit(tmp_path, event_id))
    assert [(json.loads(d)["checked_in"], why) for a, d, why in log if a == "checkin_by_organizer"] == [
        (True, "phoned in"),
        (False, "left"),
    ]
    assert main(["event", "seat", event_id, *db]) == 0  # the four bots
    asyncio.run(_start_and_play(tmp_path, event_id))
    assert main(["event", "finish-round", event_id, *db]) == 0
    assert main(["event", "seat", event_id, *db]) == 0
    capsys.readouterr()
    assert main(["event", "close", event_id, *db]) == 1  # a reason is required
    assert "malformed" in capsys.readouterr().err
    assert main(["event", "close", event_id, "--reason", "the venue closes", "--key", "c", *db]) == 0
    assert capsys.readouterr().out.strip() == f"{event_id}: finished after 1 rounds; seated round 2 dropped"
    assert main(["event", "close", event_id, "--reason", "the venue closes", "--key", "c", *db]) == 0
    assert main(["event", "close", event_id, "--reason", "again", *db]) == 1  # over already
    assert main(["event", "seat", event_id, *db]) == 1
    capsys.readouterr()
    assert main(["event", "list", "--json", *db]) == 0
    assert [e["status"] for e in json.loads(capsys.readouterr().out)] == ["finished"]
    assert main(["admin", "events", "rebuild", event_id, "--check", *db]) == 0
    assert "0 differences" in capsys.readouterr().out
    assert [a for a, _, _ in asyncio.run(_audit(tmp_path, event_id))].count("close") == 1
