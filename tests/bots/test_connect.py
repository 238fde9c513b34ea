"""``jantaku bot connect`` end to end on localhost: a real hub, the connector, and a real mjai bot
process (``tests/bots/mjai_tsumogiri.py``) on stdin/stdout, in batch mode and in line mode.

The bot writes every event it reads to a log; each game's part must equal the offline per-seat
export of that match (``tests.bots.mjai_kit.expected_lines``): nothing missing, nothing twice, even
across a reconnection. No test sleeps: the connector and the processes are awaited.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from server.app.cli import main as jantaku
from server.bots.connect import EXIT_BOT, EXIT_FAILED, EXIT_OK, ConnectOptions, Connector, _Game, mjai_url
from server.domain.ranked import Board
from server.domain.records import AccountKind
from server.hub.mjai import MjaiSession
from server.hub.outputs import PromptOut
from server.hub.server import Hub
from server.hub.settings import TableTimers
from server.ranking import Length
from server.services.ratings import RatingService
from server.store.memory import InMemoryRepository
from tests.bots.mjai_kit import TSUMOGIRI_BOT, bot_token, expected_lines, mjai_hub, scan

REPO = Path(__file__).resolve().parents[2]
# Line mode: the bot does not look for ron; when the server asks, it waits this long for nothing.
LINE_TIMERS = TableTimers(action_ms=1500, bank_ms=0)


def bot_command(log: Path, *extra: str) -> tuple[str, ...]:
    return (sys.executable, str(TSUMOGIRI_BOT), "--log", str(log), *extra)


def read_log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def expected_games(hub: Hub, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for r in results:
        table = hub.lobby.table(r["match_id"])
        assert table is not None and table.finished
        out += await expected_lines(table, r["seat"])
    return out


async def connector(hub: Hub, token: str, command: tuple[str, ...], **options: Any) -> Connector:
    return Connector(
        ConnectOptions(
            server=f"127.0.0.1:{hub.port}", token=token, command=command, answer_grace_s=0.2, **options
        )
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("line_mode", [False, True], ids=["batch", "line"])
async def test_an_mjai_bot_plays_two_games_and_sees_exactly_its_view(tmp_path: Path, line_mode: bool) -> None:
    log = tmp_path / "events.jsonl"
    extra = ("--line-mode",) if line_mode else ()
    async with mjai_hub(fill_after_s=0.0, timers=LINE_TIMERS if line_mode else None) as hub:
        c = await connector(
            hub, await bot_token(hub, "tsumogiri"), bot_command(log, *extra), games=2, line_mode=line_mode
        )
        assert await c.run() == EXIT_OK
        assert c.games_done == 2 and c.reconnects == 0
        assert [r["result"] is not None for r in c.results] == [True, True]
        lines = read_log(log)
        assert lines == await expected_games(hub, c.results)
        seat = -1
        for line in lines:  # the leak scanner, explicitly: others' tiles are "?"
            seat = line["id"] if line["type"] == "start_game" else seat
            scan(line, seat)


@pytest.mark.asyncio
async def test_a_table_of_mjai_bots_two_through_the_jantaku_bot_connect_command(tmp_path: Path) -> None:
    """The real command line (in batch and in line mode) and two in-process connectors (batch, line)
    at one table of four mjai bots."""
    async with mjai_hub(timers=LINE_TIMERS) as hub:
        procs = []
        for i in range(2):
            mode = ("--line-mode",) if i % 2 else ()
            argv = ["bot", "connect", "--server", f"ws://127.0.0.1:{hub.port}", "--quiet", *mode]
            argv += ["--answer-grace", "0.2", "--", *bot_command(tmp_path / f"bot{i}.jsonl", *mode)]
            procs.append(
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "server.app",
                    *argv,
                    cwd=REPO,
                    env={"JANTAKU_BOT_TOKEN": await bot_token(hub, f"cli{i}"), "PATH": "/usr/bin:/bin"},
                    stderr=asyncio.subprocess.PIPE,
                )
            )
        in_process = []
        for i in (2, 3):
            mode = ("--line-mode",) if i % 2 else ()
            command = bot_command(tmp_path / f"bot{i}.jsonl", *mode)
            token = await bot_token(hub, f"lib{i}")
            in_process.append(await connector(hub, token, command, line_mode=bool(mode)))
        ran = asyncio.gather(*(c.run() for c in in_process))
        outputs = await asyncio.gather(*(p.communicate() for p in procs))
        assert await ran == [EXIT_OK, EXIT_OK]
        for proc, (_, err) in zip(procs, outputs, strict=True):
            assert proc.returncode == 0, err.decode()
        (table,) = hub.lobby.tables.values()
        assert table.finished and table.outcome is not None and table.outcome.result is not None
        seats = set()
        for i in range(4):
            log = read_log(tmp_path / f"bot{i}.jsonl")
            seat = log[0]["id"]
            seats.add(seat)
            assert log == await expected_lines(table, seat)
        assert seats == {0, 1, 2, 3}


@pytest.mark.asyncio
async def test_it_reconnects_and_resumes_without_repeating_events(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = 0
    original = MjaiSession._ask

    def ask_then_drop(self: MjaiSession, prompt: PromptOut, *, after_reach: bool) -> None:
        nonlocal asked
        original(self, prompt, after_reach=after_reach)
        asked += 1
        if asked == 10:  # the connection dies with a request in flight
            self._outbox.drop("test: connection lost")

    monkeypatch.setattr(MjaiSession, "_ask", ask_then_drop)
    log = tmp_path / "events.jsonl"
    timers = TableTimers(action_ms=60_000, disconnect_grace_ms=60_000)
    async with mjai_hub(fill_after_s=0.0, timers=timers) as hub:
        c = await connector(hub, await bot_token(hub, "flaky"), bot_command(log))
        assert await c.run() == EXIT_OK
        assert c.reconnects == 1 and c.games_done == 1
        assert read_log(log) == await expected_games(hub, c.results)


@pytest.mark.asyncio
async def test_garbage_answers_are_reported_and_the_default_is_played(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log = tmp_path / "events.jsonl"
    async with mjai_hub(fill_after_s=0.0) as hub:
        c = await connector(hub, await bot_token(hub, "noisy"), bot_command(log, "--garbage", "4"))
        with caplog.at_level(logging.INFO, logger="jantaku.bot.connect"):
            assert await c.run() == EXIT_OK
        assert read_log(log) == await expected_games(hub, c.results)
    text = caplog.text
    assert "not a JSON object: 'this is not json'" in text
    assert "server error illegal_action" in text and "the server played" in text


@pytest.mark.asyncio
async def test_a_bot_that_crashes_is_reported(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async with mjai_hub(fill_after_s=0.0) as hub:
        c = await connector(
            hub, await bot_token(hub, "fragile"), bot_command(tmp_path / "x", "--crash-after", "5")
        )
        with caplog.at_level(logging.INFO, logger="jantaku.bot.connect"):
            assert await c.run() == EXIT_BOT
        missing = await connector(hub, await bot_token(hub, "ghost"), (str(tmp_path / "no-such-bot"),))
        with caplog.at_level(logging.INFO, logger="jantaku.bot.connect"):
            assert await missing.run() == EXIT_BOT
    # Which pipe notices the crash first depends on timing; either report names the exit code.
    assert (
        "the bot closed its output (it exited with code 7)" in caplog.text
        or "the bot stopped reading its input (it exited with code 7)" in caplog.text
    )
    assert "cannot run the bot" in caplog.text


@pytest.mark.asyncio
async def test_a_refused_token_or_queue_stops_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with mjai_hub() as hub:
        with caplog.at_level(logging.INFO, logger="jantaku.bot.connect"):
            c = await connector(hub, "b-00.wrong", bot_command(tmp_path / "x"))
            assert await c.run() == EXIT_FAILED
            c = await connector(hub, await bot_token(hub, "lost"), bot_command(tmp_path / "x"), queue="nope")
            assert await c.run() == EXIT_FAILED
    assert "refused the bot: unauthenticated" in caplog.text
    assert "refused to seat the bot: not_found" in caplog.text


def test_command_line_checks(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JANTAKU_BOT_TOKEN", raising=False)
    assert jantaku(["bot", "connect", "--server", "ws://127.0.0.1:1", "--", "bot.py"]) == 2
    assert "--token" in capsys.readouterr().err
    assert jantaku(["bot", "connect", "--server", "ws://127.0.0.1:1", "--token", "t"]) == 2
    assert "command after --" in capsys.readouterr().err
    assert jantaku(["bot"]) == 2
    assert mjai_url("127.0.0.1:8765") == "ws://127.0.0.1:8765/mjai"
    assert mjai_url("https://example.org/") == "wss://example.org/mjai"


@pytest.mark.asyncio
async def test_an_unreachable_server_is_retried_then_given_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    options = ConnectOptions(
        server=f"ws://127.0.0.1:{port}",
        token="b-00.x",
        command=bot_command(tmp_path / "x"),
        retry_initial_s=0.001,
        max_failures=2,
    )
    c = Connector(options)
    with caplog.at_level(logging.INFO, logger="jantaku.bot.connect"):
        assert await c.run() == EXIT_FAILED
    assert c.reconnects == 2
    assert "giving up after 3 attempts" in caplog.text


class _FakeConnection:
    """A connection that delivers the given frames, then ends; it records how it was closed."""

    def __init__(self, frames: list[dict[str, Any]]) -> None:
        self.frames = [json.dumps(f) for f in frames]
        self.sent: list[str] = []
        self.close_code: int | None = None
        self.close_reason = ""

    async def __aenter__(self) -> _FakeConnection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def send(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.close_code, self.close_reason = code, reason
        self.frames = []

    def __aiter__(self) -> _FakeConnection:
        return self

    async def __anext__(self) -> str:
        if not self.frames:
            self.close_code = self.close_code or 1000
            raise StopAsyncIteration
        return self.frames.pop(0)


@pytest.mark.asyncio
async def test_games_1_does_not_play_a_second_match_after_a_reconnect(tmp_path: Path) -> None:
    """The connection dropped during the only game; that match ended while the connector was away,
    and on its return the server queued it and seated it in a new match. With ``--games 1`` the game
    it was playing counts as its one game: it leaves instead of playing the second match."""
    frames: list[dict[str, Any]] = [
        {"type": "welcome", "player": {"name": "once"}},
        {"type": "seated", "match_id": "second", "seat": 2, "names": ["a", "b", "c", "d"]},
        {"type": "start_game", "id": 2, "names": ["a", "b", "c", "d"]},
    ]
    connection = _FakeConnection(frames)
    options = ConnectOptions(
        server="127.0.0.1:1", token="b-00.x", command=bot_command(tmp_path / "events.jsonl"), games=1
    )
    c = Connector(options, connector=lambda *args, **kwargs: connection)
    c._game = _Game("first", 0)  # the game in progress when the connection dropped
    assert await c.run() == EXIT_OK
    assert c.games_done == 1 and [r["match_id"] for r in c.results] == ["first"]
    assert c._game is None and not (tmp_path / "events.jsonl").exists()  # no bot for the new match
    assert connection.close_code == 1000


@pytest.mark.asyncio
async def test_a_bot_ladder_match_of_four_mjai_bots_is_rated(tmp_path: Path) -> None:
    """``jantaku bot connect --queue ladder``: four mjai bots, one rated match on the ladder's board."""
    repo = InMemoryRepository()
    async with mjai_hub(repo=repo, fill_after_s=0.0) as hub:
        tokens = [await bot_token(hub, f"ladder{i}") for i in range(4)]
        bots = [
            await connector(hub, token, bot_command(tmp_path / f"bot{i}.jsonl"), queue="ladder", games=1)
            for i, token in enumerate(tokens)
        ]
        assert await asyncio.gather(*(c.run() for c in bots)) == [EXIT_OK] * 4
        match_id = bots[0].results[0]["match_id"]
    match = await repo.get_match(match_id)
    assert match is not None and match.source == "ranked:ladder:east"
    assert {s.kind for s in match.seats} == {AccountKind.BOT}  # no built-in bot filled a seat
    result = await repo.get_result(match_id)
    assert result is not None
    standings = [
        await repo.standing(s.account_id or "", Board.LADDER, Length.EAST)
        for s in sorted(match.seats, key=lambda s: s.seat)
    ]
    assert [s.games for s in standings] == [1, 1, 1, 1]
    assert [s.placements.index(1) + 1 for s in standings] == list(result.ranks)
    assert sum(s.rating for s in standings) == pytest.approx(4 * 1500)
    assert await RatingService(repo).rebuild(check=True) == []
    board, total = await repo.leaderboard(Board.LADDER, Length.EAST)
    assert total == 4 and {e.name for e in board} == {f"ladder{i}" for i in range(4)}
    assert (await repo.leaderboard(Board.RANKED, Length.EAST))[1] == 0
