"""Duplicate rotations (server/tournament/rotation.py): cycles of rounds, the rotated line-ups, and
the per-entrant comparison over complete sets, against hand-computed figures."""

from __future__ import annotations

from server.engine.rules import PRESETS
from server.tournament.rotation import compare, cycle_done, cycle_of, rotate
from server.tournament.standings import Formula, GameResult, ScoringRules

RULES = ScoringRules.of(PRESETS["tenhou"], Formula.POINTS, seats=4)


def test_cycles_and_rotations() -> None:
    assert [cycle_of(r, 4) for r in range(1, 9)] == [
        (1, 0),
        (1, 1),
        (1, 2),
        (1, 3),
        (5, 0),
        (5, 1),
        (5, 2),
        (5, 3),
    ]
    assert [cycle_done(r, 3) for r in range(1, 7)] == [False, False, True, False, False, True]
    lineup = ("a", "b", "c", "d")
    rotated = [rotate(lineup, k) for k in range(4)]
    assert rotated == [("a", "b", "c", "d"), ("b", "c", "d", "a"), ("c", "d", "a", "b"), ("d", "a", "b", "c")]
    for position in range(4):  # each entrant in each seat once
        assert {t[position] for t in rotated} == set(lineup)


def _game(k: int, entrants: tuple[str, ...], scores: tuple[int, ...]) -> GameResult:
    order = sorted(range(4), key=lambda s: (-scores[s], s))
    places = tuple(order.index(s) + 1 for s in range(4))
    return GameResult(f"m{k}", k + 1, entrants, scores, places)


def test_the_comparison_counts_complete_sets_only() -> None:
    lineup = ("a", "b", "c", "d")
    # seat 0 always wins 45,300 / 30,000 / 18,000 / 6,700: +55.3 / +10.0 / -22.0 / -43.3 (docs)
    scores = (45300, 30000, 18000, 6700)
    full = [_game(k, rotate(lineup, k), scores) for k in range(4)]
    partial = [_game(4 + k, rotate(lineup, k), scores) for k in range(2)]
    result = compare([("r1-s0", full), ("r5-s0", partial)], RULES)
    first, second = result.sets
    assert first.complete and not second.complete
    # over a whole cycle the lucky seat cancels out: every entrant +55.3 +10.0 -22.0 -43.3 = 0.0
    assert dict(first.points) == {"a": 0, "b": 0, "c": 0, "d": 0}
    # rotation 0 (a b c d) then 1 (b c d a): a +55.3 -43.3, b +10.0 +55.3, c -22.0 +10.0, d -43.3 -22.0
    assert dict(second.points) == {"a": 120, "b": 653, "c": -120, "d": -653}
    rows = {r.entrant: r for r in result.entrants}
    assert set(rows) == set(lineup)
    assert all(
        r.sets == 1 and r.games == 4 and r.total == 0 and r.places == (1, 1, 1, 1) for r in rows.values()
    )
    assert all(r.mean_place == 2.5 and r.spread == 0 for r in rows.values())


def test_the_spread_is_the_sample_deviation_of_the_sets() -> None:
    lineup = ("a", "b", "c", "d")
    even = (25000, 25000, 25000, 25000)  # ties: places by seat, uma decides
    sets = [(f"s{n}", [_game(4 * n + k, rotate(lineup, k), even) for k in range(4)]) for n in range(2)]
    result = compare(sets, RULES)
    assert all(r.sets == 2 and r.games == 8 and r.spread == 0 for r in result.entrants)
