"""``jantaku admin create-player``: a player made with a token only is told (and tells the web's
sign-in) how it signs in; one made with ``--password`` signs in on the web client's ranked card."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from server.app.cli import main
from server.services.accounts import Accounts
from server.services.auth import Authenticator, AuthError
from server.store.db import sqlite_url
from server.store.repository import SqlRepository


def sign_in(data: Path, name: str, password: str) -> str:
    """The account id signed in, or the refusal's message."""

    async def go() -> str:
        async with await SqlRepository.open(sqlite_url(data / "jantaku.sqlite3")) as repo:
            accounts = Accounts(repo, Authenticator(repo, session_ttl_s=60))
            try:
                return (await accounts.sign_in(name, password, "127.0.0.1")).account.id
            except AuthError as exc:
                return str(exc)

    return asyncio.run(go())


def test_a_token_players_sign_in_says_how_it_does_sign_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data-dir", str(tmp_path)]
    assert main(["admin", "create-player", "alice", *data]) == 0
    out = capsys.readouterr().out
    assert "create the player with --password" in out
    refusal = sign_in(tmp_path, "alice", "whatever-1234")
    assert "has no password" in refusal and "jantaku admin create-player NAME --password" in refusal
    assert sign_in(tmp_path, "nobody", "whatever-1234") == "unknown name or wrong password"


def test_a_player_created_with_a_password_signs_in_on_the_web(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = ["--data-dir", str(tmp_path)]
    monkeypatch.setattr("sys.stdin", io.StringIO("correct horse battery\n"))
    assert main(["admin", "create-player", "bob", "--password", *data]) == 0
    assert "signs in with this name and its password" in capsys.readouterr().out
    assert sign_in(tmp_path, "bob", "correct horse battery").startswith("p-")
    assert sign_in(tmp_path, "bob", "wrong password!") == "unknown name or wrong password"
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert main(["admin", "create-player", "carol", "--password", *data]) == 1
    assert "a password has" in capsys.readouterr().err
