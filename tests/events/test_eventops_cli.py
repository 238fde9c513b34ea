"""The organizers' newer commands: ``jantaku event start-points|adjust|notice|moves|export`` on the
database, and the actions on a running table (``pause``, ``lock``, ``substitute``...) that ask the
running server over its HTTP API."""

from __future__ import annotations

import asyncio
import io
import json
import zipfile
from pathlib import Path

import pytest

from server.app.cli import main
from server.store.repository import SqlRepository
from tests.events.test_events_cli import _accounts, _add_bots, _start_and_play, url
from tests.hub.helpers import EAST


async def _log(path: Path, event_id: str) -> list[str]:
    async with await SqlRepository.open(url(path)) as repo:
        return [a.action for a in await repo.audit(event_id)]


async def _match(path: Path, event_id: str) -> str:
    async with await SqlRepository.open(url(path)) as repo:
        return (await repo.rounds(event_id))[0].tables[0].match_id or ""


def test_organizer_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = ["--data-dir", str(tmp_path)]
    asyncio.run(_accounts(tmp_path))
    assert main(["admin", "organizer", "grant", "org", "--reason", "runs the club", *db]) == 0
    settings = tmp_path / "event.json"
    settings.write_text(
        json.dumps({"name": "Night", "ruleset_json": EAST.to_dict(), "rounds": 1, "ranked": "x"})
    )
    assert main(["event", "create", str(settings), *db]) == 2
    assert "ranked must be bool" in capsys.readouterr().err
    settings.write_text(json.dumps({"name": "Night", "ruleset_json": EAST.to_dict(), "rounds": 1}))
    assert main(["event", "create", str(settings), "--organizer", "org", *db]) == 0
    event_id = capsys.readouterr().out.strip()
    asyncio.run(_add_bots(tmp_path, event_id))
    sp = ["event", "start-points", event_id, "bot:greedy:1"]
    assert main([*sp, "lots", *db]) == 2
    assert main([*sp, "25050", *db]) == 1
    assert "malformed" in capsys.readouterr().err
    assert main([*sp, "35000", "--reason", "seeded", "--key", "p", *db]) == 0
    assert main([*sp, "35000", "--reason", "seeded", "--key", "p", *db]) == 0
    assert main(["event", "adjust", event_id, "bot:greedy:2", "-10", *db]) == 1  # no reason
    assert (
        main(["event", "adjust", event_id, "bot:greedy:2", "-10", "--reason", "late", "--key", "a", *db]) == 0
    )
    assert (
        main(["event", "adjust", event_id, "bot:greedy:2", "-10", "--reason", "late", "--key", "a", *db]) == 0
    )
    assert main(["event", "notice", event_id, "Doors open at seven", *db]) == 0
    capsys.readouterr()
    log = asyncio.run(_log(tmp_path, event_id))
    assert log.count("start_points") == 1 and log.count("adjust") == 1 and log.count("notice") == 1
    assert main(["event", "seat", event_id, *db]) == 0
    # actions on a running table go to the running server (none listens here): refused, exit 1
    server = ["--api", "http://127.0.0.1:9", "--token", "t"]
    for argv in (
        ["lock", event_id, "--table", "0", "--seat", "1"],
        ["substitute", event_id, "--table", "0", "--seat", "1", "--by", "bot:greedy", "--reason", "x"],
        ["pause", event_id],
        ["end-table", event_id, "0", "--reason", "x"],
    ):
        assert main(["event", *argv, *server]) == 1, argv
    capsys.readouterr()
    asyncio.run(_start_and_play(tmp_path, event_id))
    assert main(["event", "finish-round", event_id, *db]) == 0
    match_id = asyncio.run(_match(tmp_path, event_id))
    capsys.readouterr()
    assert main(["event", "moves", event_id, match_id, *db]) == 0
    moves = json.loads(capsys.readouterr().out)
    assert moves and not any(m["substitute"] for m in moves)
    out = tmp_path / "night.zip"
    assert main(["event", "export", event_id, "--out", str(out), *db]) == 0
    z = zipfile.ZipFile(io.BytesIO(out.read_bytes()))
    assert f"games/r1-t0-{match_id}.tenhou6.json" in z.namelist()
    assert f"games/r1-t0-{match_id}.mjai.jsonl" in z.namelist()
    manifest = json.loads(z.read("event.json"))
    assert manifest["rounds"][0]["tables"][0]["start_scores"] is not None
    assert any(e["start_points"] == 35000 for e in manifest["entrants"])
