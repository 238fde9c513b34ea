"""Round flow: furiten (own discards, temporary, riichi) and wins only with a yaku.

Rules (docs/rules.md#furiten): a player cannot ron while any of their
winning tiles is in their own discards; passing a winning tile makes the player furiten until their
next discard, and for a riichi player "for the remainder of the hand"; a furiten hand may still win
by tsumo. A win needs a yaku (docs/rules.md#hand-shapes: dora are not yaku), so no ron or tsumo is
offered without one.
"""

from __future__ import annotations

import pytest

from server.engine.actions import Ankan, Chi, Pass, Riichi, Ron, Tsumo
from server.engine.rules import MAHJONGSOUL, TENHOU, Ruleset
from server.engine.tiles import parse_tile, parse_tiles
from tests.engine.scenario import Game

T = parse_tile
WAIT_14M = "23m456p789s11122z"  # ryanmen 1m / 4m, East triplet (round wind) for the yaku


def quad(text: str) -> tuple[int, int, int, int]:
    a, b, c, d = parse_tiles(text)
    return (a, b, c, d)


def test_no_ron_on_a_wait_in_own_discards() -> None:
    """docs/rules.md#furiten: furiten - a winning tile (1m) in the player's river forbids ron on
    every wait (4m)."""
    g = Game.start({1: WAIT_14M}, draws="9p1m4m", quiet=True)
    g.tsumogiri(0)
    assert Tsumo() in g.legal(1)  # 1m completes the hand; the player discards it instead
    g.tsumogiri(1)
    g.pass_all()
    g.tsumogiri(2)  # 4m
    assert g.legal(1) == frozenset()
    assert 1 not in g.pending()


def test_furiten_hand_may_still_tsumo() -> None:
    """docs/rules.md#furiten: "a furiten hand may still win by tsumo"."""
    g = Game.start({1: WAIT_14M}, draws="9p1m", late={5: "4m"}, quiet=True)
    g.tsumogiri(0)
    g.tsumogiri(1)  # 1m into the river: furiten
    g.pass_all()
    g.run_to(64)
    assert g.state.hand.turn == 1 and g.state.hand.players[1].drawn == T("4m")
    assert Tsumo() in g.legal(1)
    g.do(1, Tsumo())
    (win,) = g.wins()
    assert win.seat == 1 and win.from_seat == 1


def test_temporary_furiten_after_passing_until_own_next_discard() -> None:
    """docs/rules.md#furiten: passing a winning tile (1m from seat 2) forbids ron on seat 3's 4m in
    the same go-around; after the player's own next discard ron is possible again."""
    g = Game.start({1: WAIT_14M}, draws="9p9s1m4m3p3s1m", quiet=True, dora="9p")
    g.tsumogiri(0)
    g.tsumogiri(1)
    g.pass_all()
    g.tsumogiri(2)  # 1m
    assert Ron() in g.legal(1)
    g.do(1, Pass())
    assert g.state.hand.players[1].furiten_temp
    g.tsumogiri(3)  # 4m
    assert g.legal(1) == frozenset()
    g.pass_all()
    g.tsumogiri(0)
    g.pass_all()
    g.tsumogiri(1)  # the player's own discard ends temporary furiten
    assert not g.state.hand.players[1].furiten_temp
    g.pass_all()
    g.tsumogiri(2)  # 1m again
    assert Ron() in g.legal(1)
    g.do(1, Ron())
    (win,) = g.wins()
    assert win.seat == 1 and win.from_seat == 2


def test_riichi_furiten_is_permanent() -> None:
    """docs/rules.md#furiten: "if a win is declined, then the riichi hand is subject to furiten for
    the remainder of the hand" - even after the declarer's later discards; tsumo remains possible."""
    g = Game.start({1: WAIT_14M}, draws="9m9p1m", late={6: "4m", 9: "1m"}, quiet=True, dora="9p")
    g.tsumogiri(0)
    g.do(1, Riichi(T("9p"), True))
    g.pass_all()
    g.tsumogiri(2)  # 1m
    g.do(1, Pass())
    assert g.state.hand.players[1].furiten_riichi
    g.run_to(64)  # seat 1 draws again and discards below
    g.tsumogiri(1)
    g.pass_all()
    g.tsumogiri(2)  # 4m: still furiten after the player's own discard
    assert g.legal(1) == frozenset()
    g.pass_all()
    g.run_to(60)
    assert g.state.hand.turn == 1 and g.state.hand.players[1].drawn == T("1m")
    assert Tsumo() in g.legal(1)


def test_no_ron_without_a_yaku_but_tsumo_is_one() -> None:
    """docs/rules.md#hand-shapes: a win needs a yaku. A closed hand with none (23m 456p 789s 678s
    11z) cannot ron 1m, but menzen tsumo is a yaku, so it may tsumo."""
    hand = "23m456p789s678s11z"
    g = Game.start({1: hand}, draws="9p9s1m", late={5: "4m"}, quiet=True)
    g.tsumogiri(0)
    g.tsumogiri(1)
    g.pass_all()
    g.tsumogiri(2)  # 1m
    assert g.legal(1) == frozenset()
    g.pass_all()
    g.run_to(64)
    assert g.state.hand.players[1].drawn == T("4m")
    assert Tsumo() in g.legal(1)


def test_open_hand_without_a_yaku_wins_neither_by_ron_nor_by_tsumo() -> None:
    """An open hand without a yaku (chi 123m, then 456p 345s 67s 11z) gets no win on 5s / 8s."""
    g = Game.start({1: "12m456p345s67s11z9m"}, draws="3m", late={1: "8s", 4: "5s"}, quiet=True)
    g.tsumogiri(0)
    g.do(1, Chi((T("1m"), T("2m"))))
    g.discard(1, "9m")
    g.pass_all()
    assert g.state.hand.turn == 2 and g.state.hand.players[2].drawn == T("8s")
    g.tsumogiri(2)  # 8s
    assert g.legal(1) == frozenset()
    g.pass_all()
    g.run_to(65)
    assert g.state.hand.turn == 1 and g.state.hand.players[1].drawn == T("5s")
    assert Tsumo() not in g.legal(1)


# -- a closed kan is no chance to win, except for kokushi -----------------------------------------

WAIT_2S5S = "23499m456p34s111z"  # ryanmen 2s / 5s, East triplet (round wind) for the yaku


@pytest.mark.parametrize("ruleset", [TENHOU, MAHJONGSOUL], ids=["tenhou", "mahjongsoul"])
@pytest.mark.parametrize("riichi", [True, False], ids=["riichi", "dama"])
def test_a_closed_kan_of_a_wait_is_not_a_passed_winning_tile(ruleset: Ruleset, riichi: bool) -> None:
    """docs/rules.md#furiten: only passing a winning tile one could have won on makes a player
    furiten. Seat 2's closed kan of 5s cannot be robbed by an ordinary hand waiting on 2s-5s
    (docs/rules.md#chankan), so seat 1 may still ron seat 0's 2s afterwards."""
    g = Game.start(
        {1: WAIT_2S5S, 2: "0555s159m19p3467z"},
        draws="1p9s8p7m2s",
        rinshan="8m",
        dora="9p",
        quiet=True,
        ruleset=ruleset,
    )
    g.tsumogiri(0)
    g.do(1, Riichi(T("9s"), True)) if riichi else g.tsumogiri(1)
    g.pass_all()
    (kan,) = (a for a in g.legal(2) if isinstance(a, Ankan))
    g.do(2, kan)
    assert g.state.hand.players[2].melds[0].is_kan  # nobody could rob it: it stands at once
    assert not g.state.hand.players[1].furiten_temp and not g.state.hand.players[1].furiten_riichi
    g.tsumogiri(2)
    g.pass_all()
    g.tsumogiri(3)
    g.pass_all()
    g.discard(0, "2s")
    assert Ron() in g.legal(1)
    g.do(1, Ron())
    (win,) = g.wins()
    assert win.seat == 1 and win.from_seat == 0


KOKUSHI_ON_1M = "9m19p19s12345677z"


@pytest.mark.parametrize(
    ("ruleset", "riichi", "temporary", "for_the_hand"),
    [
        (TENHOU, False, True, False),
        (TENHOU, True, True, False),  # no chance to rob: the temporary furiten only
        (MAHJONGSOUL, False, True, False),
        (MAHJONGSOUL, True, False, True),  # passed a ron it was offered: furiten for the hand
    ],
    ids=["tenhou-dama", "tenhou-riichi", "mahjongsoul-dama", "mahjongsoul-riichi"],
)
def test_kokushi_seeing_a_closed_kan_of_its_wait_is_furiten(
    ruleset: Ruleset, riichi: bool, temporary: bool, for_the_hand: bool
) -> None:
    """docs/rules.md#furiten: a kokushi hand waiting on the tile of a closed kan saw a winning tile.
    Where it may rob the kan (``chankan_ankan_kokushi``) and passes, that is a passed ron (for a
    riichi hand, furiten for the rest of the hand); where it may not, it is furiten until its next
    discard, riichi or not."""
    g = Game.start(
        {0: "111m258p369s1467z", 1: KOKUSHI_ON_1M},
        draws="8s8p8m7s1m",
        rinshan="9p",
        quiet=True,
        ruleset=ruleset,
    )
    g.tsumogiri(0)
    g.do(1, Riichi(T("8p"), True)) if riichi else g.tsumogiri(1)
    g.pass_all()
    g.tsumogiri(2)
    g.pass_all()
    g.tsumogiri(3)
    g.pass_all()
    g.do(0, Ankan(quad("1111m")))
    if ruleset.chankan_ankan_kokushi:
        assert g.legal(1) == frozenset({Ron(), Pass()})
        g.do(1, Pass())
    player = g.state.hand.players[1]
    assert (player.furiten_temp, player.furiten_riichi) == (temporary, for_the_hand)
