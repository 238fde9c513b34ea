"""The per-seat play counts behind a profile's riichi rate and call rate (docs/ranking.md)."""

from __future__ import annotations

import doctest

from server.domain import playcounts
from server.domain.playcounts import PlayCounts, play_counts
from server.engine import events as ev
from server.engine.melds import Meld, MeldType
from server.engine.tiles import parse_tile

T = parse_tile("5p")


def _start() -> ev.RoundStarted:
    return ev.RoundStarted(0, 0, 0, 0, 0, 0, (25000,) * 4, T, "", (None,) * 4)


def _call(seat: int, kind: MeldType) -> ev.MeldCalled:
    return ev.MeldCalled(seat, kind, Meld(kind, (T, T, T), T, (seat + 3) % 4), T, (T, T))


def test_each_hand_counts_a_riichi_and_an_open_call_once_per_seat() -> None:
    log: list[ev.Event] = [
        _start(),
        _call(1, MeldType.PON),
        _call(1, MeldType.CHI),  # a second call in the same hand: still one hand with a call
        _call(2, MeldType.ANKAN),  # a closed kan does not open the hand
        ev.TileDiscarded(3, T, False, riichi=True),
        _start(),
        _call(1, MeldType.DAIMINKAN),
        _call(0, MeldType.KAKAN),  # an added kan alone (its pon was counted when made)
        ev.TileDiscarded(0, T, False, riichi=True),
        _start(),
    ]
    assert play_counts(log) == (
        PlayCounts(3, 1, 0),
        PlayCounts(3, 0, 2),
        PlayCounts(3, 0, 0),
        PlayCounts(3, 1, 0),
    )
    assert sum(play_counts(log), PlayCounts()) == PlayCounts(12, 2, 2)


def test_a_three_player_match_has_three_counts() -> None:
    start = ev.RoundStarted(0, 0, 0, 0, 0, 0, (35000,) * 3, T, "", (None,) * 3)
    log: list[ev.Event] = [start, ev.TileDiscarded(2, T, False, riichi=True), _call(1, MeldType.PON)]
    assert play_counts(log) == (PlayCounts(1, 0, 0), PlayCounts(1, 0, 1), PlayCounts(1, 1, 0))


def test_no_hands_no_counts() -> None:
    assert play_counts([]) == (PlayCounts(),) * 4


def test_doctests() -> None:
    assert doctest.testmod(playcounts).failed == 0
