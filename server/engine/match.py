"""The match state machine: ``new_match``, ``legal_actions``, ``apply``, ``default_action``.

``apply`` validates an action against the seat's legal set, then advances the match (draws, call
resolution, dora flips, hand ends, the next deal) until some seat must decide, returning the new
immutable state and every event produced, omniscient. Redaction is :mod:`server.engine.views`.

The rules that advance a match live by concept, each module a set of functions over one
:class:`~server.engine.builder.Builder` (the transition in progress): :mod:`~server.engine.turns`
(a seat's own turn and its discard), :mod:`~server.engine.calls` (the call window on a discard),
:mod:`~server.engine.kans` (declared kans, chankan, a kan that stands) and
:mod:`~server.engine.endings` (wins, draws, aborts and what comes next).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from server.engine import wall as walls
from server.engine.actions import Action, Discard, Pass
from server.engine.builder import Builder
from server.engine.calls import resolve_calls
from server.engine.errors import IllegalActionError, NotYourTurnError, RulesError
from server.engine.events import MatchStarted
from server.engine.kans import resolve_chankan
from server.engine.rules import Ruleset
from server.engine.state import HandState, MatchState, Phase, Player, Transition, Window
from server.engine.tiles import WINDS, Tile, sort_key, tile_name
from server.engine.turns import turn_action

ENGINE_VERSION = "1"
_PASS = Pass()


# ---------------------------------------------------------------------------------------------- API


@dataclasses.dataclass(frozen=True, slots=True)
class HandStart:
    """Where a match starts when it does not start at East 1 (replays of recorded hands)."""

    round_wind: int = 0
    kyoku: int = 0
    honba: int = 0
    riichi_sticks: int = 0
    scores: tuple[int, ...] | None = None


def new_match(
    ruleset: Ruleset,
    seed: bytes,
    *,
    walls_: Sequence[Sequence[Tile]] | None = None,
    start: HandStart | None = None,
) -> Transition:
    """Start a match: the first hand is dealt and the dealer has drawn.

    ``walls_`` injects the wall of each hand in order (tests, tournaments, replays); a match that
    plays more hands than were injected raises :class:`WallError` when it runs out. ``start`` begins
    at another hand with given scores and sticks (replaying one recorded hand).
    """
    injected = None
    if walls_ is not None:
        injected = tuple(walls.validate_wall(w, ruleset.red_fives, ruleset.seats) for w in walls_)
    start = start or HandStart()
    n = ruleset.seats
    if not (
        0 <= start.round_wind < len(WINDS)
        and 0 <= start.kyoku < n
        and start.honba >= 0
        and start.riichi_sticks >= 0
    ):
        raise RulesError(f"invalid hand start {start!r}")
    scores = start.scores if start.scores is not None else (ruleset.start_points,) * n
    if len(scores) != n:
        raise RulesError(f"a hand start needs {n} scores, got {scores!r}")
    placeholder = HandState(
        hand_index=-1,
        round_wind=0,
        kyoku=0,
        honba=0,
        wall=(),
        salt=b"",
        commitment="",
        players=(Player(),) * n,
        phase=Phase.TURN,
        turn=0,
    )
    state = MatchState(
        ruleset=ruleset,
        seed=seed,
        injected_walls=injected,
        scores=tuple(scores),
        riichi_sticks=start.riichi_sticks,
        step=0,
        hand=placeholder,
    )
    b = Builder(state)
    b.emit(
        MatchStarted(
            ruleset_json=ruleset.to_json(),
            ruleset_hash=ruleset.hash,
            seed_commitment=walls.seed_commitment(seed),
            engine_version=ENGINE_VERSION,
            wall_algorithm=walls.WALL_ALGORITHM,
            scores=tuple(b.scores),
        )
    )
    b.start_hand(0, start.round_wind, start.kyoku, start.honba)
    return b.finish(step=0)


def legal_actions(state: MatchState, seat: int) -> frozenset[Action]:
    """Everything ``seat`` may do now (empty when it has no decision to make)."""
    window = state.hand.window
    if state.finished or window is None:
        return frozenset()
    answered = {s for s, _ in window.answers}
    for s, opts in window.options:
        if s == seat and s not in answered:
            return opts
    return frozenset()


def pending_seats(state: MatchState) -> tuple[int, ...]:
    """Seats that must still decide, in seat order."""
    window = state.hand.window
    if state.finished or window is None:
        return ()
    answered = {s for s, _ in window.answers}
    return tuple(s for s, _ in window.options if s not in answered)


def default_action(state: MatchState, seat: int) -> Action:
    """What a timeout means: tsumogiri (or the last legal discard) on a turn, pass in a window."""
    opts = legal_actions(state, seat)
    if not opts:
        raise NotYourTurnError(f"seat {seat} has no decision at step {state.step}")
    if _PASS in opts:
        return _PASS
    discards = sorted(
        (a for a in opts if isinstance(a, Discard)), key=lambda a: (a.tsumogiri, sort_key(a.tile))
    )
    return discards[-1]


def apply(state: MatchState, seat: int, action: Action) -> Transition:
    """Apply one seat's action; raises :class:`IllegalActionError` (state untouched) if not legal."""
    if not 0 <= seat < state.ruleset.seats:
        raise NotYourTurnError(f"no seat {seat!r}")
    opts = legal_actions(state, seat)
    if not opts:
        raise NotYourTurnError(f"seat {seat} has no decision at step {state.step}")
    if action not in opts:
        raise IllegalActionError(f"illegal action {action!r} for seat {seat} at step {state.step}")
    b = Builder(state)
    window = state.hand.window
    assert window is not None
    if state.hand.phase is Phase.TURN:
        turn_action(b, seat, action)
    else:
        answers = (*window.answers, (seat, action))
        b.set_hand(
            window=Window(
                options=window.options,
                answers=answers,
                tile=window.tile,
                from_seat=window.from_seat,
                riichi=window.riichi,
                kan=window.kan,
                kan_consumed=window.kan_consumed,
            )
        )
        if len(answers) == len(window.options):
            if state.hand.phase is Phase.CALLS:
                resolve_calls(b)
            else:
                resolve_chankan(b)
    return b.finish(step=state.step + 1)


__all__ = [
    "ENGINE_VERSION",
    "apply",
    "default_action",
    "legal_actions",
    "new_match",
    "pending_seats",
    "tile_name",
]
