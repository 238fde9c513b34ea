"""Hints (server/engine/hints.py): the waits shown are the engine's, ``left`` counts only what the
seat can see, furiten is the engine's, and nothing depends on another seat's concealed tiles."""

from __future__ import annotations

from server.engine import apply, legal_actions, new_match, pending_seats
from server.engine import hand as analysis
from server.engine.actions import Discard, Pass, Riichi
from server.engine.hints import Hints, seat_hints
from server.engine.options import counts_of, is_furiten, remove_one
from server.engine.rules import TENHOU
from server.engine.tiles import kind, parse_tile
from tests.engine.scenario import Game, quiet_wall, spare_walls

T = parse_tile
WAIT_14M = "23m456p789s11122z"  # ryanmen 1m / 4m, East triplet (round wind) for the yaku


def test_a_tenpai_hand_shows_the_engines_waits_and_left_counts_only_visible_tiles() -> None:
    g = Game.start({1: WAIT_14M}, draws="9p9s", quiet=True, dora="1m")
    hints = seat_hints(g.state, 1, ())  # seat 0 (the dealer) is to play: seat 1 holds 13 tiles
    hand = g.state.hand.players[1].hand
    assert {w.kind for w in hints.waits} == analysis.waits(counts_of(hand)) == {kind(T("1m")), kind(T("4m"))}
    left = {w.kind: w.left for w in hints.waits}
    assert left[kind(T("1m"))] == 3  # the dora indicator is seen; nothing else
    assert left[kind(T("4m"))] == 4
    assert hints.furiten is False and hints.discards == ()


def test_on_its_turn_each_tenpai_discard_shows_the_waits_after_it() -> None:
    g = Game.start({1: WAIT_14M}, draws="9p3m", quiet=True)
    g.tsumogiri(0)
    g.pass_all()
    legal = g.legal(1)  # seat 1 drew 3m: 233m...
    hints = seat_hints(g.state, 1, legal)
    hand = g.state.hand.players[1].hand
    by_tile = {(d.tile, d.tsumogiri): d for d in hints.discards}
    for action in legal:
        if isinstance(action, Discard):
            after = analysis.waits(counts_of(remove_one(hand, action.tile)))
            shown = by_tile.get((action.tile, action.tsumogiri))
            assert (shown is None) == (not after)
            if shown is not None:
                assert {w.kind for w in shown.waits} == after
    riichi_tiles = {(a.tile, a.tsumogiri) for a in legal if isinstance(a, Riichi)}
    assert riichi_tiles and riichi_tiles <= set(by_tile)
    # The hand as it is on the turn: what a tsumogiri keeps.
    assert hints.waits == by_tile[(T("3m"), True)].waits


def test_furiten_by_own_discard_and_on_a_discard_of_a_winning_tile() -> None:
    g = Game.start({1: WAIT_14M}, draws="9p1m", quiet=True)
    g.tsumogiri(0)
    g.pass_all()
    legal = g.legal(1)  # seat 1 drew 1m, a winning tile
    hints = seat_hints(g.state, 1, legal)
    by_tile = {(d.tile, d.tsumogiri): d for d in hints.discards}
    assert by_tile[(T("1m"), True)].furiten is True  # 1m in its own river: furiten on 1m and 4m
    assert hints.furiten is False  # drawing a winning tile is no furiten (it may tsumo)
    assert {w.kind for w in hints.waits} == {kind(T("1m")), kind(T("4m"))}
    g.tsumogiri(1)
    after = seat_hints(g.state, 1, ())
    assert after.furiten is True == is_furiten(g.state.hand.players[1])
    assert {w.kind: w.left for w in after.waits}[kind(T("1m"))] == 3  # its own 1m lies in its river


def test_passing_a_winning_tile_is_temporary_furiten() -> None:
    g = Game.start({1: WAIT_14M}, draws="9p9s1m4m", quiet=True, dora="9p")
    g.tsumogiri(0)
    g.tsumogiri(1)
    g.pass_all()
    g.tsumogiri(2)  # 1m: seat 1 may ron
    assert seat_hints(g.state, 1, g.legal(1)).furiten is False
    g.do(1, Pass())
    assert seat_hints(g.state, 1, ()).furiten is True == is_furiten(g.state.hand.players[1])


def _hint_trail(wall: tuple[int, ...], discards: int = 16) -> tuple[list[Hints], int]:
    """Seat 1's hints at each of its prompts and after every discard, the table playing tsumogiri
    and passing every call window; and the number of seat 2's hand of 4m."""
    state = new_match(TENHOU, b"hints", walls_=[wall, *spare_walls(TENHOU)]).state
    held = sum(kind(t) == kind(T("4m")) for t in state.hand.players[2].hand)
    trail: list[Hints] = []
    while discards:
        seat = pending_seats(state)[0]
        if seat == 1:
            trail.append(seat_hints(state, 1, legal_actions(state, 1)))
        drawn = state.hand.players[seat].drawn
        state = apply(state, seat, Pass() if drawn is None else Discard(drawn, True)).state
        if drawn is not None:
            discards -= 1
            trail.append(seat_hints(state, 1, ()))
    return trail, held


def test_hints_do_not_depend_on_another_seats_concealed_tiles() -> None:
    """Two walls that differ only in a tile of seat 2's hand (swapped with one deep in the live
    wall, never drawn here): seat 1's hints are the same throughout, though seat 2 holds one more 4m
    (a wait of seat 1) in one of them."""
    wall_a = quiet_wall({1: WAIT_14M}, "9p9s")
    four_m = next(i for i in range(121, 90, -1) if kind(wall_a[i]) == kind(T("4m")))
    seat2 = next(i for i in range(26, 39) if kind(wall_a[i]) != kind(T("4m")))
    swapped = list(wall_a)
    swapped[four_m], swapped[seat2] = swapped[seat2], swapped[four_m]
    trail_a, held_a = _hint_trail(wall_a)
    trail_b, held_b = _hint_trail(tuple(swapped))
    assert held_b == held_a + 1
    assert trail_a == trail_b
    assert sum(bool(h.discards) for h in trail_a) >= 3  # seat 1's turns, tenpai, were compared
