"""Golden legal-action counts: python-chess's perft idea applied to whole matches.

For fixed seeds and rulesets a deterministic policy plays a whole match; at every decision the test
records how many legal actions the deciding seat had, and a digest of every legal set in order.
Any change in move generation (a call offered or withheld, a riichi discard, a kan, a win) changes
the pinned numbers, even where no assertion of a rule test looks. ``test_properties.py`` checks the
invariants on random play; these pins make the same kind of play exact, quickly.

Three policies: ``picker`` chooses among the legal actions by a hash of the seed and the step (random
play, as the property test plays it); ``eager`` takes every win, kan, riichi and call it is offered
and otherwise discards towards tenpai (so kans, chankan windows and pao come up far more often
than in random play); ``closed`` never calls chi or pon, so its hands reach riichi and win.

If a change of the rules is intended, print the new values with
``.venv/bin/python -m tests.engine.test_golden_counts`` and pin them with the change.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from server.engine import apply, legal_actions, new_match, pending_seats
from server.engine.actions import (
    Action,
    Ankan,
    Chi,
    Daiminkan,
    Discard,
    Kakan,
    Pass,
    Pon,
    Riichi,
    Ron,
    Tsumo,
    action_to_dict,
)
from server.engine.events import HandDrawn, HandWon, MeldCalled, RoundStarted
from server.engine.hand import shanten
from server.engine.melds import MeldType
from server.engine.options import counts_of
from server.engine.rules import EMA, MAHJONGSOUL, TENHOU, Ruleset
from server.engine.state import MatchState

Policy = Callable[[MatchState, int, int, list[Action]], Action]


def _hash_index(state: MatchState, step: int, n: int) -> int:
    digest = hashlib.sha256(state.seed + step.to_bytes(4, "big")).digest()
    return int.from_bytes(digest[:4], "big") % n


def picker(state: MatchState, seat: int, step: int, legal: list[Action]) -> Action:
    """Random play, but reproducible: the index comes from the seed and the step."""
    return legal[_hash_index(state, step, len(legal))]


def _towards_tenpai(state: MatchState, seat: int, step: int, legal: list[Action]) -> Action:
    """The discard (or riichi discard) that leaves the lowest shanten; ties by the step's hash."""
    hand = state.hand.players[seat].hand
    discards = [a for a in legal if isinstance(a, Discard | Riichi)]
    if not discards:
        return picker(state, seat, step, legal)

    def after(action: Discard | Riichi) -> int:
        rest = list(hand)
        rest.remove(action.tile)
        return shanten(counts_of(tuple(rest)))

    best = min(after(a) for a in discards)
    ties = [a for a in discards if after(a) == best]
    riichi = [a for a in ties if isinstance(a, Riichi)]
    pool = riichi or ties
    return pool[_hash_index(state, step, len(pool))]


def _first_of(kinds: tuple[type, ...], state: MatchState, step: int, legal: list[Action]) -> Action | None:
    for kind in kinds:
        offered = [a for a in legal if isinstance(a, kind)]
        if offered:
            return offered[_hash_index(state, step, len(offered))]
    return None


def eager(state: MatchState, seat: int, step: int, legal: list[Action]) -> Action:
    """Every win, kan and call first (in that order), then discards towards tenpai."""
    chosen = _first_of((Tsumo, Ron, Ankan, Kakan, Daiminkan, Pon, Chi), state, step, legal)
    return chosen or _towards_tenpai(state, seat, step, legal)


def closed(state: MatchState, seat: int, step: int, legal: list[Action]) -> Action:
    """Wins and kans, never chi or pon (pass instead); discards towards tenpai, riichi when offered."""
    chosen = _first_of((Tsumo, Ron, Ankan, Kakan, Daiminkan), state, step, legal)
    if chosen is not None:
        return chosen
    if Pass() in legal:
        return Pass()
    return _towards_tenpai(state, seat, step, legal)


@dataclass(frozen=True, slots=True)
class Count:
    decisions: int  # actions applied over the whole match
    per_seat: tuple[int, int, int, int]  # legal actions offered to each seat, summed over its decisions
    hands: int
    wins: int
    draws: int
    kans: int
    scores: tuple[int, ...]  # the final scores
    digest: str  # sha256 of every legal set in order (sorted JSON forms), first 16 hex digits


_KANS = (MeldType.ANKAN, MeldType.DAIMINKAN, MeldType.KAKAN)


def count(ruleset: Ruleset, seed: bytes, policy: Policy) -> Count:
    t = new_match(ruleset, seed)
    state = t.state
    events = list(t.events)
    per_seat = [0, 0, 0, 0]
    sha = hashlib.sha256()
    decisions = 0
    while not state.finished:
        seat = pending_seats(state)[0]
        legal = sorted(
            legal_actions(state, seat), key=lambda a: json.dumps(action_to_dict(a), sort_keys=True)
        )
        per_seat[seat] += len(legal)
        line = json.dumps([seat, [action_to_dict(a) for a in legal]], sort_keys=True)
        sha.update(line.encode() + b"\n")
        t = apply(state, seat, policy(state, seat, decisions, legal))
        state = t.state
        events.extend(t.events)
        decisions += 1
    return Count(
        decisions=decisions,
        per_seat=(per_seat[0], per_seat[1], per_seat[2], per_seat[3]),
        hands=sum(isinstance(e, RoundStarted) for e in events),
        wins=sum(isinstance(e, HandWon) for e in events),
        draws=sum(isinstance(e, HandDrawn) for e in events),
        kans=sum(isinstance(e, MeldCalled) and e.type in _KANS for e in events),
        scores=state.scores,
        digest=sha.hexdigest()[:16],
    )


CASES: dict[str, tuple[Ruleset, bytes, Policy]] = {
    "tenhou-picker": (TENHOU, b"golden-1", picker),
    "tenhou-eager": (TENHOU, b"golden-2", eager),
    "tenhou-closed": (TENHOU, b"golden-3", closed),
    "mahjongsoul-eager": (MAHJONGSOUL, b"golden-4", eager),
    "mahjongsoul-closed": (MAHJONGSOUL, b"golden-5", closed),
    "ema-eager": (EMA, b"golden-6", eager),
    "ema-closed": (EMA, b"golden-7", closed),
}

GOLDEN: dict[str, Count] = {
    "ema-closed": Count(
        decisions=806,
        per_seat=(1677, 1769, 1714, 1877),
        hands=12,
        wins=7,
        draws=5,
        kans=6,
        scores=(23800, 18900, 41700, 35600),
        digest="8308232df469267f",
    ),
    "ema-eager": Count(
        decisions=1476,
        per_seat=(2805, 2711, 2494, 2574),
        hands=20,
        wins=11,
        draws=9,
        kans=13,
        scores=(20700, 53100, 24700, 21500),
        digest="949b8f461fbcf6ad",
    ),
    "mahjongsoul-closed": Count(
        decisions=864,
        per_seat=(1921, 1976, 1883, 1905),
        hands=12,
        wins=7,
        draws=5,
        kans=4,
        scores=(50600, 15300, 32600, 1500),
        digest="516cb2b6ad13f2a6",
    ),
    "mahjongsoul-eager": Count(
        decisions=1607,
        per_seat=(2834, 2451, 2746, 2847),
        hands=19,
        wins=10,
        draws=9,
        kans=19,
        scores=(27800, 24500, 47100, 600),
        digest="bd23db7623ab553b",
    ),
    "tenhou-closed": Count(
        decisions=627,
        per_seat=(1296, 1521, 1461, 1373),
        hands=8,
        wins=6,
        draws=2,
        kans=2,
        scores=(49000, 23800, -2300, 29500),
        digest="164edab742fa65b6",
    ),
    "tenhou-eager": Count(
        decisions=1371,
        per_seat=(2341, 2309, 2314, 2172),
        hands=18,
        wins=10,
        draws=8,
        kans=13,
        scores=(26800, 20600, 30600, 22000),
        digest="6a4d06019fc8ac4c",
    ),
    "tenhou-picker": Count(
        decisions=1097,
        per_seat=(2178, 2449, 2461, 2168),
        hands=12,
        wins=0,
        draws=12,
        kans=2,
        scores=(28000, 24000, 24000, 24000),
        digest="a18abd7b320fbe30",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_legal_action_counts_are_pinned(case: str) -> None:
    ruleset, seed, policy = CASES[case]
    assert count(ruleset, seed, policy) == GOLDEN[case]


if __name__ == "__main__":  # print the values to pin
    for name in sorted(CASES):
        print(f"    {name!r}: {count(*CASES[name])!r},")
