"""``jantaku admin moderation ...`` (server/app/moderation.py): chat bans and suspensions stored with
their reason and author, listed, lifted; and a running server's chat sees them."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from server.app.cli import main
from server.services.social import SocialService
from server.social.chat import Role
from server.social.moderation import ModerationError
from server.store.repository import SqlRepository


def test_ban_list_lift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ["--data-dir", str(tmp_path)]
    assert main(["admin", "create-player", "mallory", *data]) == 0
    capsys.readouterr()
    assert (
        main(["admin", "moderation", "chat-ban", "mallory", "--reason", "spam", "--minutes", "30", *data])
        == 0
    )
    (given,) = capsys.readouterr().out.splitlines()
    sanction_id, account_id, kind, *_rest, reason = given.split("\t")
    assert (sanction_id, kind, reason) == ("1", "chat_ban", "spam") and "cli:" in given
    assert main(["admin", "moderation", "suspend", "mallory", "--reason", " ", *data]) == 1  # a reason
    assert "needs a reason" in capsys.readouterr().err
    assert main(["admin", "moderation", "suspend", "nobody", "--reason", "x", *data]) == 1
    capsys.readouterr()

    async def chat_refused() -> bool:
        async with await SqlRepository.open(f"sqlite+aiosqlite:///{tmp_path}/jantaku.sqlite3") as repo:
            service = SocialService(time.time, store=repo)
            await service.load()
            try:
                service.compose(
                    account_id, "mallory", Role.SEATED, 0, source="private:X", hand_live=False, text="hi"
                )
            except ModerationError as exc:
                return exc.code == "chat_banned"
            return False

    assert asyncio.run(chat_refused())
    assert main(["admin", "moderation", "list", "mallory", "--active", *data]) == 0
    assert capsys.readouterr().out.startswith("1\t")
    assert main(["admin", "moderation", "lift", "1", *data]) == 0
    assert "lifted" in capsys.readouterr().out
    assert main(["admin", "moderation", "list", "--active", *data]) == 0
    assert capsys.readouterr().out == ""
    assert not asyncio.run(chat_refused())
    assert main(["admin", "moderation", "lift", "7", *data]) == 1
