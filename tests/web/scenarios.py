"""Canned match situations for the browser client's offline harness and its JS tests.

Each scenario is what a browser would have received from the hub up to one moment of a real match
played by the engine (deterministic seeds, built-in bots plus a bot that likes to call): the
``seated`` message, the events redacted for the viewer, and the pending prompt, all as JSON
exactly as :mod:`client_protocol.codec` encodes them.

    >>> s = scenario("discard")
    >>> s["messages"][0]["type"], s["messages"][-1]["type"]
    ('seated', 'prompt')
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from client_protocol.codec import encode
from client_protocol.messages import (
    EventMessage,
    MatchEnd,
    MatchEndReason,
    MatchResult,
    PlayerKind,
    Prompt,
    Seated,
    TablePlayer,
)
from server.bots import greedy_bot
from server.engine import apply, legal_actions, new_match, pending_seats, redact
from server.engine.actions import Action, Ankan, Chi, Daiminkan, Discard, Kakan, Pon, Riichi, Ron, Tsumo
from server.engine.events import Event, HandDrawn, HandWon, MatchEnded, RiichiAccepted, RoundEnded
from server.engine.rules import PRESETS, Ruleset
from server.engine.state import MatchState
from server.engine.views import SeatView
from server.hub.wire import event_to_wire, legal_actions_to_wire

MATCH_ID = "m-demo"
PLAYERS = (
    TablePlayer(name="alice", kind=PlayerKind.GUEST),
    TablePlayer(name="greedy-1", kind=PlayerKind.BOT),
    TablePlayer(name="caller-2", kind=PlayerKind.BOT),
    TablePlayer(name="greedy-3", kind=PlayerKind.BOT),
)
DEADLINE_MS = 5000
BANK_MS = 10000


def caller_bot(view: SeatView, legal: frozenset[Action]) -> Action:
    """Greedy, but takes about half of the calls it is offered (reproducibly, by step and seat)."""
    if Tsumo() in legal:
        return Tsumo()
    if Ron() in legal:
        return Ron()
    calls = sorted((a for a in legal if isinstance(a, Chi | Pon | Daiminkan | Ankan | Kakan)), key=repr)
    if calls:
        digest = hashlib.sha256(f"{view.seat}:{view.step}".encode()).digest()
        if digest[0] < 128:
            return calls[digest[1] % len(calls)]
    return greedy_bot(view, legal)


@dataclass(frozen=True, slots=True)
class Moment:
    """A decision of ``seat``: the state, its legal actions, and every event so far."""

    state: MatchState
    seat: int
    legal: frozenset[Action]
    events: tuple[Event, ...]


def moments(seed: bytes, ruleset: Ruleset = PRESETS["tenhou"]) -> Iterator[Moment]:
    """Every decision of a whole match (seats 0 and 2 call, 1 and 3 play greedy)."""
    from server.engine.views import seat_view

    bots = (caller_bot, greedy_bot, caller_bot, greedy_bot)
    t = new_match(ruleset, seed)
    events: list[Event] = list(t.events)
    state = t.state
    while not state.finished:
        pending = pending_seats(state)
        for seat in pending:
            yield Moment(state, seat, legal_actions(state, seat), tuple(events))
        seat = pending[0]
        action = bots[seat](seat_view(state, seat), legal_actions(state, seat))
        t = apply(state, seat, action)
        events.extend(t.events)
        state = t.state
    yield Moment(state, -1, frozenset(), tuple(events))


def _json(message: Any) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(encode(message))
    return out


def _messages(
    events: tuple[Event, ...], viewer: int | None, prompt: Moment | None = None, end: bool = False
) -> list[dict[str, Any]]:
    out = [_json(Seated(match_id=MATCH_ID, seat=viewer, players=PLAYERS))]
    for version, event in enumerate(events, start=1):
        wire = event_to_wire(redact(event, viewer))
        out.append(_json(EventMessage(match_id=MATCH_ID, version=version, event=wire)))
    if prompt is not None:
        out.append(
            _json(
                Prompt(
                    match_id=MATCH_ID,
                    step=prompt.state.step,
                    seat=prompt.seat,
                    version=len(events),
                    legal_actions=legal_actions_to_wire(prompt.legal),
                    deadline_ms=DEADLINE_MS,
                    bank_ms=BANK_MS,
                )
            )
        )
    if end:
        last = events[-1]
        assert isinstance(last, MatchEnded)
        result = MatchResult(scores=last.scores, ranks=last.ranks, final_points=last.final_points)
        out.append(_json(MatchEnd(match_id=MATCH_ID, reason=MatchEndReason.COMPLETED, result=result)))
    return out


def _scenario(name: str, viewer: int | None, messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": name, "seat": viewer, "match_id": MATCH_ID, "messages": messages}


def _river_size(events: tuple[Event, ...]) -> int:
    n = 0
    for e in reversed(events):
        if type(e).__name__ == "RoundStarted":
            break
        if type(e).__name__ == "TileDiscarded":
            n += 1
    return n


def _in_hand(events: tuple[Event, ...], kinds: tuple[type, ...]) -> int:
    n = 0
    for e in reversed(events):
        if type(e).__name__ == "RoundStarted":
            break
        if isinstance(e, kinds):
            n += 1
    return n


def _first(seeds: range, want: Callable[[Moment], bool]) -> Moment:
    for i in seeds:
        for m in moments(f"jantaku-web-{i}".encode()):
            if m.seat == 0 and want(m):
                return m
    raise LookupError("no moment found")


def _busy_discard(m: Moment) -> bool:
    from server.engine.events import MeldCalled

    return (
        any(isinstance(a, Discard) and a.tsumogiri for a in m.legal)
        and not any(isinstance(a, Riichi) for a in m.legal)
        and _river_size(m.events) >= 30
        and _in_hand(m.events, (MeldCalled,)) >= 2
        and _in_hand(m.events, (RiichiAccepted,)) >= 1
    )


def _kan_on_table(m: Moment) -> bool:
    from server.engine.events import MeldCalled

    kans = [
        e
        for e in m.events[-120:]
        if isinstance(e, MeldCalled) and e.type.value in ("ankan", "kakan", "daiminkan")
    ]
    return (
        bool(kans) and _in_hand(m.events, (MeldCalled,)) >= 2 and any(isinstance(a, Discard) for a in m.legal)
    )


def _hand_end(seeds: range, want: Callable[[tuple[Event, ...], int], bool]) -> tuple[Event, ...]:
    """The events up to the round_ended of the first hand whose result event satisfies ``want``."""
    for i in seeds:
        final = list(moments(f"jantaku-web-{i}".encode()))[-1]
        events = final.events
        for j, e in enumerate(events):
            if isinstance(e, HandWon | HandDrawn) and want(events, j):
                k = j
                while not isinstance(events[k], RoundEnded):
                    k += 1
                return events[: k + 1]
    raise LookupError("no hand found")


def _in_riichi_drawing(m: Moment) -> bool:
    """Seat 0 is in riichi and drew a tile that it can only discard."""
    riichi = False
    for e in reversed(m.events):
        if type(e).__name__ == "RoundStarted":
            break
        if isinstance(e, RiichiAccepted) and e.seat == 0:
            riichi = True
    return riichi and len(m.legal) == 1 and all(isinstance(a, Discard) and a.tsumogiri for a in m.legal)


def _next_hand_started(events: tuple[Event, ...]) -> tuple[Event, ...]:
    """``events`` (up to a hand's round_ended) and the events of the match up to the next round_started."""
    for i in range(60):
        final = list(moments(f"jantaku-web-{i}".encode()))[-1].events
        if final[: len(events)] == events:
            k = len(events)
            while type(final[k]).__name__ != "RoundStarted":
                k += 1
            return final[: k + 1]
    raise LookupError("no match found")


def _tenpai_draw_with_meld(events: tuple[Event, ...], j: int) -> bool:
    """An exhaustive draw at which a seat with a called meld is tenpai."""
    from server.engine.events import MeldCalled

    e = events[j]
    if not (isinstance(e, HandDrawn) and e.reason.value == "exhaustive"):
        return False
    start = max(i for i in range(j) if type(events[i]).__name__ == "RoundStarted")
    called = {m.seat for m in events[start:j] if isinstance(m, MeldCalled)}
    return any(e.tenpai[s] for s in called)


def _good_win(events: tuple[Event, ...], j: int) -> bool:
    e = events[j]
    return isinstance(e, HandWon) and e.seat == 0 and len(e.yaku) >= 3


def _tenpai_draw(events: tuple[Event, ...], j: int) -> bool:
    e = events[j]
    return isinstance(e, HandDrawn) and e.reason.value == "exhaustive" and 1 <= sum(e.tenpai) <= 3


@functools.cache
def scenario(name: str) -> dict[str, Any]:
    """A scenario by name (one of :data:`SCENARIOS`).

    Raises KeyError for an unknown name.
    """
    if name == "discard":
        m = _first(range(40), _busy_discard)
        return _scenario(name, 0, _messages(m.events, 0, m))
    if name == "spectator":
        m = _first(range(40), _busy_discard)
        return _scenario(name, None, _messages(m.events, None))
    if name == "riichi":
        m = _first(range(40), lambda m: any(isinstance(a, Riichi) for a in m.legal))
        return _scenario(name, 0, _messages(m.events, 0, m))
    if name == "chi":
        m = _first(range(40), lambda m: sum(isinstance(a, Chi) for a in m.legal) >= 2)
        return _scenario(name, 0, _messages(m.events, 0, m))
    if name == "pon":
        m = _first(range(40), lambda m: any(isinstance(a, Pon) for a in m.legal))
        return _scenario(name, 0, _messages(m.events, 0, m))
    if name == "kan":
        m = _first(range(80), _kan_on_table)
        return _scenario(name, 0, _messages(m.events, 0, m))
    if name == "start":
        m = _first(range(1), lambda m: any(isinstance(a, Discard) for a in m.legal))
        return _scenario(name, 0, _messages(m.events, 0, m))
    if name == "win":
        return _scenario(name, 0, _messages(_hand_end(range(60), _good_win), 0))
    if name == "draw":
        return _scenario(name, 0, _messages(_hand_end(range(60), _tenpai_draw), 0))
    if name == "end":
        final = list(moments(b"jantaku-web-0"))[-1]
        return _scenario(name, 0, _messages(final.events, 0, end=True))
    if name == "spectator-end":
        # a spectator saw the match end: its log is public now (its table allowed spectators)
        final = list(moments(b"jantaku-web-0"))[-1]
        return _scenario(name, None, _messages(final.events, None, end=True))
    if name == "riichi-draw":
        m = _first(range(60), _in_riichi_drawing)
        return _scenario(name, 0, _messages(m.events, 0, m))
    if name == "tsumo-offer":
        m = _first(range(60), lambda m: any(isinstance(a, Tsumo) for a in m.legal))
        return _scenario(name, 0, _messages(m.events, 0, m))
    if name == "draw-melds":
        return _scenario(name, 0, _messages(_hand_end(range(60), _tenpai_draw_with_meld), 0))
    if name == "win-offer":
        m = _first(range(60), lambda m: any(isinstance(a, Ron | Tsumo) for a in m.legal))
        return _scenario(name, 0, _messages(m.events, 0, m))
    if name == "leftover":
        # an east-only match whose last hand left a riichi stick on the table (it goes to the top)
        east = PRESETS["tenhou"].with_options(game_length="east")
        final = list(moments(b"jantaku-web-7", east))[-1]
        last = [e for e in final.events if isinstance(e, RoundEnded)][-1]
        assert last.riichi_sticks > 0
        return _scenario(name, 0, _messages(final.events, 0, end=True))
    if name == "spectator-newhand":
        # a spectator saw a hand end, and the next hand has started
        events = _next_hand_started(_hand_end(range(60), _good_win))
        return _scenario(name, None, _messages(events, None))
    raise KeyError(name)


SCENARIOS = (
    "start",
    "discard",
    "riichi",
    "chi",
    "pon",
    "kan",
    "spectator",
    "win",
    "draw",
    "end",
    "leftover",
    "spectator-newhand",
    "spectator-end",
    "riichi-draw",
    "win-offer",
    "tsumo-offer",
    "draw-melds",
)


def full_match(seed: bytes, ruleset: Ruleset = PRESETS["tenhou"]) -> tuple[Event, ...]:
    """Every event of a whole match (omniscient), played by the scenario bots."""
    return list(moments(seed, ruleset))[-1].events


def wire_stream(events: tuple[Event, ...], viewer: int | None) -> list[dict[str, Any]]:
    """The ``event`` messages that ``viewer`` receives for ``events``, as JSON objects."""
    return [
        _json(EventMessage(match_id=MATCH_ID, version=v, event=event_to_wire(redact(e, viewer))))
        for v, e in enumerate(events, start=1)
    ]
