"""Round flow: the exhaustive draw (tenpai, formal tenpai, noten payments, nagashi mangan) and the
abortive draws (kyuushu kyuuhai, suufon renda, sanchahou; suucha riichi and suukaikan live in
test_round_ippatsu.py and test_round_kan.py).

Rules (docs/rules.md#ending-a-hand, the abortive-draw options in docs/rules.md): at an
exhaustive draw the noten players pay ``noten_payment_total`` shared by the tenpai players; a wait
whose four tiles are all the player's own is no wait (docs/rules.md#karaten, formal tenpai otherwise
counts); nagashi mangan (docs/rules.md#option-nagashi_mangan) pays a mangan as by tsumo to a player
whose discards are all terminals and honors, none called, and replaces the noten payments; kyuushu
kyuuhai is the player's choice on the first draw with nine kinds of terminals and honors and no
call; suufon renda: four identical wind first discards; sanchahou: three rons on one discard abort
under Tenhou's rules.
"""

from __future__ import annotations

import pytest

from server.engine.actions import Daiminkan, Discard, KyuushuKyuuhai, Pass, Pon, Ron
from server.engine.events import DrawReason, HandDrawn, HandWon, RoundStarted
from server.engine.rules import EMA, MAHJONGSOUL, TENHOU, Karaten, Ruleset
from server.engine.tiles import is_terminal_or_honor, kind, parse_tile, parse_tiles, tile_name
from tests.engine.scenario import Game

T = parse_tile

FOUR_TENPAI = {
    0: "123m456p789s1122z",  # waits 1z / 2z
    1: "123p456s789m3344z",  # waits 3z / 4z
    2: "123s456m789p5566z",  # waits 5z / 6z
    3: "234m567p678s77z88m",  # waits 7z / 8m
}


def _play_out(g: Game) -> HandDrawn:
    g.run_to(0)
    g.tsumogiri(g.state.hand.turn)
    g.pass_all()
    (drawn,) = g.of(HandDrawn)
    assert drawn.reason is DrawReason.EXHAUSTIVE
    return drawn


# -- exhaustive draw ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tenpai", "deltas"),
    [
        ((), (0, 0, 0, 0)),
        ((1,), (-1000, 3000, -1000, -1000)),
        ((0, 2), (1500, -1500, 1500, -1500)),
        ((0, 1, 3), (1000, 1000, -3000, 1000)),
        ((0, 1, 2, 3), (0, 0, 0, 0)),
    ],
)
def test_noten_payments(tenpai: tuple[int, ...], deltas: tuple[int, ...]) -> None:
    """docs/rules.md: the noten players pay 3,000 in total, shared out to the tenpai players."""
    g = Game.start({s: FOUR_TENPAI[s] for s in tenpai}, quiet=True)
    drawn = _play_out(g)
    assert drawn.tenpai == tuple(s in tenpai for s in range(4))
    assert drawn.deltas == deltas
    assert drawn.scores == tuple(25000 + d for d in deltas)
    for s in range(4):
        assert (drawn.hands[s] is not None) == (s in tenpai)  # only tenpai hands are shown
    assert drawn.nagashi == ()


def test_noten_payment_total_is_an_option() -> None:
    """Ruleset.noten_payment_total: 1,500 split 1:3 is 1,500 for the tenpai player, 500 from each."""
    g = Game.start({2: FOUR_TENPAI[2]}, quiet=True, ruleset=TENHOU.with_options(noten_payment_total=1500))
    assert _play_out(g).deltas == (-500, -500, 1500, -500)


def test_a_wait_on_four_own_tiles_is_noten_but_a_dead_wait_elsewhere_is_tenpai() -> None:
    """docs/rules.md#karaten: a hand waiting only on a tile whose four copies are all its own (a pon
    of 6z and the fourth 6z as its tanki) is noten when melds count (``karaten =
    concealed_and_melds``); a tanki on 3z whose other three copies are all in the dead wall is
    formal tenpai and counts."""
    g = Game.start(
        {1: "666z123m456p789s9p", 2: "234m345p678s1113z"},
        draws="6z",
        ura="3z3z3z",
        quiet=True,
        ruleset=TENHOU.with_options(karaten=Karaten.CONCEALED_AND_MELDS),
    )
    g.tsumogiri(0)
    g.do(1, Pon((T("6z"), T("6z"))))
    g.discard(1, "9p")
    g.pass_all()
    assert g.hand(1) == "123m456p789s6z"
    drawn = _play_out(g)
    assert drawn.tenpai == (False, False, True, False)
    assert drawn.deltas == (-1000, -1000, 3000, -1000)


@pytest.mark.parametrize(
    ("ruleset", "tenpai"),
    [
        (TENHOU, True),
        (MAHJONGSOUL, True),
        (EMA, False),
        (TENHOU.with_options(karaten=Karaten.CONCEALED_AND_MELDS), False),
        (EMA.with_options(karaten=Karaten.CONCEALED), True),
    ],
    ids=["tenhou", "mahjongsoul", "ema", "concealed_and_melds", "concealed"],
)
def test_karaten_with_the_four_tiles_in_the_hands_own_meld(ruleset: Ruleset, tenpai: bool) -> None:
    """docs/rules.md#karaten: 68m 567s 55z with a pon of 3m and an open kan of 7m waits only on 7m,
    whose four copies are in its own kan. ``karaten = concealed`` (Tenhou, Mahjong Soul) counts only
    the concealed tiles, so the hand is tenpai; ``concealed_and_melds`` (EMA) counts the kan too, so
    it is noten."""
    g = Game.start({1: "3367778m567s55z9p"}, draws="3m", late={3: "7m"}, ruleset=ruleset)
    g.tsumogiri(0)  # 3m
    g.do(1, Pon((T("3m"), T("3m"))))
    g.discard(1, "9p")
    g.pass_all()
    g.tsumogiri(2)
    g.pass_all()
    g.tsumogiri(3)
    g.pass_all()
    g.tsumogiri(0)  # 7m
    g.do(1, Daiminkan((T("7m"), T("7m"), T("7m"))))
    g.tsumogiri(1)  # the replacement tile
    g.pass_all()
    assert g.hand(1) == "68m567s55z"
    drawn = _play_out(g)
    assert drawn.tenpai == (False, tenpai, False, False)
    assert drawn.deltas == ((-1000, 3000, -1000, -1000) if tenpai else (0, 0, 0, 0))
    assert (drawn.hands[1] is not None) == tenpai


def test_exhaustive_draw_dealer_tenpai_keeps_the_deal() -> None:
    """docs/rules.md: after an exhaustive draw the dealer keeps the seat only if tenpai; honba + 1."""
    g = Game.start({0: FOUR_TENPAI[0]}, quiet=True)
    _play_out(g)
    nxt = g.of(RoundStarted)[-1]
    assert (nxt.kyoku, nxt.dealer, nxt.honba) == (0, 0, 1)


def test_exhaustive_draw_dealer_noten_passes_the_deal() -> None:
    """A noten dealer loses the deal; honba still goes up by one."""
    g = Game.start({1: FOUR_TENPAI[1]}, quiet=True)
    _play_out(g)
    nxt = g.of(RoundStarted)[-1]
    assert (nxt.kyoku, nxt.dealer, nxt.honba) == (1, 1, 1)


# -- nagashi mangan -------------------------------------------------------------------------------


def _late(seat: int, tiles: str) -> dict[int, str]:
    """Place ``tiles`` as the successive live draws of ``seat`` (draw numbers seat, seat + 4, ...)."""
    names = [tile_name(t) for t in parse_tiles(tiles)]
    return dict(zip(range(seat, 70, 4), names, strict=False))


NAGASHI_DRAWS = "1m9m1p9p1s9s5z6z7z1m9m1p9p1s9s5z6z7z"  # 18 terminals and honors


@pytest.mark.parametrize(
    ("seat", "deltas"), [(0, (12000, -4000, -4000, -4000)), (1, (-4000, 8000, -2000, -2000))]
)
def test_nagashi_mangan(seat: int, deltas: tuple[int, ...]) -> None:
    """docs/rules.md#option-nagashi_mangan: nagashi mangan - every discard a terminal or honor, none
    called: a mangan paid as by tsumo (dealer 4,000 all; non-dealer 4,000 / 2,000 / 2,000), instead
    of the noten payments."""
    g = Game.start({}, late=_late(seat, NAGASHI_DRAWS))
    drawn = _play_out(g)
    assert drawn.nagashi == (seat,)
    assert drawn.deltas == deltas
    # docs/rules.md: settled as a draw - honba + 1, and the (noten) dealer passes the deal.
    nxt = g.of(RoundStarted)[-1]
    assert (nxt.kyoku, nxt.honba) == (1, 1)


def test_nagashi_mangan_broken_by_a_called_discard() -> None:
    """docs/rules.md#option-nagashi_mangan: "none of them called": seat 2 pons seat 1's 7z, so seat
    1 gets no nagashi mangan."""
    late = _late(1, "1m9m1p9p1s9s5z6z1m9m1p9p1s9s5z6z7z")  # 7z is seat 1's 17th draw (#65)
    late[68] = "5z"
    late[69] = "6z"
    g = Game.start({2: "77z258m258p258s12z"}, late=late)
    g.run_to(4)  # seat 1 has drawn #65, the 7z
    assert g.state.hand.turn == 1 and g.state.hand.players[1].drawn == T("7z")
    g.tsumogiri(1)
    g.do(2, Pon((T("7z"), T("7z"))))
    g.discard(2, "2m")
    g.pass_all()
    river = g.state.hand.players[1].river
    drawn = _play_out(g)
    assert all(is_terminal_or_honor(kind(rt.tile)) for rt in river) and river[-1].called
    assert drawn.nagashi == ()
    assert drawn.deltas == (0, 0, 0, 0)


def test_nagashi_mangan_off() -> None:
    """nagashi_mangan = false (EMA): the same river is just noten."""
    g = Game.start({}, late=_late(1, NAGASHI_DRAWS), ruleset=EMA)
    drawn = _play_out(g)
    assert drawn.nagashi == () and drawn.deltas == (0, 0, 0, 0)


# -- kyuushu kyuuhai ------------------------------------------------------------------------------

NINE_KINDS = "19m19p1s1234z2578s"  # nine terminal/honor kinds: 1m 9m 1p 9p 1s 1z 2z 3z 4z


def test_kyuushu_kyuuhai_is_the_players_choice() -> None:
    """docs/rules.md: on the first draw with nine kinds of terminals and honors the player may abort
    (the hand is shown) or play on (discards stay legal)."""
    g = Game.start({0: NINE_KINDS}, draws="7p", quiet=True)
    legal = g.legal(0)
    assert KyuushuKyuuhai() in legal
    assert any(isinstance(a, Discard) for a in legal)
    g.do(0, KyuushuKyuuhai())
    (drawn,) = g.of(HandDrawn)
    assert drawn.reason is DrawReason.KYUUSHU_KYUUHAI
    assert drawn.deltas == (0, 0, 0, 0)
    assert drawn.hands[0] is not None and drawn.hands[1:] == (None, None, None)
    nxt = g.of(RoundStarted)[-1]
    assert (nxt.kyoku, nxt.honba) == (0, 1)


def test_kyuushu_kyuuhai_declined_plays_on() -> None:
    """Declining is simply discarding; the option is gone on the next turn."""
    g = Game.start({0: NINE_KINDS}, draws="7p", quiet=True)
    g.discard(0, "7p")
    g.pass_all()
    assert not g.of(HandDrawn)
    g.run_to(65)
    assert g.state.hand.turn == 0
    assert KyuushuKyuuhai() not in g.legal(0)


def test_kyuushu_kyuuhai_counts_the_drawn_tile_and_needs_nine_kinds() -> None:
    """Eight kinds plus a drawn ninth qualifies; eight kinds with a non-terminal draw does not."""
    eight = "19m19p1234z25678s"
    assert KyuushuKyuuhai() in Game.start({0: eight}, draws="7z", quiet=True).legal(0)
    assert KyuushuKyuuhai() not in Game.start({0: eight}, draws="7p", quiet=True).legal(0)


def test_no_kyuushu_kyuuhai_after_a_call() -> None:
    """Only while no call has been made: seat 2's pon comes before seat 3's first draw."""
    g = Game.start({2: "66z147m258p369s37z", 3: NINE_KINDS}, draws="6z", quiet=True)
    g.tsumogiri(0)
    g.do(2, Pon((T("6z"), T("6z"))))
    g.discard(2, "7z")
    g.pass_all()
    assert g.state.hand.turn == 3 and not g.state.hand.players[3].river
    assert KyuushuKyuuhai() not in g.legal(3)


def test_kyuushu_kyuuhai_for_a_non_dealer_first_draw() -> None:
    """A non-dealer's first draw qualifies too."""
    g = Game.start({1: NINE_KINDS}, draws="7p7s", quiet=True)
    g.tsumogiri(0)
    g.pass_all()
    assert KyuushuKyuuhai() in g.legal(1)


def test_kyuushu_kyuuhai_off() -> None:
    """abort_kyuushu_kyuuhai = false (EMA): not offered."""
    g = Game.start({0: NINE_KINDS}, draws="7p", quiet=True, ruleset=EMA)
    assert KyuushuKyuuhai() not in g.legal(0)


# -- suufon renda ---------------------------------------------------------------------------------

WIND_HANDS = {
    0: "1z147m258p369s567z",
    1: "1z258m369p147s567z",
    2: "1z369m147p258s567z",
    3: "1z258m258p258s234z",
}


def test_suufon_renda() -> None:
    """docs/rules.md: all four first discards the same wind with no call: an abortive draw."""
    g = Game.start(WIND_HANDS, draws="9m9p9s9m", quiet=True)
    for seat in range(4):
        g.discard(seat, "1z")
        g.pass_all()
    (drawn,) = g.of(HandDrawn)
    assert drawn.reason is DrawReason.SUUFON_RENDA
    nxt = g.of(RoundStarted)[-1]
    assert (nxt.kyoku, nxt.honba) == (0, 1)


def test_no_suufon_renda_with_a_different_wind() -> None:
    """Three easts and a south: play goes on."""
    g = Game.start(WIND_HANDS, draws="9m9p9s9m", quiet=True)
    for seat in range(3):
        g.discard(seat, "1z")
        g.pass_all()
    g.discard(3, "2z")
    g.pass_all()
    assert not g.of(HandDrawn)


def test_suufon_renda_off() -> None:
    """abort_suufon_renda = false (EMA): play goes on."""
    g = Game.start(WIND_HANDS, draws="9m9p9s9m", quiet=True, ruleset=EMA)
    for seat in range(4):
        g.discard(seat, "1z")
        g.pass_all()
    assert not g.of(HandDrawn)


# -- sanchahou ------------------------------------------------------------------------------------

THREE_ON_3M = {1: "12m456p789s111z22z", 2: "12m456s789p333z44z", 3: "12m456p789s555z66z"}


def test_sanchahou_aborts_on_tenhou() -> None:
    """docs/rules.md (abort_sanchahou, Tenhou): three rons on one discard are an abortive draw; the
    dealer deals again with one more honba."""
    g = Game.start(THREE_ON_3M, draws="3m", quiet=True)
    g.tsumogiri(0)
    for seat in (3, 1, 2):
        g.do(seat, Ron())
    assert not g.of(HandWon)
    (drawn,) = g.of(HandDrawn)
    assert drawn.reason is DrawReason.SANCHAHOU and drawn.deltas == (0, 0, 0, 0)
    assert drawn.hands[0] is None and all(h is not None for h in drawn.hands[1:])
    nxt = g.of(RoundStarted)[-1]
    assert (nxt.kyoku, nxt.honba) == (0, 1)


def test_two_rons_and_a_pass_are_a_double_ron() -> None:
    """With one of the three passing, Tenhou scores both rons."""
    g = Game.start(THREE_ON_3M, draws="3m", quiet=True)
    g.tsumogiri(0)
    g.do(1, Ron())
    g.do(2, Pass())
    g.do(3, Ron())
    assert [w.seat for w in g.of(HandWon)] == [1, 3]
    assert not g.of(HandDrawn)


def test_double_ron_without_sanchahou_abort_takes_the_first_two() -> None:
    """multiple_ron = double with abort_sanchahou off: of three claimants the two closest to the
    discarder's right win (MultipleRon.DOUBLE: "up to two winners")."""
    ruleset = TENHOU.with_options(abort_sanchahou=False)
    g = Game.start(THREE_ON_3M, draws="3m", quiet=True, ruleset=ruleset)
    g.tsumogiri(0)
    for seat in (3, 2, 1):
        g.do(seat, Ron())
    assert [w.seat for w in g.of(HandWon)] == [1, 2]
    assert not g.of(HandDrawn)


def test_triple_ron_scored_on_mahjongsoul() -> None:
    """mahjongsoul (multiple_ron = triple, no sanchahou): all three wins are paid."""
    g = Game.start(THREE_ON_3M, draws="3m", quiet=True, ruleset=MAHJONGSOUL)
    g.tsumogiri(0)
    for seat in (2, 3, 1):
        g.do(seat, Ron())
    assert [w.seat for w in g.of(HandWon)] == [1, 2, 3]
    assert not g.of(HandDrawn)
