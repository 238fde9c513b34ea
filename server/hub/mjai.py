"""The mjai endpoint (``/mjai``): bots that speak mjai play at our tables (``docs/mjai.md``).

One :class:`MjaiSession` per connection, a second protocol adapter next to our own
(:class:`~server.hub.session.ProtocolSession`): it implements
:class:`~server.hub.outputs.Participant` and sends the tables the same inbox messages, so tables and
the lobby do not know which protocol a seat speaks.

The conversation, one JSON object per text frame:

* the bot says ``{"type": "hello", "token": TOKEN, "queue": "tenhou"}`` (or ``"private": CODE``);
  the server answers ``welcome``, then ``queued`` while it waits, then ``seated``. An account
  that holds a seat in a match still running is put back in it instead (``seated`` with
  ``"resumed": true``) and gets the whole game again from ``start_game``, many lines per frame
  (``{"type": "events", "events": [...]}``) so that it fits the outbound queue at any point;
* the server sends the game as mjai events, exactly the lines :mod:`server.records.export_mjai`
  writes for that seat (Mortal's schema and order, others' tiles ``"?"``; ``start_game`` carries
  the seat as ``id``), converted live by :class:`~server.records.export_mjai.MjaiStream`;
* when the bot must decide, ``request`` follows the events (``request_id``, ``possible_actions`` in
  mjai form, ``deadline_ms``, ``bank_ms``); the bot answers with ONE mjai action (``dahai``,
  ``reach``, ``chi``, ``pon``, ``daiminkan``, ``ankan``, ``kakan``, ``hora``, ``ryukyoku``,
  ``none``), optionally carrying the ``request_id`` it answers. ``reach`` is answered with the
  ``reach`` event and a second request for the discard; ``reach`` + ``dahai`` become our one
  ``Riichi`` action;
* an answer that is not valid (not JSON, not a legal action, a wrong ``actor``) gets
  ``{"type": "error", ...}`` naming the default action the server then plays for the bot (pass
  when passing is legal, else tsumogiri); an answer when nothing is asked, or to a request that is
  over, gets an error and changes nothing;
* after ``end_game`` the server sends ``match_end`` and closes the connection (1000): one
  connection plays one game.

The seat always comes from the authenticated session (an ``actor`` other than its own is refused).
Like :mod:`server.hub.session`, :class:`MjaiSession` does no I/O (:mod:`server.hub.adapter`): frames
in, frames and inbox messages out; :mod:`server.hub.connection` awaits its authentication and join.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
from websockets.frames import CloseCode

from client_protocol.codec import decode_json
from client_protocol.errors import ErrorCode, ProtocolError
from server.engine.actions import (
    Action,
    Ankan,
    Chi,
    Daiminkan,
    Discard,
    Kakan,
    KyuushuKyuuhai,
    Nukidora,
    Pass,
    Pon,
    Riichi,
    Ron,
    Tsumo,
)
from server.engine.events import Event, MatchStarted
from server.engine.tiles import kind, sort_key
from server.hub.adapter import (
    AuthenticateBearer,
    EventStatus,
    HelloRequest,
    JoinPrivate,
    JoinQueue,
    LobbyRequest,
    Resume,
    SeatConnection,
)
from server.hub.inbox import ActRequest
from server.hub.mjaitiles import InvalidReplyError, kind_of, tile_of, tiles_of
from server.hub.outputs import (
    AckOut,
    CatchupOut,
    ChatOut,
    ErrorOut,
    EventsOut,
    LeftOut,
    MatchEndOut,
    Outbound,
    PlayedForOut,
    PromptOut,
    QueuedOut,
    SeatedOut,
)
from server.records.export_mjai import MjaiStream
from server.records.tiles import mjai_from_face

log = logging.getLogger(__name__)

MJAI_PATH = "/mjai"
PROTOCOL = "jantaku-mjai/1"
DEFAULT_QUEUE = "tenhou"
BUSY_RESUBMIT_S = 1.0
EVENT_ID_MAX = 64
EVENT_RETRY_MS = 1000  # an event bot with no seat yet is told to say hello again after this
BATCH_LINES = 200  # mjai lines per ``events`` frame of a resume (a few KiB each: far below the frame cap)
_encode = msgspec.json.Encoder().encode


@dataclass(slots=True)
class _Request:
    """What the bot was asked: a table prompt, or the discard after its ``reach``."""

    id: int
    prompt: PromptOut
    after_reach: bool
    sent_at: float


def default_for(legal: frozenset[Action], *, after_reach: bool = False) -> Action:
    """The action played for an invalid answer: the engine's default (pass when passing is legal,
    else tsumogiri, else the last discard); after ``reach``, the riichi discard of the same tile."""
    if Pass() in legal:
        return Pass()
    wanted: type[Discard] | type[Riichi] = Riichi if after_reach else Discard
    discards = sorted(
        (a for a in legal if isinstance(a, wanted)), key=lambda a: (a.tsumogiri, sort_key(a.tile))
    )
    if discards:
        return discards[-1]
    return sorted(legal, key=repr)[0]


class MjaiSession(SeatConnection):
    """One websocket connection speaking mjai (a :class:`~server.hub.outputs.Participant`)."""

    ID_PREFIX = "j"
    PATH = MJAI_PATH

    def _setup(self) -> None:
        self._hello_message: dict[str, Any] = {}  # the bot's hello (its queue or private table)
        self._event_found: tuple[str | None] | None = None  # (its event's status,) once looked up
        self._version = 0  # the last event version of the match received from the table
        self._stream: MjaiStream | None = None
        self._request: _Request | None = None
        self._next_request_id = 0
        self._submitted: tuple[int, Action] | None = None  # (request id = step, action) not yet acked
        self._last_claimable: tuple[int, str] | None = None  # (actor, pai) others may call or ron
        self._drawn: str | None = None  # our last tsumo
        self._pons: list[list[str]] = []  # our pons of this hand (mjai tiles), for kakan

    # -- Participant ---------------------------------------------------------------------------------

    def _deliver(self, item: Outbound) -> None:
        match item:
            case QueuedOut(preset=preset, players_waiting=n):
                self._send({"type": "queued", "preset": preset, "players_waiting": n})
            case SeatedOut(match_id=match_id, seat=seat, players=players):
                if seat is None or match_id != self._match_id:
                    return
                self._stream = MjaiStream(seat=seat, names=tuple(p.name for p in players))
                self._send_seated(resumed=False)
            case CatchupOut(match_id=match_id, seat=seat, events=events):
                if seat is None or match_id != self._match_id:
                    return
                resumed = self._stream is None
                if resumed:  # a resume: no ``seated`` came before
                    table = self._directory.table(match_id)
                    names = tuple(p.name for p in table.players) if table is not None else unnamed(events)
                    self._stream = MjaiStream(seat=seat, names=names)
                    self._send_seated(resumed=True)
                self._events(1, events, batched=resumed)
            case EventsOut(match_id=match_id, first_version=first, events=events):
                if match_id == self._match_id:
                    self._events(first, events)
            case PromptOut(match_id=match_id):
                if match_id == self._match_id and item.seat == self._seat:
                    self._ask(item, after_reach=False)
            case AckOut(request_id=rid):
                if self._submitted is not None and self._submitted[0] == rid:
                    self._submitted = None
            case ErrorOut():
                self._table_error(item)
            case MatchEndOut(match_id=match_id, reason=reason, result=result):
                if match_id != self._match_id:
                    return
                self._send(
                    {
                        "type": "match_end",
                        "match_id": match_id,
                        "reason": reason.value,
                        "result": None
                        if result is None
                        else {
                            "scores": list(result.scores),
                            "ranks": list(result.ranks),
                            "final_points": list(result.final_points),
                        },
                    }
                )
                self._outbox.close(CloseCode.NORMAL_CLOSURE, "game over")  # one connection, one game
            case LeftOut() | PlayedForOut() | ChatOut():
                pass  # mjai has no message for these (a bot is not told the table's chat)

    def attached(self, match_id: str, seat: int | None) -> bool:
        """Seated (a bot never watches: a spectator's attachment is ignored); a new match starts a
        new mjai stream, made once the names are known (``seated``, or the catch-up of a resume)."""
        if self._gone:
            return False
        if seat is not None and match_id != self._match_id:
            self._match_id, self._seat = match_id, seat
            self._stream = None
            self._version = 0
            self._request = None
            self._submitted = None
        return True

    def released(self, match_id: str) -> None:
        if match_id == self._match_id:
            self._match_id, self._seat, self._request = None, None, None

    def _send_seated(self, *, resumed: bool) -> None:
        assert self._stream is not None
        self._send(
            {
                "type": "seated",
                "match_id": self._match_id,
                "seat": self._seat,
                "names": list(self._stream.names),
                "resumed": resumed,
            }
        )

    def _events(self, first: int, events: tuple[Any, ...], *, batched: bool = False) -> None:
        """Events ``first``, ``first + 1``, ... of our stream: convert and send what is new, one
        frame per mjai line; ``batched`` (the whole game again after a resume): ``events`` frames of
        up to :data:`BATCH_LINES` lines each, so that a resume late in a hanchan takes a few frames
        of the outbound queue, not one per line."""
        skip = self._version + 1 - first
        if skip > 0:
            events = events[skip:]
        if not events or self._stream is None:
            return
        self._version = first + max(skip, 0) + len(events) - 1
        lines = self._stream.feed(events)
        for line in lines:
            self._note(line)
        if not batched:
            for line in lines:
                self._send(line)
            return
        for i in range(0, len(lines), BATCH_LINES):
            self._send({"type": "events", "events": lines[i : i + BATCH_LINES]})

    def _note(self, line: dict[str, Any]) -> None:
        """Remember what possible_actions need: the last claimable tile, our draw, our pons."""
        kind_ = line["type"]
        if kind_ == "start_kyoku":
            self._pons, self._drawn, self._last_claimable = [], None, None
        elif kind_ == "tsumo" and line["actor"] == self._seat:
            self._drawn = line["pai"]
        elif kind_ in ("dahai", "kakan"):
            self._last_claimable = (line["actor"], line["pai"])
        elif kind_ == "ankan":
            self._last_claimable = (line["actor"], line["consumed"][0])
        elif kind_ == "pon" and line["actor"] == self._seat:
            self._pons.append([line["pai"], *line["consumed"]])

    # -- requests and answers ------------------------------------------------------------------------

    def _ask(self, prompt: PromptOut, *, after_reach: bool) -> None:
        self._next_request_id += 1
        now = self._clock.now()
        sent_at = now if not after_reach or self._request is None else self._request.sent_at
        request = _Request(self._next_request_id, prompt, after_reach, sent_at)
        self._request = request
        used = int((now - sent_at) * 1000)
        deadline = max(0, prompt.deadline_ms - used)
        bank = prompt.bank_ms - max(0, used - prompt.deadline_ms)
        self._send(
            {
                "type": "request",
                "request_id": request.id,
                "possible_actions": self._possible(prompt.legal, after_reach=after_reach),
                "deadline_ms": deadline,
                "bank_ms": max(0, bank),
            }
        )

    def _possible(self, legal: frozenset[Action], *, after_reach: bool) -> list[dict[str, Any]]:
        seat = self._seat
        out: list[dict[str, Any]] = []
        reach = False
        claim_actor, claim_pai = self._last_claimable or (seat, "?")
        for a in sorted(legal, key=_action_order):
            match a:
                case Riichi(tile, tsumogiri) if after_reach:
                    out.append(
                        {"type": "dahai", "actor": seat, "pai": mjai_from_face(tile), "tsumogiri": tsumogiri}
                    )
                case Riichi():
                    reach = True
                case Discard(tile, tsumogiri) if not after_reach:
                    out.append(
                        {"type": "dahai", "actor": seat, "pai": mjai_from_face(tile), "tsumogiri": tsumogiri}
                    )
                case Chi(consumed) | Pon(consumed) | Daiminkan(consumed) if not after_reach:
                    out.append(
                        {
                            "type": a.TYPE,
                            "actor": seat,
                            "target": claim_actor,
                            "pai": claim_pai,
                            "consumed": [mjai_from_face(t) for t in consumed],
                        }
                    )
                case Ankan(consumed) if not after_reach:
                    out.append(
                        {"type": "ankan", "actor": seat, "consumed": [mjai_from_face(t) for t in consumed]}
                    )
                case Kakan(tile) if not after_reach:
                    pon = next((p for p in self._pons if kind_of(p[0]) == kind(tile)), [])
                    out.append({"type": "kakan", "actor": seat, "pai": mjai_from_face(tile), "consumed": pon})
                case Tsumo() if not after_reach:
                    out.append({"type": "hora", "actor": seat, "target": seat, "pai": self._drawn or "?"})
                case Ron() if not after_reach:
                    out.append({"type": "hora", "actor": seat, "target": claim_actor, "pai": claim_pai})
                case KyuushuKyuuhai() if not after_reach:
                    out.append({"type": "ryukyoku", "actor": seat})
                case Nukidora() if not after_reach:  # three players: a north set aside (RiichiEnv's form)
                    out.append({"type": "nukidora", "actor": seat, "pai": "N"})
                case Pass() if not after_reach:
                    out.append({"type": "none"})
        if reach:
            out.insert(0, {"type": "reach", "actor": seat})
        return out

    def _on_reply(self, frame: str | bytes) -> None:
        data: Any = None
        problem: str | None = None
        if isinstance(frame, bytes):
            problem = "binary frames are not part of the protocol; send JSON text"
        else:
            try:
                data = decode_json(frame)
            except ProtocolError as exc:
                problem = f"{exc.message}: {_quote(frame)}"
            else:
                if not isinstance(data, dict) or not isinstance(data.get("type"), str):
                    problem = f"an answer is a JSON object with a 'type': {_quote(frame)}"
        rid = data.get("request_id") if isinstance(data, dict) else None
        request = self._request
        answering = request is not None and (rid is None or rid == request.id)
        if not answering and not self._bucket.take():
            self._error(ErrorCode.RATE_LIMITED, "too many messages; slow down")
            self._count_violation()
            return
        if request is None:
            if problem is not None:
                self._error(ErrorCode.MALFORMED, problem)
            else:
                self._error(ErrorCode.NOT_YOUR_TURN, "nothing is asked of you now; answer a request")
            self._count_violation()
            return
        if rid is not None and rid != request.id:
            self._error(ErrorCode.STALE_STEP, f"request {rid} is over; the current one is {request.id}", rid)
            return
        try:
            if problem is not None:
                raise InvalidReplyError(problem)
            assert isinstance(data, dict)
            action = self._to_action(data, request)
        except InvalidReplyError as exc:
            action = default_for(request.prompt.legal, after_reach=request.after_reach)
            self._error(
                ErrorCode.ILLEGAL_ACTION,
                f"{exc}; the server plays the default action for you",
                request.id,
                applied=self._mjai_action(action),
            )
        if action is None:  # reach: its event, then the request for the discard
            line = {"type": "reach", "actor": self._seat}
            assert self._stream is not None
            self._stream.shown(line)
            self._send(line)
            self._ask(request.prompt, after_reach=True)
            return
        self._submit(request.prompt, action)

    def _to_action(self, data: dict[str, Any], request: _Request) -> Action | None:
        """The engine action an mjai answer means (None: ``reach``); raises InvalidReplyError."""
        legal = request.prompt.legal
        kind_ = data["type"]
        actor = data.get("actor", self._seat)
        if kind_ != "none" and actor != self._seat:
            raise InvalidReplyError(f"'actor' {actor!r} is not your seat {self._seat}")
        if request.after_reach and kind_ != "dahai":
            raise InvalidReplyError(f"after reach, discard (dahai); got {kind_!r}")
        match kind_:
            case "dahai":
                tile = tile_of(data, "pai")
                tsumogiri = data.get("tsumogiri")
                wanted: type[Discard] | type[Riichi] = Riichi if request.after_reach else Discard
                options = [a for a in legal if isinstance(a, wanted) and a.tile == tile]
                if not options:
                    raise InvalidReplyError(f"dahai {data.get('pai')!r} is not a legal discard now")
                options.sort(
                    key=lambda a: a.tsumogiri != (tsumogiri if isinstance(tsumogiri, bool) else True)
                )
                return options[0]
            case "reach":
                if not any(isinstance(a, Riichi) for a in legal):
                    raise InvalidReplyError("reach is not possible now")
                return None
            case "chi" | "pon" | "daiminkan" | "ankan":
                consumed = sorted(tiles_of(data, "consumed"))
                for a in legal:
                    if (
                        isinstance(a, Chi | Pon | Daiminkan | Ankan)
                        and kind_ == a.TYPE
                        and sorted(a.consumed) == consumed
                    ):
                        return a
                raise InvalidReplyError(f"{kind_} with consumed {data.get('consumed')!r} is not possible now")
            case "kakan":
                tile = tile_of(data, "pai")
                if Kakan(tile) in legal:
                    return Kakan(tile)
                raise InvalidReplyError(f"kakan {data.get('pai')!r} is not possible now")
            case "hora":
                for a in (Tsumo(), Ron()):
                    if a in legal:
                        return a
                raise InvalidReplyError("hora is not possible now")
            case "ryukyoku":
                if KyuushuKyuuhai() in legal:
                    return KyuushuKyuuhai()
                raise InvalidReplyError("ryukyoku (kyuushu kyuuhai) is not possible now")
            case "nukidora":
                if Nukidora() in legal:
                    return Nukidora()
                raise InvalidReplyError("nukidora is not possible now (no north in hand, or four seats)")
            case "none":
                if Pass() in legal:
                    return Pass()
                raise InvalidReplyError("'none' is not possible: it is your turn to discard")
            case _:
                raise InvalidReplyError(f"unknown action type {kind_!r}")

    def _mjai_action(self, action: Action) -> dict[str, Any]:
        after_reach = isinstance(action, Riichi)
        for line in self._possible(frozenset({action}), after_reach=after_reach):
            return line
        return {"type": action.TYPE}

    def _submit(self, prompt: PromptOut, action: Action) -> None:
        self._request = None
        table = self._directory.table(prompt.match_id)
        if table is None:
            self._error(ErrorCode.NOT_YOUR_TURN, f"match {prompt.match_id} is over")
            return
        # The prompt's step is the request id the table sees: one decision per step and seat, so an
        # answer sent twice (a retry, a reconnection) is applied once.
        self._submitted = (prompt.step, action)
        table.submit(ActRequest(self, prompt.step, prompt.step, action))

    def _table_error(self, item: ErrorOut) -> None:
        submitted = self._submitted
        if submitted is not None and item.request_id == submitted[0]:
            self._submitted = None
            if item.code is ErrorCode.BUSY_RETRY and self._match_id is not None:
                match_id, step, action = self._match_id, submitted[0], submitted[1]

                def again() -> None:
                    table = self._directory.table(match_id)
                    if table is not None and self._outbox.open:
                        self._submitted = (step, action)
                        table.submit(ActRequest(self, step, step, action))

                self._clock.call_at(self._clock.now() + BUSY_RESUBMIT_S, again)
                return
        self._error(item.code, item.message)
        if self._match_id is None and item.code is not ErrorCode.RATE_LIMITED:
            self._outbox.close(CloseCode.POLICY_VIOLATION, "could not join")  # the queue or table was refused

    # -- output --------------------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> bool:
        return self._outbox.put(_encode(message))

    def _error(
        self,
        code: ErrorCode,
        message: str,
        request_id: int | None = None,
        *,
        applied: dict[str, Any] | None = None,
    ) -> None:
        error: dict[str, Any] = {"type": "error", "code": code.value, "message": message}
        if request_id is not None:
            error["request_id"] = request_id
        if applied is not None:
            error["applied"] = applied
        self._send(error)

    # -- the hello -----------------------------------------------------------------------------------

    def receive_hello(self, frame: str | bytes) -> HelloRequest | None:
        try:
            hello = decode_json(frame)  # the same size and depth limits as every entry point
        except ProtocolError as exc:
            self.refuse(
                ErrorCode.MALFORMED, f"the first message must be hello ({exc.message}); got {_quote(frame)}"
            )
            return None
        if not isinstance(hello, dict) or hello.get("type") != "hello":
            self.refuse(ErrorCode.UNAUTHENTICATED, 'say {"type": "hello", "token": ..., "queue": ...} first')
            return None
        token, queue, private = hello.get("token"), hello.get("queue"), hello.get("private")
        if not isinstance(token, str) or not token:
            self.refuse(ErrorCode.UNAUTHENTICATED, "hello needs the bot's API token in 'token'")
            return None
        if not isinstance(queue, str | None) or not isinstance(private, str | None):
            self.refuse(ErrorCode.MALFORMED, "'queue' and 'private' are strings")
            return None
        event = hello.get("event")
        if event is not None and not (isinstance(event, str) and 0 < len(event) <= EVENT_ID_MAX):
            self.refuse(ErrorCode.MALFORMED, f"'event' is an event's id (1 to {EVENT_ID_MAX} characters)")
            return None
        self._hello_message = hello
        return AuthenticateBearer(token)

    def relay_hello(self, session_token: str | None, *, queue: str | None = None) -> str | None:
        """The bot's own hello, every field as it sent it: its token (an API token or a session
        token) is good on every node; a hand-over to ``queue``'s matcher names that queue."""
        hello = dict(self._hello_message)
        if not hello:
            return None
        if queue is not None:
            hello.pop("private", None)
            hello["queue"] = queue
        return _encode(hello).decode()

    def hello_timeout(self) -> None:
        self.refuse(ErrorCode.UNAUTHENTICATED, "no hello in time")

    def refuse(self, code: ErrorCode, message: str) -> None:
        self._error(code, message)
        self._outbox.close(CloseCode.POLICY_VIOLATION, "hello refused")

    async def before_welcome(self, event_status: EventStatus | None) -> None:
        event = self._hello_message.get("event")
        if event is not None and event_status is not None:
            with contextlib.suppress(Exception):  # not known now: the bot is told to wait, as before
                self._event_found = (await event_status(event),)

    def welcome(self, session_token: str | None) -> LobbyRequest | None:
        """Greet the bot, then seat it: back in the match it plays, else where its hello asked (an
        event's bot: told to wait for its table, or that the event is over; no such event: refused)."""
        account, event = self.account, self._hello_message.get("event")
        if self._event_found == (None,):
            self.refuse(ErrorCode.NOT_FOUND, f"no event {event!r}")
            return None
        log.info(
            "%s: mjai hello from %s (%s)",
            self.session_id,
            account.id,
            account.kind.value,
            extra={"session": self.session_id, "account": account.id},
        )
        self._send(
            {
                "type": "welcome",
                "protocol": PROTOCOL,
                "session_id": self.session_id,
                "player": {"id": account.id, "name": account.name, "kind": account.kind.value},
            }
        )
        for match_id, _seat in self._directory.live_seats(account.id):
            table = self._directory.table(match_id)
            if table is not None and not table.finished:
                return Resume(match_id, 0, None)
        status = None if self._event_found is None else self._event_found[0]
        if event is not None and status in ("finished", "cancelled"):
            self._send({"type": "event_over", "event": event, "status": status})
            self._outbox.close(CloseCode.NORMAL_CLOSURE, "the event is over")
            return None
        if event is not None:  # an event's bot: seated only at its event tables, never queued
            self._send({"type": "waiting", "event": event, "retry_ms": EVENT_RETRY_MS})
            self._outbox.close(CloseCode.TRY_AGAIN_LATER, "no seat at a running table of this event yet")
            return None
        private, queue = self._hello_message.get("private"), self._hello_message.get("queue")
        if private is not None:
            return JoinPrivate(private, None)
        return JoinQueue(queue or DEFAULT_QUEUE, None)

    def receive(self, frame: str | bytes) -> LobbyRequest | None:
        self._on_reply(frame)
        return None

    def request_failed(self, request: LobbyRequest) -> None:
        log.exception("%s: failed to handle %s", self.session_id, type(request).__name__)
        self._error(ErrorCode.INTERNAL, "the server failed on this request; it had no effect")


def _action_order(action: Action) -> tuple[int, str]:
    return (_ORDER.index(type(action)), repr(action))


_ORDER: tuple[type[Any], ...] = (
    Discard,
    Riichi,
    Chi,
    Pon,
    Daiminkan,
    Ankan,
    Kakan,
    Tsumo,
    Ron,
    KyuushuKyuuhai,
    Nukidora,
    Pass,
)


def _quote(frame: str | bytes, limit: int = 80) -> str:
    text = frame if isinstance(frame, str) else repr(frame)
    return repr(text if len(text) <= limit else text[:limit] + "...")


def unnamed(events: Sequence[Event]) -> tuple[str, ...]:
    """Blank names, one per seat of the match its stream is of (its ``match_started`` has a score
    per seat): for a resume whose table this node no longer has.

    >>> from server.engine.events import MatchStarted
    >>> unnamed([MatchStarted("{}", "h", "c", "1", "w", (35000, 35000, 35000))])
    ('', '', '')
    """
    for e in events:
        if isinstance(e, MatchStarted):
            return ("",) * len(e.scores)
    return ()
