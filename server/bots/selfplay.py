"""Play whole matches of built-in bots in-process (tests, benchmarks, ``jantaku simulate``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from server.bots import Bot, get_bot
from server.engine import apply, legal_actions, new_match, pending_seats
from server.engine.actions import Action
from server.engine.events import Event
from server.engine.rules import Ruleset
from server.engine.state import MatchState, Transition
from server.engine.views import seat_view


@dataclass(frozen=True, slots=True)
class Step:
    """One applied decision: who did what, and what followed."""

    seat: int
    action: Action
    transition: Transition


def play(
    ruleset: Ruleset, seed: bytes, bots: Sequence[Bot | str], *, max_steps: int = 100_000
) -> Iterator[Step | Transition]:
    """Yield the opening transition, then every applied step until the match ends."""
    players = [get_bot(b) if isinstance(b, str) else b for b in bots]
    if len(players) != ruleset.seats:
        raise ValueError(f"a match needs {ruleset.seats} bots, got {len(players)}")
    t = new_match(ruleset, seed)
    yield t
    state: MatchState = t.state
    for _ in range(max_steps):
        if state.finished:
            return
        seat = pending_seats(state)[0]
        action = players[seat](seat_view(state, seat), legal_actions(state, seat))
        t = apply(state, seat, action)
        yield Step(seat, action, t)
        state = t.state
    raise RuntimeError(f"match did not finish within {max_steps} steps")


def play_events(ruleset: Ruleset, seed: bytes, bots: Sequence[Bot | str]) -> list[Event]:
    """All events of a whole match, omniscient, in order."""
    out: list[Event] = []
    for item in play(ruleset, seed, bots):
        t = item.transition if isinstance(item, Step) else item
        out.extend(t.events)
    return out
