"""Seating: every generated round is valid, impossible constraints fail fast with a named conflict,
and scripted seatings are parsed and checked (server/tournament/seating.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.tournament.seating import (
    History,
    RoundSeating,
    SeatingError,
    SeatingMethod,
    SeatingRules,
    conflicts,
    parse_script,
    seat_round,
    validate,
)

GENERATED = (SeatingMethod.RANDOM, SeatingMethod.STANDINGS)


def names(n: int) -> list[str]:
    return [f"e{i:03d}" for i in range(n)]


@settings(max_examples=60, deadline=None)
@given(
    seats=st.sampled_from([3, 4]),
    tables=st.integers(1, 12),
    rounds=st.integers(1, 6),
    method=st.sampled_from(GENERATED),
    seed=st.binary(min_size=1, max_size=8),
)
def test_generated_rounds_are_valid(
    seats: int, tables: int, rounds: int, method: SeatingMethod, seed: bytes
) -> None:
    entrants = names(seats * tables)
    rules = SeatingRules(seats=seats)
    history = History(seats)
    for r in range(rounds):
        seating = seat_round(method, entrants, history, rules, seed + bytes([r]))
        assert conflicts(seating, entrants, history, rules) == []
        assert sorted(seating.entrants()) == sorted(entrants)  # everyone exactly once
        assert all(len(t) == seats for t in seating.tables)
        history.add(seating)
    # winds stay balanced over the event
    assert all(history.spread(e) <= 2 for e in entrants)


@settings(max_examples=30, deadline=None)
@given(seed=st.binary(min_size=1, max_size=8), method=st.sampled_from(GENERATED))
def test_meeting_cap_holds_when_it_can(seed: bytes, method: SeatingMethod) -> None:
    # 64 entrants, 4 rounds, nobody meets anyone twice: easily possible
    entrants = names(64)
    rules = SeatingRules(seats=4, max_meetings=1)
    history = History(4)
    for r in range(4):
        history.add(seat_round(method, entrants, history, rules, seed + bytes([r])))
    assert max(history.meetings.values()) == 1


def test_impossible_meeting_cap_is_a_named_error_not_a_hang() -> None:
    # 8 entrants at tables of 4: after one round, any table of four holds two who already met
    entrants = names(8)
    rules = SeatingRules(seats=4, max_meetings=1)
    history = History(4)
    history.add(seat_round(SeatingMethod.RANDOM, entrants, history, rules, b"r1"))
    with pytest.raises(SeatingError) as err:
        seat_round(SeatingMethod.RANDOM, entrants, history, rules, b"r2")
    assert "have already met" in str(err.value) and "max_meetings 1" in str(err.value)
    assert err.value.conflicts


def test_an_entrant_who_met_everyone_is_named() -> None:
    entrants = names(4)
    rules = SeatingRules(seats=4, max_meetings=1)
    history = History(4)
    history.add(RoundSeating((tuple(entrants),)))
    with pytest.raises(SeatingError, match="'e000' has met all but 0 of the other 3 entrants"):
        seat_round(SeatingMethod.STANDINGS, entrants, history, rules, b"x")


def test_entrants_that_do_not_fill_tables() -> None:
    with pytest.raises(SeatingError, match="9 entrants do not fill tables of 4: add 3"):
        seat_round(SeatingMethod.RANDOM, names(9), History(4), SeatingRules(), b"x")
    with pytest.raises(SeatingError, match="entrants listed twice: 'e000'"):
        seat_round(
            SeatingMethod.RANDOM, ["e000", *names(4)[:3], "e000"][:4], History(4), SeatingRules(), b"x"
        )


def test_the_same_seed_gives_the_same_seating() -> None:
    entrants = names(40)
    a = seat_round(SeatingMethod.RANDOM, entrants, History(4), SeatingRules(), b"published")
    b = seat_round(SeatingMethod.RANDOM, entrants, History(4), SeatingRules(), b"published")
    c = seat_round(SeatingMethod.RANDOM, entrants, History(4), SeatingRules(), b"other")
    assert a == b and a != c


def test_by_standings_close_scores_meet() -> None:
    entrants = names(16)  # in standings order
    seating = seat_round(SeatingMethod.STANDINGS, entrants, History(4), SeatingRules(), b"x")
    assert [sorted(t) for t in seating.tables] == [sorted(entrants[k : k + 4]) for k in range(0, 16, 4)]


def test_seat_winds_rotate_at_a_fixed_table() -> None:
    # the same four at one table for four rounds: each sits in every seat once
    entrants = names(4)
    history = History(4)
    for r in range(4):
        history.add(seat_round(SeatingMethod.RANDOM, entrants, history, SeatingRules(), bytes([r])))
    assert all(history.seat_counts(e) == [1, 1, 1, 1] for e in entrants)


def test_scripted_seating_is_checked() -> None:
    entrants = names(8)
    rules = SeatingRules(seats=4, max_meetings=1)
    history = History(4)
    script = parse_script("e000,e001,e002,e003\n# second table\ne004,e005,e006,e007\n", 4)
    seating = seat_round(SeatingMethod.SCRIPTED, entrants, history, rules, b"", script=script)
    assert seating.tables[0] == ("e000", "e001", "e002", "e003")  # the organizer's seat order kept
    history.add(seating)
    again = parse_script('{"tables": [["e000","e004","e001","e005"],["e002","e006","e003","e007"]]}', 4)
    with pytest.raises(SeatingError) as err:
        seat_round(SeatingMethod.SCRIPTED, entrants, history, rules, b"", script=again)
    assert "table 1: 'e000' and 'e001' would meet 2 times (at most 1)" in err.value.conflicts


def test_script_shape_errors() -> None:
    with pytest.raises(SeatingError, match="table 2: 3 entrants"):
        parse_script("a,b,c,d\ne,f,g\n", 4)
    with pytest.raises(SeatingError, match="not valid JSON"):
        parse_script("[[", 4)
    with pytest.raises(SeatingError, match="lists of entrant ids"):
        parse_script('{"tables": [[1, 2, 3, 4]]}', 4)
    with pytest.raises(SeatingError, match="no tables"):
        parse_script("# nothing\n", 4)


def test_validation_names_each_conflict() -> None:
    entrants = names(8)
    seating = RoundSeating((("e000", "e001", "e002", "e000"), ("e004", "e005", "e006", "zzz")))
    found = conflicts(seating, entrants, History(4), SeatingRules())
    assert "'e000' sits twice in this round (tables 1 and 1)" in found
    assert "table 2: 'zzz' is not an entrant of this round" in found
    assert "not seated: 'e003', 'e007'" in found
    with pytest.raises(SeatingError, match="the seating breaks the rules"):
        validate(seating, entrants, History(4), SeatingRules())


def test_wind_spread_is_checked() -> None:
    history = History(4)
    east_twice = RoundSeating((("a", "b", "c", "d"),))
    history.add(east_twice)
    history.add(east_twice)
    found = conflicts(east_twice, ["a", "b", "c", "d"], history, SeatingRules(max_wind_spread=2))
    assert any("'a' in seat 0 would have seat counts [3, 0, 0, 0]" in f for f in found)


def test_rules_are_checked() -> None:
    with pytest.raises(SeatingError, match="3 or 4 seats"):
        SeatingRules(seats=5)
    with pytest.raises(SeatingError, match="max_meetings"):
        SeatingRules(max_meetings=0)
