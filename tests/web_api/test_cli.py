"""``jantaku admin games list|show|walls``, ``jantaku admin create-admin``, ``jantaku admin audit``,
``jantaku export`` and ``jantaku admin revoke`` of an admin, on the seeded SQLite database (the API
tests cover PostgreSQL; these read through the same :class:`~server.services.review.Review`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from server.app.cli import main
from server.app.cliparts import cli_actor
from server.domain.reads import AuditEntry
from server.records.export import export_match
from server.services.review import Review
from server.store.db import sqlite_url
from server.store.repository import SqlRepository
from server.web.api import ApiSettings, create_app
from tests.web_api.conftest import SeededDb, data_dir_of

# The CLI reads through the same Review as the API, whose tests run on both backends; here the
# seeded SQLite database only (its --data-dir).
sqlite_only = pytest.mark.parametrize("seeded_db", ["sqlite"], indirect=True)


@pytest.fixture
def data_dir(seeded_db: SeededDb) -> Path:
    path = data_dir_of(seeded_db)
    assert path is not None
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def audit_entries(data_dir: Path, n: int = 1) -> list[AuditEntry]:
    async def go() -> list[AuditEntry]:
        async with await SqlRepository.open(sqlite_url(data_dir / "jantaku.sqlite3")) as repo:
            return list(await repo.audit_entries(limit=n))

    return asyncio.run(go())


@sqlite_only
def test_games_list(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "admin", "games", "list", "--data-dir", str(data_dir))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["ID", "STATUS", "RULESET", "CREATED"]
    assert [line.split()[0] for line in lines[1:6]] == [
        "m-aborted",
        "m-live",
        "m-humans",
        "m-bots",
        "m-mixed",
    ]
    assert lines[-1] == "(1-5 of 5)"
    mixed = next(line for line in lines if line.startswith("m-mixed"))
    assert "alice" in mixed and "1. " in mixed  # the final ranking
    entry = audit_entries(data_dir)[0]
    assert (entry.action, entry.actor, entry.actor_id) == ("games.list", cli_actor(), None)


@sqlite_only
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--status", "running"], ["m-live"]),
        (["--status", "finished", "--player", "alice"], ["m-aborted", "m-humans", "m-mixed"]),
        (["-q", "üm"], ["m-humans"]),
        (["--search", "ROB"], ["m-mixed"]),
        (["--ruleset", "ema"], ["m-bots"]),
        (["--lineup", "humans"], ["m-humans"]),
        (["--seats", "3"], []),  # every game here has four seats
        (["--seats", "4", "--ruleset", "ema"], ["m-bots"]),
        (["--since", "2023-11-15", "--until", "2023-11-15T02:00:00Z"], ["m-live", "m-humans"]),
        (["--limit", "2", "--offset", "1"], ["m-live", "m-humans"]),
        (["--player", "nobody"], []),
    ],
)
def test_games_list_filters_json(
    data_dir: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: list[str]
) -> None:
    code, out, _ = run(capsys, "admin", "games", "list", "--json", *args, "--data-dir", str(data_dir))
    assert code == 0
    assert [g["id"] for g in json.loads(out)["games"]] == expected


@sqlite_only
def test_games_list_refuses_bad_options(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["admin", "games", "list", "--since", "last tuesday", "--data-dir", str(data_dir)])
    assert exc.value.code == 2
    code, _, err = run(capsys, "admin", "games", "list", "--limit", "0", "--data-dir", str(data_dir))
    assert code == 2 and "--limit" in err


@sqlite_only
def test_games_show(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "admin", "games", "show", "m-mixed", "--data-dir", str(data_dir))
    assert code == 0
    assert out.startswith("game m-mixed: completed")
    assert "ranking:" in out and "East 1" in out and "han" in out
    assert "decisions played by the server (timeouts, disconnects)" in out
    entry = audit_entries(data_dir)[0]
    assert (entry.action, entry.match_id) == ("game.read", "m-mixed")


@sqlite_only
def test_games_show_json_is_the_api_document(
    data_dir: Path, seeded_db: SeededDb, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "admin", "games", "show", "m-humans", "--json", "--data-dir", str(data_dir))
    assert code == 0

    async def api_view() -> object:
        async with await seeded_db.open() as repo:
            app = create_app(repo, ApiSettings())
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                headers = {"Authorization": f"Bearer {seeded_db.data.tokens['admin']}"}
                return (await client.get("/api/admin/games/m-humans", headers=headers)).json()

    assert json.loads(out) == asyncio.run(api_view())


@sqlite_only
def test_games_show_live_and_unknown(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "admin", "games", "show", "m-live", "--data-dir", str(data_dir))
    assert code == 0 and "sealed until the game ends" in out and "seed (not revealed)" in out
    code, _, err = run(capsys, "admin", "games", "show", "m-nope", "--data-dir", str(data_dir))
    assert code == 1 and "no game 'm-nope'" in err
    entry = audit_entries(data_dir)[0]
    assert (entry.match_id, entry.detail) == ("m-nope", {"outcome": "not_found"})


@sqlite_only
def test_games_walls(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "admin", "games", "walls", "m-mixed", "--data-dir", str(data_dir))
    assert (
        code == 0
        and "seed matches its commitment" in out
        and out.rstrip().endswith("all revealed walls verified")
    )
    code, out, _ = run(capsys, "admin", "games", "walls", "m-aborted", "--data-dir", str(data_dir))
    assert code == 0 and "not revealed (the game ended during this hand)" in out
    code, out, _ = run(capsys, "admin", "games", "walls", "m-bots", "--json", "--data-dir", str(data_dir))
    assert code == 0 and json.loads(out)["all_ok"] is True
    code, _, err = run(capsys, "admin", "games", "walls", "m-live", "--data-dir", str(data_dir))
    assert code == 1 and "still being played" in err


@sqlite_only
@pytest.mark.parametrize("fmt", ["tenhou6", "mjai"])
def test_export_to_a_file_and_stdout(
    data_dir: Path, seeded_db: SeededDb, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    for game in ("m-mixed", "m-aborted"):
        want = export_match(seeded_db.data.events[game], fmt, names=seeded_db.data.names[game])
        out_file = tmp_path / f"{game}.out"
        code, _, err = run(
            capsys, "export", game, "--format", fmt, "--out", str(out_file), "--data-dir", str(data_dir)
        )
        assert code == 0 and "wrote" in err
        assert out_file.read_text(encoding="utf-8") == want
        code, out, _ = run(capsys, "export", game, "--format", fmt, "--data-dir", str(data_dir))
        assert code == 0 and out.rstrip("\n") == want.rstrip("\n")
        entry = audit_entries(data_dir)[0]
        assert (entry.action, entry.match_id, entry.detail) == (
            "game.export",
            game,
            {"format": fmt, "outcome": "ok"},
        )


@sqlite_only
def test_export_refuses_live_and_unknown_games(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "export", "m-live", "--format", "mjai", "--data-dir", str(data_dir))
    assert code == 1 and out == "" and "still being played" in err
    code, _, err = run(capsys, "export", "m-nope", "--format", "tenhou6", "--data-dir", str(data_dir))
    assert code == 1 and "no game" in err
    with pytest.raises(SystemExit):
        main(["export", "m-mixed", "--format", "xml", "--data-dir", str(data_dir)])


@sqlite_only
def test_database_url_option(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{data_dir / 'jantaku.sqlite3'}"
    code, out, _ = run(
        capsys, "admin", "games", "list", "--json", "--status", "aborted", "--database-url", url
    )
    assert code == 0 and [g["id"] for g in json.loads(out)["games"]] == ["m-aborted"]
    code, _, err = run(capsys, "admin", "games", "list", "--database-url", "mysql://x/y")
    assert code == 2 and "unsupported database URL" in err


@sqlite_only
def test_audit_command(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "admin", "games", "show", "m-bots", "--data-dir", str(data_dir))
    code, out, _ = run(
        capsys, "admin", "audit", "--game", "m-bots", "--limit", "3", "--data-dir", str(data_dir)
    )
    assert code == 0 and "game.read" in out.splitlines()[0] and cli_actor() in out
    code, out, _ = run(capsys, "admin", "audit", "--json", "--limit", "2", "--data-dir", str(data_dir))
    assert code == 0 and len(json.loads(out)["entries"]) == 2


def test_create_admin_then_revoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A fresh data directory: create-admin makes the database, prints the token once; the token
    opens the admin API; ``jantaku admin revoke`` (the hub's accounts command) shuts it out."""
    data = tmp_path / "data"
    code, out, _ = run(capsys, "admin", "create-admin", "ops", "--data-dir", str(data))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("created admin 'ops' (id a-") and "shown only this once" in lines[0]
    token = lines[1]
    assert token.startswith("a-") and "." in token

    async def status(path: str) -> int:
        async with await SqlRepository.open(sqlite_url(data / "jantaku.sqlite3")) as repo:
            transport = httpx.ASGITransport(app=create_app(repo, ApiSettings()))
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                return (await client.get(path, headers={"Authorization": f"Bearer {token}"})).status_code

    assert asyncio.run(status("/api/admin/games")) == 200
    code, _, err = run(capsys, "admin", "create-admin", "ops", "--data-dir", str(data))
    assert code == 1 and "ops" in err  # the name is taken
    code, _, err = run(capsys, "admin", "create-admin", "no spaces", "--data-dir", str(data))
    assert code == 1 and "bad account name" in err
    code, out, _ = run(capsys, "admin", "list", "--data-dir", str(data))
    assert "ops" in out and token not in out
    code, out, _ = run(capsys, "admin", "revoke", "ops", "--data-dir", str(data))
    assert code == 0 and "revoked" in out
    assert asyncio.run(status("/api/admin/games")) == 401

    async def audited() -> list[str]:
        async with await SqlRepository.open(sqlite_url(data / "jantaku.sqlite3")) as repo:
            return [e.action for e in (await Review(repo).audit_log()).entries]

    assert "account.create_admin" in asyncio.run(audited())


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["admin", "--help"])
    out = capsys.readouterr().out
    for command in ("create-admin", "games", "audit", "revoke", "create-player", "create-bot"):
        assert command in out
    code, out, _ = run(capsys, "admin", "games")
    assert code == 2 and "list" in out and "show" in out and "walls" in out


def test_export_help_says_what_the_id_is_and_where_to_find_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "match id (m-..." in out and "jantaku admin games list" in out
