"""``jantaku event bot-entrant`` and ``jantaku event comparison`` on a SQLite database."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from server.app.cli import main
from server.domain.records import Account, AccountKind
from server.store.repository import SqlRepository
from tests.events.test_events_cli import url
from tests.hub.helpers import EAST


async def _accounts(path: Path) -> None:
    async with await SqlRepository.open(url(path)) as repo:
        await repo.create_account(Account("a-org", "org", AccountKind.PLAYER, frozenset(), 0.0))
        await repo.create_account(Account("b-one", "mortal", AccountKind.BOT, frozenset(), 0.0))


def test_a_bot_account_is_entered_and_the_comparison_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--data-dir", str(tmp_path)]
    asyncio.run(_accounts(tmp_path))
    settings = tmp_path / "event.json"
    settings.write_text(
        json.dumps(
            {"name": "Bot league", "ruleset_json": EAST.to_dict(), "rounds": 4, "duplicate": "rotations"}
        )
    )
    assert main(["event", "create", str(settings), "--organizer", "org", *db]) == 0
    event_id = capsys.readouterr().out.strip()
    assert main(["event", "bot-entrant", event_id, "org", *db]) == 1  # a player's account
    assert "not a bot account" in capsys.readouterr().err
    assert main(["event", "bot-entrant", event_id, "nobody", *db]) == 1
    assert "no account named 'nobody'" in capsys.readouterr().err
    for _ in range(2):  # by name, and again: entered once
        assert main(["event", "bot-entrant", event_id, "mortal", "--reason", "invited", *db]) == 0
        assert capsys.readouterr().out.strip() == "b-one (mortal): entered"
    assert main(["event", "show", event_id, *db]) == 0
    assert [e["id"] for e in json.loads(capsys.readouterr().out)["entrants"]] == ["b-one"]
    assert main(["event", "comparison", event_id, "--json", *db]) == 0
    assert json.loads(capsys.readouterr().out) == {"entrants": [], "sets": []}
