"""Standings formulas against hand-computed fixtures (server/tournament/standings.py)."""

from __future__ import annotations

import pytest

from server.engine.rules import PRESETS
from server.tournament.standings import (
    Adjustment,
    Formula,
    GameResult,
    ScoringRules,
    StandingsError,
    format_points,
    game_points,
    standings,
)

TENHOU = PRESETS["tenhou"]  # 25,000 start, 30,000 return, uma 20/10/-10/-20, oka
ENTRANTS = ["ann", "bob", "cat", "dan"]

# round 1: ann 45,300 (1st), bob 30,000 (2nd), cat 18,000 (3rd), dan 6,700 (4th)
G1 = GameResult("m1", 1, ("ann", "bob", "cat", "dan"), (45300, 30000, 18000, 6700), (1, 2, 3, 4))
# round 2: dan 40,000 (1st), cat 35,000 (2nd), bob 20,000 (3rd), ann 5,000 (4th)
G2 = GameResult("m2", 2, ("bob", "ann", "dan", "cat"), (20000, 5000, 40000, 35000), (3, 4, 1, 2))
# round 3: ann 31,000 (1st), bob 29,000 (2nd), cat 25,000 (3rd), dan 15,000 (4th)
G3 = GameResult("m3", 3, ("cat", "dan", "ann", "bob"), (25000, 15000, 31000, 29000), (3, 4, 1, 2))


def rules(formula: Formula, **kw: object) -> ScoringRules:
    return ScoringRules.of(TENHOU, formula, **kw)  # type: ignore[arg-type]


def test_game_points_by_hand() -> None:
    # ann: (45,300 - 30,000)/1000 + 20 uma + 20 oka = 15.3 + 40 = +55.3
    # bob: 0 + 10 = +10.0; cat: -12.0 - 10 = -22.0; dan: -23.3 - 20 = -43.3; they sum to zero
    assert game_points(G1, rules(Formula.POINTS)) == (553, 100, -220, -433)
    assert format_points(553) == "+55.3" and format_points(-433) == "-43.3" and format_points(0) == "0.0"


def test_points_formula() -> None:
    table = standings([G1, G2, G3], [], ENTRANTS, rules(Formula.POINTS))
    # ann: 55.3 + (5,000-30,000 = -25.0 - 20 = -45.0) + (1.0 + 20 + 20 = 41.0) = 51.3
    # bob: 10.0 + (-10.0 - 10 = -20.0) + (-1.0 + 10 = 9.0) = -1.0
    # cat: -22.0 + (5.0 + 10 = 15.0) + (-5.0 - 10 = -15.0) = -22.0
    # dan: -43.3 + (10.0 + 20 + 20 = 50.0) + (-15.0 - 20 = -35.0) = -28.3
    assert [(s.rank, s.name, s.total) for s in table] == [
        (1, "ann", 513),
        (2, "bob", -10),
        (3, "cat", -220),
        (4, "dan", -283),
    ]
    assert table[0].places == (2, 0, 0, 1) and table[0].games == 3
    assert sum(s.total for s in table) == 0


def test_adjustments_count_and_are_reported() -> None:
    penalty = Adjustment("ann", -600, "late to round 3")
    table = standings([G1, G2, G3], [penalty], ENTRANTS, rules(Formula.POINTS))
    assert [(s.name, s.total, s.adjustments) for s in table][:2] == [("bob", -10, 0), ("ann", -87, -600)]
    with pytest.raises(StandingsError, match="'zed', who is not an entrant"):
        standings([G1], [Adjustment("zed", 10, "x")], ENTRANTS, rules(Formula.POINTS))


def test_placements_formula() -> None:
    table = standings([G1, G2, G3], [], ENTRANTS, rules(Formula.PLACEMENTS))
    # ann 1+4+1 = 6, bob 2+3+2 = 7, cat 3+2+3 = 8, dan 4+1+4 = 9: lower is better
    assert [(s.name, s.total) for s in table] == [("ann", 6), ("bob", 7), ("cat", 8), ("dan", 9)]


def test_best_consecutive_formula() -> None:
    table = standings([G1, G2, G3], [], ENTRANTS, rules(Formula.BEST_CONSECUTIVE, best_n=2))
    # ann: windows (55.3-45.0 = 10.3), (-45.0+41.0 = -4.0) -> 10.3
    # dan: (-43.3+50.0 = 6.7), (50.0-35.0 = 15.0) -> 15.0
    # bob: (10-20 = -10.0), (-20+9 = -11.0) -> -10.0; cat: (-22+15 = -7.0), (15-15 = 0.0) -> 0.0
    assert [(s.name, s.total) for s in table] == [("dan", 150), ("ann", 103), ("cat", 0), ("bob", -100)]
    with pytest.raises(StandingsError, match="best_n"):
        rules(Formula.BEST_CONSECUTIVE)


def test_teams_formula() -> None:
    teams = {"ann": "red", "dan": "red", "bob": "blue", "cat": "blue"}
    table = standings([G1, G2, G3], [], ENTRANTS, rules(Formula.TEAMS, teams=teams))
    # red: 51.3 - 28.3 = 23.0; blue: -1.0 - 22.0 = -23.0
    assert [(s.name, s.total, s.members) for s in table] == [
        ("red", 230, ("ann", "dan")),
        ("blue", -230, ("bob", "cat")),
    ]


def test_ties_broken_by_places_then_best_game_then_name() -> None:
    # two games where ann and bob end level on points: ann has the first place, so ann is ahead
    g1 = GameResult("a", 1, ("ann", "bob", "cat", "dan"), (30000, 30000, 20000, 20000), (1, 2, 3, 4))
    g2 = GameResult("b", 2, ("bob", "ann", "cat", "dan"), (40000, 20000, 20000, 20000), (1, 4, 2, 3))
    table = standings([g1, g2], [], ENTRANTS, rules(Formula.PLACEMENTS))
    # placements: ann 1+4 = 5, bob 2+1 = 3
    assert table[0].name == "bob"
    level = standings(
        [GameResult("c", 1, ("ann", "bob", "cat", "dan"), (30000, 30000, 20000, 20000), (1, 2, 3, 4))],
        [Adjustment("bob", 100, "equalise")],
        ENTRANTS,
        rules(Formula.POINTS),
    )
    # ann: 0 + 20 + 20 = 40.0; bob: 0 + 10 + 10 adjustment = 20.0
    assert [(s.name, s.total) for s in level][:2] == [("ann", 400), ("bob", 200)]


def test_equal_rows_share_a_rank() -> None:
    table = standings([], [], ENTRANTS, rules(Formula.POINTS))
    assert [s.rank for s in table] == [1, 1, 1, 1]
    assert [s.name for s in table] == sorted(ENTRANTS)


def test_three_seats() -> None:
    sanma = ScoringRules(Formula.POINTS, 3, 35000, 40000, (15, 0, -15), True)
    g = GameResult("s", 1, ("a", "b", "c"), (60000, 30000, 15000), (1, 2, 3))
    # a: 20.0 + 15 + oka (5,000 x 3 = 15.0) = 50.0; b: -10.0; c: -25.0 - 15 = -40.0
    assert game_points(g, sanma) == (500, -100, -400)


def test_a_bad_game_is_refused() -> None:
    bad = GameResult("x", 1, ("a", "b", "c", "d"), (25000, 25000, 25000, 25000), (1, 1, 3, 4))
    with pytest.raises(StandingsError, match="game x"):
        game_points(bad, rules(Formula.POINTS))


def test_per_seat_start_points_set_the_oka() -> None:
    """A table where one seat started with 35,000 (an organizer's start points): the oka is what the
    return points take from the table, 4 x 30,000 - 110,000 = 10,000, so the points still add to 0.
    By hand: 52,000 -> +22.0 + 20 uma + 10 oka = +52.0; 30,000 -> 0 + 10 = +10.0;
    18,000 -> -12.0 - 10 = -22.0; 10,000 -> -20.0 - 20 = -40.0."""
    starts = (35000, 25000, 25000, 25000)
    game = GameResult("m", 1, ("a", "b", "c", "d"), (52000, 30000, 18000, 10000), (1, 2, 3, 4), starts)
    assert game_points(game, rules(Formula.POINTS)) == (520, 100, -220, -400)
    same = GameResult("m", 1, ("a", "b", "c", "d"), G1.scores, G1.placements, (25000,) * 4)
    assert game_points(same, rules(Formula.POINTS)) == game_points(G1, rules(Formula.POINTS))
