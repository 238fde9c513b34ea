"""Round flow: tenhou, chiihou and renhou (first-turn wins).

Rules (docs/rules.md#first-turn): tenhou is the dealer's win on the first draw;
chiihou a non-dealer's tsumo on the first draw with no call (closed kans included) before it; renhou
a non-dealer's ron before their first draw with no call before it, its value per ``Ruleset.renhou``
(none: not a yaku; EMA ``mangan``: a mangan not cumulative with other yaku or dora; ``yakuman``).
"""

from __future__ import annotations

import pytest

from server.engine.actions import Ankan, Pon, Ron, Tsumo
from server.engine.events import HandWon
from server.engine.rules import EMA, TENHOU, RenhouValue
from server.engine.tiles import parse_tile, parse_tiles
from tests.engine.scenario import Game

T = parse_tile
COMPLETE_ON_1Z = "123m456p789s1122z"
NO_YAKU_14M = "23m456p789s678s11z"  # waits 1m / 4m; no yaku for a ron


def quad(text: str) -> tuple[int, int, int, int]:
    a, b, c, d = parse_tiles(text)
    return (a, b, c, d)


def yaku(win: HandWon) -> dict[str, int]:
    return {y.name: y.han for y in win.yaku}


# -- tenhou ---------------------------------------------------------------------------------------


def test_tenhou_on_the_dealers_first_draw() -> None:
    """docs/rules.md#first-turn: tenhou - the dealer's hand is complete on the first draw: a yakuman
    (16,000 all)."""
    g = Game.start({0: COMPLETE_ON_1Z}, draws="1z", quiet=True)
    assert Tsumo() in g.legal(0)
    g.do(0, Tsumo())
    (win,) = g.wins()
    assert yaku(win) == {"tenhou": 13}
    assert win.yakuman == 1 and win.points == 48000
    assert win.deltas == (48000, -16000, -16000, -16000)


def test_no_tenhou_on_a_rinshan_draw() -> None:
    """The first draw means the live-wall draw: after the dealer's own first-turn kan the rinshan
    win is rinshan kaihou, not tenhou."""
    g = Game.start({0: "111m456p789s1122z"}, draws="1m", rinshan="1z", quiet=True, dora="9p")
    g.do(0, Ankan(quad("1111m")))
    g.do(0, Tsumo())
    (win,) = g.wins()
    assert "rinshan" in yaku(win) and "tenhou" not in yaku(win)


# -- chiihou --------------------------------------------------------------------------------------


def test_chiihou_on_a_non_dealers_first_draw() -> None:
    """docs/rules.md#first-turn: chiihou - a non-dealer's tsumo on the first draw with no call
    before it."""
    g = Game.start({1: COMPLETE_ON_1Z}, draws="9p1z", quiet=True)
    g.tsumogiri(0)
    g.do(1, Tsumo())
    (win,) = g.wins()
    assert yaku(win) == {"chiihou": 13}
    assert win.deltas == (-16000, 32000, -8000, -8000)


def test_no_chiihou_after_a_call() -> None:
    """docs/rules.md#first-turn: any call before the first draw breaks chiihou (seat 1 pons before
    seat 3's first draw)."""
    g = Game.start({1: "66z147m258p369s37z", 3: COMPLETE_ON_1Z}, draws="6z9p1z", quiet=True, dora="9p")
    g.tsumogiri(0)
    g.do(1, Pon((T("6z"), T("6z"))))
    g.discard(1, "7z")
    g.pass_all()
    g.tsumogiri(2)
    g.pass_all()
    assert g.state.hand.turn == 3 and not g.state.hand.players[3].river
    g.do(3, Tsumo())
    (win,) = g.wins()
    assert "chiihou" not in yaku(win) and win.yakuman == 0


def test_no_chiihou_after_a_closed_kan() -> None:
    """docs/rules.md: "no calls, closed kans included, before it" - the dealer's first-turn ankan."""
    g = Game.start(
        {0: "1111m258p369s147z", 1: "234m456p789s1122z"}, draws="9s2z", rinshan="9p", quiet=True, dora="3p"
    )
    g.do(0, Ankan(quad("1111m")))
    g.tsumogiri(0)
    g.pass_all()
    assert g.state.hand.players[1].drawn == T("2z")
    g.do(1, Tsumo())
    (win,) = g.wins()
    assert "chiihou" not in yaku(win) and win.yakuman == 0


def test_no_chiihou_on_the_second_draw() -> None:
    """Only the first draw counts."""
    g = Game.start({1: COMPLETE_ON_1Z}, draws="9p9m", late={5: "1z"}, quiet=True, dora="3p")
    g.tsumogiri(0)
    g.tsumogiri(1)
    g.pass_all()
    g.run_to(64)
    g.do(1, Tsumo())
    (win,) = g.wins()
    assert "chiihou" not in yaku(win)


# -- renhou ---------------------------------------------------------------------------------------


def test_renhou_none_is_not_a_yaku() -> None:
    """Tenhou (renhou = none): a ron before the first draw is no yaku, so a yakuless hand cannot ron."""
    g = Game.start({2: NO_YAKU_14M}, draws="1m", quiet=True)
    g.tsumogiri(0)
    assert g.legal(2) == frozenset()


def test_renhou_as_yakuman() -> None:
    """renhou = yakuman (docs/rules.md#option-renhou names it a yakuman in some rules): 32,000 from
    the discarder."""
    ruleset = TENHOU.with_options(renhou=RenhouValue.YAKUMAN)
    g = Game.start({2: NO_YAKU_14M}, draws="1m", quiet=True, ruleset=ruleset)
    g.tsumogiri(0)
    g.do(2, Ron())
    (win,) = g.wins()
    assert yaku(win) == {"renhou": 13} and win.points == 32000
    assert win.deltas == (-32000, 0, 32000, 0)


def test_renhou_as_mangan_ema() -> None:
    """docs/rules.md#option-renhou (EMA): renhou is a mangan, "not cumulative with other yaku and
    dora"."""
    g = Game.start({2: NO_YAKU_14M}, draws="1m", quiet=True, ruleset=EMA, dora="1m")
    g.tsumogiri(0)
    g.do(2, Ron())
    (win,) = g.wins()
    assert yaku(win) == {"renhou": 5}
    assert win.limit == "mangan" and win.points == 8000


@pytest.mark.parametrize("renhou", [RenhouValue.YAKUMAN, RenhouValue.MANGAN])
def test_no_renhou_after_the_players_first_draw(renhou: RenhouValue) -> None:
    """Renhou only before the player's own first draw: seat 1 has drawn and discarded."""
    ruleset = TENHOU.with_options(renhou=renhou)
    g = Game.start({1: NO_YAKU_14M}, draws="9p9m1m", quiet=True, ruleset=ruleset)
    g.tsumogiri(0)
    g.tsumogiri(1)
    g.pass_all()
    g.tsumogiri(2)  # 1m, seat 2's first discard, but seat 1 already drew
    assert g.legal(1) == frozenset()


def test_no_renhou_after_a_call() -> None:
    """Renhou needs an uninterrupted first go-around: seat 1's pon comes before seat 2's chance."""
    ruleset = TENHOU.with_options(renhou=RenhouValue.YAKUMAN)
    g = Game.start({1: "66z147m258p369s17z", 2: NO_YAKU_14M}, draws="6z", quiet=True, ruleset=ruleset)
    g.tsumogiri(0)
    g.do(1, Pon((T("6z"), T("6z"))))
    g.discard(1, "1m")  # a wait of seat 2, which has not drawn yet
    assert not g.state.hand.players[2].river
    assert Ron() not in g.legal(2)  # (a chi is offered)
