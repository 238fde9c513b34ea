"""``jantaku admin moderation reports ...`` (server/app/reports_cli.py): the review queue from the
command line: list, show with the context, resolve (dismiss, or a sanction), audited."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from server.app.cli import main
from server.domain.moderation import LobbyLineRecord, ReportRecord
from server.store.repository import SqlRepository


def _url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path}/jantaku.sqlite3"


def test_list_show_resolve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ["--data-dir", str(tmp_path)]
    assert main(["admin", "create-player", "mallory", *data]) == 0
    capsys.readouterr()

    async def seed() -> str:
        async with await SqlRepository.open(_url(tmp_path)) as repo:
            mallory = await repo.account_by_name("mallory")
            assert mallory is not None
            line = await repo.add_lobby_line(
                LobbyLineRecord(0, "general", mallory.id, "mallory", "<b>buy gold</b>", None, 1e9)
            )
            context = {
                "channel": "general",
                "line_id": line.id,
                "lines": [
                    {"id": line.id, "name": "mallory", "account_id": mallory.id, "text": line.text, "at": 1e9}
                ],
            }
            await repo.add_report(
                ReportRecord(0, "p-x", mallory.id, "lobby", "spam", json.dumps(context), 1e9)
            )
            await repo.add_report(ReportRecord(0, "p-y", mallory.id, "player", "rude", "{}", 1e9 + 1))
            return mallory.id

    mallory_id = asyncio.run(seed())
    assert main(["admin", "moderation", "reports", "list", "--status", "open", *data]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == ["1", "2"]
    assert lines[0].split("\t")[2:5] == ["lobby", "p-x", mallory_id]
    assert main(["admin", "moderation", "reports", "show", "1", *data]) == 0
    shown = capsys.readouterr().out
    assert "where: general" in shown and "> " in shown and '"<b>buy gold</b>"' in shown
    assert (
        main(
            [
                "admin",
                "moderation",
                "reports",
                "resolve",
                "1",
                "--action",
                "chat-ban",
                "--reason",
                "spam",
                "--minutes",
                "60",
                *data,
            ]
        )
        == 0
    )
    assert "actioned" in capsys.readouterr().out
    assert (
        main(
            ["admin", "moderation", "reports", "resolve", "1", "--action", "dismiss", "--reason", "x", *data]
        )
        == 1
    )
    assert "already" in capsys.readouterr().err
    assert (
        main(
            ["admin", "moderation", "reports", "resolve", "2", "--action", "dismiss", "--reason", " ", *data]
        )
        == 1
    )
    capsys.readouterr()
    assert (
        main(
            [
                "admin",
                "moderation",
                "reports",
                "resolve",
                "2",
                "--action",
                "dismiss",
                "--reason",
                "fine",
                *data,
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["admin", "moderation", "list", "mallory", "--active", *data]) == 0
    assert "report 1: spam" in capsys.readouterr().out  # the sanction, with the report it came from
    assert main(["admin", "moderation", "reports", "show", "1", *data]) == 0
    assert "sanction 1: chat_ban" in capsys.readouterr().out
    assert main(["admin", "moderation", "reports", "list", "--status", "open", *data]) == 0
    assert capsys.readouterr().out == ""
    assert main(["admin", "moderation", "reports", "show", "9", *data]) == 1

    async def audited() -> list[str]:
        async with await SqlRepository.open(_url(tmp_path)) as repo:
            return [e.action for e in await repo.audit_entries()]

    assert asyncio.run(audited()).count("report.resolve") == 2  # each resolution, with its reason
