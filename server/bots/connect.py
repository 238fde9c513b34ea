"""``jantaku bot connect``: seat an unmodified mjai bot (a program on stdin/stdout) at a Jantaku hub.

The bot runs as a subprocess, one per game (started at ``start_game``; a ``{seat}`` in its command
line becomes its seat, for bots like Mortal's ``mortal.py`` that take it as an argument). The
connector speaks the hub's mjai endpoint (``/mjai``, see ``docs/mjai.md``) and feeds the bot:

* **batch mode** (default, as mjai.app runs bots): at each request, ONE line holding a JSON array of
  the events since the bot's last answer, ending with the event it must react to; the bot answers
  with one line (one mjai action; ``{"type": "none"}`` to pass);
* **line mode** (``--line-mode``, Mortal-style bots): every event as its own line as it arrives;
  the bot answers only where it can act, and the connector reads an answer only where the server
  asks (its ``request``).

The answer goes to the server tagged with the request it answers. The connector reconnects by
itself when the connection drops (at once, then with exponential backoff while the server cannot
be reached) and resumes: the server sends the game again from ``start_game`` and the events the bot
already has are skipped; an answer the server may have missed is sent again. After ``--games N``
games it exits 0 (a game that ended while it was reconnecting counts: seated in a new match after
that, it leaves instead of playing it). A bot that exits, cannot be written to or does not answer
in time is reported on stderr with what it did; a line that is not JSON is reported and passed on
(the server answers it with an error and plays the default action).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

# Only the mjai events are passed to the bot; the endpoint's own messages (``welcome``, ``queued``,
# ``seated``, ``request``, ``error``, ``match_end``) are not.
from server.records.export_mjai import MJAI_EVENT_TYPES

log = logging.getLogger("jantaku.bot.connect")


EXIT_OK = 0
EXIT_FAILED = 1  # refused by the server, or the server could not be reached for too long
EXIT_BOT = 3  # the bot crashed or could not be run
MAX_LINE = 1 << 20


class FatalError(Exception):
    """Retrying cannot help (refused token, unknown queue)."""


class BotError(Exception):
    """The bot process failed: exited, closed its pipes or could not be started."""


def mjai_url(server: str) -> str:
    """The endpoint URL from what the user typed: ``http(s)`` becomes ``ws(s)``, no path ``/mjai``.

    >>> mjai_url("127.0.0.1:8765"), mjai_url("http://h:1/"), mjai_url("wss://h/x/mjai")
    ('ws://127.0.0.1:8765/mjai', 'ws://h:1/mjai', 'wss://h/x/mjai')
    """
    if "://" not in server:
        server = "ws://" + server
    parts = urlsplit(server)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    path = parts.path if parts.path not in ("", "/") else "/mjai"
    return urlunsplit((scheme, parts.netloc, path, parts.query, ""))


@dataclass(frozen=True)
class ConnectOptions:
    server: str
    token: str
    command: tuple[str, ...]
    queue: str = "tenhou"
    private: str | None = None
    event: str | None = None  # an event's id: wait for the bot's seat at its tables (docs/mjai.md)
    games: int = 1
    line_mode: bool = False
    answer_grace_s: float = 2.0  # waited for an answer beyond the server's deadline and bank
    retry_initial_s: float = 0.5
    retry_max_s: float = 30.0
    max_failures: int = 12  # consecutive failed connection attempts before giving up


class BotProcess:
    """The bot subprocess: lines in on stdin, lines out on stdout (stderr goes to ours)."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = tuple(argv)
        self._proc: asyncio.subprocess.Process | None = None
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                limit=MAX_LINE,
            )
        except OSError as exc:
            raise BotError(f"cannot run the bot {list(self.argv)}: {exc}") from exc
        self._reader = asyncio.create_task(self._read(), name="bot-stdout")

    async def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        try:
            while True:
                raw = await self._proc.stdout.readline()
                if not raw:
                    break
                line = raw.decode("utf-8", "replace").strip()
                if line:
                    self._lines.put_nowait(line)
        except (ValueError, OSError) as exc:  # a line longer than MAX_LINE, or the pipe broke
            log.error("cannot read the bot's output: %s", exc)
        finally:
            self._lines.put_nowait(None)

    @property
    def returncode(self) -> int | None:
        return None if self._proc is None else self._proc.returncode

    async def _exit_status(self) -> str:
        if self._proc is None:
            return "it never started"
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(2.0):
                await self._proc.wait()
        code = self._proc.returncode
        return "it is still running" if code is None else f"it exited with code {code}"

    async def write(self, line: str) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(line.encode() + b"\n")
            await self._proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise BotError(f"the bot stopped reading its input ({await self._exit_status()})") from exc

    async def answer(self, timeout: float | None) -> str | None:
        """The bot's next line; None when none came within ``timeout`` seconds."""
        try:
            async with asyncio.timeout(timeout):
                line = await self._lines.get()
        except TimeoutError:
            return None
        if line is None:
            self._lines.put_nowait(None)
            raise BotError(f"the bot closed its output ({await self._exit_status()})")
        return line

    def unread(self) -> list[str]:
        """Lines the bot wrote that nobody asked for yet."""
        out: list[str] = []
        while not self._lines.empty():
            line = self._lines.get_nowait()
            if line is None:
                self._lines.put_nowait(None)
                break
            out.append(line)
        return out

    async def stop(self, grace: float = 5.0) -> int | None:
        """Close its input and wait for it to exit; terminate it, then kill it, if it does not."""
        proc = self._proc
        if proc is None:
            return None
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                await proc.stdin.wait_closed()
        for step in ("wait", "terminate", "kill"):
            if step == "terminate":
                with contextlib.suppress(ProcessLookupError):
                    proc.terminate()
            elif step == "kill":
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
            try:
                async with asyncio.timeout(grace if step == "wait" else 2.0):
                    await proc.wait()
                break
            except TimeoutError:
                continue
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        return proc.returncode


@dataclass
class _Game:
    match_id: str
    seat: int
    received: int = 0  # mjai events of this game received (the replay after a resume skips them)
    pending: list[dict[str, Any]] = field(default_factory=list)  # not yet given to the bot
    bot: BotProcess | None = None
    last_answer: dict[str, Any] | str | None = None
    answer_current: bool = False  # nothing was given to the bot since ``last_answer``
    owed: int = 0  # batch mode: answers the bot still owes (it was too slow), dropped when they come
    result: dict[str, Any] | None = None


class Connector:
    """Plays ``options.games`` games with the bot (see the module docstring)."""

    def __init__(
        self,
        options: ConnectOptions,
        *,
        connector: Callable[..., Any] = connect,
        rng: random.Random | None = None,
    ) -> None:
        self.options = options
        self.url = mjai_url(options.server)
        self._connect = connector
        self._rng = rng or random.Random()
        self.games_done = 0
        self.results: list[dict[str, Any]] = []
        self._game: _Game | None = None
        self._skip = 0
        self._welcomed = False
        self._waiting_s: float | None = None  # the server said: no event seat yet, ask again then
        self.event_over: str | None = None  # the server said: the event is over (its status)
        self.reconnects = 0

    async def run(self) -> int:
        failures = 0  # connections that ended without finishing a game, since the last game ended
        unreachable = 0  # attempts in a row that got no welcome
        try:
            while self.games_done < self.options.games:
                self._welcomed = False
                self._waiting_s = None
                before = self.games_done
                why = "the server closed the connection before the game ended"
                try:
                    await self._session()
                except FatalError as exc:
                    log.error("%s", exc)
                    return EXIT_FAILED
                except BotError as exc:
                    log.error("bot failed: %s", exc)
                    return EXIT_BOT
                except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError) as exc:
                    why = _describe(exc)
                if self.event_over is not None:  # played out or closed early: nothing left to play
                    log.info(
                        "event %s is over (%s): %d games played",
                        self.options.event,
                        self.event_over,
                        self.games_done,
                    )
                    return EXIT_OK
                if self.games_done > before:
                    failures = unreachable = 0
                    continue
                if self._waiting_s is not None:  # an event bot between its tables: not a failure
                    failures = unreachable = 0
                    await asyncio.sleep(self._waiting_s)
                    continue
                failures += 1
                unreachable = 0 if self._welcomed else unreachable + 1
                if unreachable > self.options.max_failures:
                    log.error("giving up after %d attempts to reach %s (%s)", unreachable, self.url, why)
                    return EXIT_FAILED
                # At once after the first drop, then backing off (and never in a tight loop).
                delay = 0.0
                if failures > 1:
                    base = min(self.options.retry_max_s, self.options.retry_initial_s * 2 ** (failures - 2))
                    delay = base * (0.5 + self._rng.random() / 2)
                self.reconnects += 1
                log.warning("connection lost (%s); reconnecting in %.1f s", why, delay)
                if delay > 0:
                    await asyncio.sleep(delay)
            return EXIT_OK
        finally:
            if self._game is not None and self._game.bot is not None:
                await self._game.bot.stop(grace=1.0)

    # -- one connection -----------------------------------------------------------------------------

    async def _session(self) -> None:
        hello: dict[str, Any] = {"type": "hello", "token": self.options.token}
        if self.options.event is not None:
            hello["event"] = self.options.event
        elif self.options.private is not None:
            hello["private"] = self.options.private
        else:
            hello["queue"] = self.options.queue
        async with self._connect(self.url, compression=None, max_size=MAX_LINE, open_timeout=10) as ws:
            await ws.send(json.dumps(hello))
            async for frame in ws:
                message = json.loads(frame)
                if not isinstance(message, dict):
                    continue
                kind = message.get("type")
                if kind in MJAI_EVENT_TYPES:
                    await self._on_event(message)
                elif kind == "events":  # the game so far, after a resume: many mjai lines per frame
                    for event in message.get("events", ()):
                        if isinstance(event, dict) and event.get("type") in MJAI_EVENT_TYPES:
                            await self._on_event(event)
                elif kind == "request":
                    await self._on_request(ws, message)
                elif kind == "welcome":
                    self._welcomed = True
                    player = message.get("player", {})
                    log.info("connected to %s as %s", self.url, player.get("name"))
                elif kind == "event_over":
                    self.event_over = str(message.get("status"))
                    return
                elif kind == "waiting":  # an event bot with no seat at a running table yet
                    retry = message.get("retry_ms")
                    self._waiting_s = max(0.2, min(30.0, retry / 1000)) if isinstance(retry, int) else 1.0
                    if self.reconnects % 30 == 0:
                        log.info("waiting for a seat at event %s's tables", message.get("event"))
                    self.reconnects += 1
                    return
                elif kind == "queued":
                    log.info("queued (%s waiting)", message.get("players_waiting"))
                elif kind == "seated" and not await self._on_seated(message):
                    await ws.close(1000, "played its games")  # --games reached: do not play this one
                    return
                elif kind == "error":
                    self._on_error(message)
                elif kind == "match_end":
                    await self._on_match_end(message)
            if self._game is not None or ws.close_code != 1000:
                raise ConnectionError(f"the server closed the connection ({ws.close_code} {ws.close_reason})")

    def _on_error(self, message: dict[str, Any]) -> None:
        code, text = message.get("code"), message.get("message")
        if not self._welcomed:
            raise FatalError(f"the server refused the bot: {code}: {text}")
        if self._game is None and code in ("not_found", "forbidden"):
            raise FatalError(f"the server refused to seat the bot: {code}: {text}")
        applied = message.get("applied")
        extra = f" (the server played {json.dumps(applied)})" if applied is not None else ""
        log.warning("server error %s: %s%s", code, text, extra)

    async def _on_seated(self, message: dict[str, Any]) -> bool:
        """Take the seat; ``False`` when ``--games`` are already played (the caller leaves)."""
        match_id, seat = str(message["match_id"]), int(message["seat"])
        game = self._game
        if game is not None and game.match_id == match_id:
            self._skip = game.received  # the server starts again from start_game
            log.info("resumed match %s (seat %d)", match_id, seat)
            return True
        if game is not None:  # the game ended while we were away
            log.warning("match %s ended while disconnected", game.match_id)
            await self._close_game(game)
        if self.games_done >= self.options.games:
            log.info("seated in match %s, but %d game(s) are played: leaving", match_id, self.games_done)
            return False
        self._skip = 0
        self._game = _Game(match_id, seat)
        log.info("seated in match %s as seat %d: %s", match_id, seat, message.get("names"))
        return True

    async def _on_event(self, event: dict[str, Any]) -> None:
        game = self._game
        if game is None:
            return
        if self._skip > 0:
            self._skip -= 1
            return
        game.received += 1
        if event["type"] == "start_game" and game.bot is None:
            seat = str(event.get("id", game.seat))
            game.bot = BotProcess([arg.replace("{seat}", seat) for arg in self.options.command])
            await game.bot.start()
        if game.bot is None:
            return
        game.answer_current = False
        if self.options.line_mode:
            # Lines already written now answer earlier events, which nobody asked about.
            for unasked in game.bot.unread():
                log.warning("the bot answered where the server asked nothing (dropped): %s", _short(unasked))
            await game.bot.write(json.dumps(event))
        else:
            game.pending.append(event)

    async def _on_request(self, ws: ClientConnection, request: dict[str, Any]) -> None:
        game = self._game
        if game is None or game.bot is None:
            return
        rid = request.get("request_id")
        answer: dict[str, Any] | str | None = game.last_answer
        if not game.answer_current or answer is None:
            answer = await self._ask_bot(game, request)
            if answer is None:
                return
        # else: the server asks again (after a resume) with nothing new: it missed the answer
        game.last_answer, game.answer_current = answer, True
        if isinstance(answer, dict):
            await ws.send(json.dumps({**answer, "request_id": rid}))
        else:
            await ws.send(answer)

    async def _ask_bot(self, game: _Game, request: dict[str, Any]) -> dict[str, Any] | str | None:
        bot = game.bot
        assert bot is not None
        wait = (int(request.get("deadline_ms", 0)) + int(request.get("bank_ms", 0))) / 1000
        wait += self.options.answer_grace_s
        if not self.options.line_mode:
            while game.owed > 0:  # a late answer to an earlier request: not this one's
                late_answer = await bot.answer(wait)
                if late_answer is None:
                    break
                game.owed -= 1
                log.warning("dropped the bot's late answer: %s", _short(late_answer))
            await bot.write(json.dumps(game.pending))
            game.pending = []
        line = await bot.answer(wait)
        if line is None:
            if self.options.line_mode:
                log.warning(
                    "the bot gave no answer in %.1f s where the server asked for one (%s); "
                    "the server plays the default action",
                    wait,
                    [a.get("type") for a in request.get("possible_actions", [])],
                )
            else:
                game.owed += 1
                log.error("the bot did not answer in %.1f s; the server plays the default action", wait)
            return None
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            log.error("the bot wrote a line that is not a JSON object: %s (passed on as is)", _short(line))
            return line[:4000]
        answer.pop("request_id", None)
        return answer

    async def _on_match_end(self, message: dict[str, Any]) -> None:
        game = self._game
        if game is None:
            return
        game.result = message.get("result")
        await self._close_game(game)

    async def _close_game(self, game: _Game) -> None:
        bot = game.bot
        if bot is not None:
            if game.pending and not self.options.line_mode and bot.returncode is None:
                with contextlib.suppress(BotError):  # the last events (end_game); the answer is moot
                    await bot.write(json.dumps(game.pending))
                    await bot.answer(2.0)
            code = await bot.stop()
            if code not in (0, None):
                log.warning("the bot exited with code %s after the game", code)
        self._game = None
        self.games_done += 1
        self.results.append({"match_id": game.match_id, "seat": game.seat, "result": game.result})
        result = game.result or {}
        ranks, scores = result.get("ranks"), result.get("scores")
        if ranks is not None and scores is not None:
            log.info(
                "game %d/%d (%s) over: seat %d, rank %s, %s points",
                self.games_done,
                self.options.games,
                game.match_id,
                game.seat,
                ranks[game.seat],
                scores[game.seat],
            )
        else:
            log.info("game %d/%d (%s) over, no result", self.games_done, self.options.games, game.match_id)


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if str(exc) else text


def _short(line: str, limit: int = 200) -> str:
    return repr(line if len(line) <= limit else line[:limit] + "...")


def configure_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("jantaku bot connect: %(message)s"))
    log.handlers[:] = [handler]
    log.setLevel(logging.INFO if verbose else logging.WARNING)
    log.propagate = False
