"""Scoring through real hands: the points table, dora and red fives, honba, riichi sticks, multiple
ron per ruleset, and pao.

Rules (docs/rules.md#payments, docs/rules.md "Payments and liability", "Ending a hand"): basic
points fu x 2^(han+2) capped at mangan; a non-dealer ron pays 4x basic, a dealer ron 6x, tsumo 1x /
2x per payer, each rounded up to 100; honba ``honba_value`` (300) per counter paid by the loser(s);
riichi sticks on the table go to the winner, with several winners to "the player closest to the
discarding player" (docs/rules.md#sticks-and-honba), as do the honba (Tenhou); ``multiple_ron`` head
bump (EMA) / double (Tenhou) / triple (Mahjong Soul); pao: feeding the third dragon set makes the
feeder pay a tsumo alone and half of a ron (docs/rules.md#pao "liability payment").
"""

from __future__ import annotations

import pytest

from server.engine.actions import Pass, Pon, Ron, Tsumo
from server.engine.events import HandWon, RoundStarted
from server.engine.rules import EMA, TENHOU, Ruleset
from server.engine.tiles import parse_tile
from tests.engine.scenario import Game

T = parse_tile

PINFU_TANYAO = "234m567p234s56s88p"  # ryanmen 4s / 7s: pinfu + tanyao, 30 fu ron, 20 fu tsumo
PINFU_TANYAO_RED = "234m067p234s56s88p"  # the same with a red 5p (aka dora 1)
DORA = {"9s": 0, "1m": 1, "7p": 2}  # indicator -> dora in the hand (9s -> 1s none, 1m -> 2m, 7p -> 88p)


def yaku(win: HandWon) -> dict[str, int]:
    return {y.name: y.han for y in win.yaku}


def _ron(winner: int, hand: str, dora: str, ruleset: Ruleset = TENHOU) -> HandWon:
    """``winner`` rons the next seat's first-turn tsumogiri of 7s."""
    discarder = (winner + 1) % 4
    draws = ["9m"] * 4
    draws[discarder] = "7s"
    g = Game.start(
        {winner: hand}, draws="".join(draws[: discarder + 1]), dora=dora, quiet=True, ruleset=ruleset
    )
    for seat in range(discarder):
        g.tsumogiri(seat)
        g.pass_all()
    g.tsumogiri(discarder)
    g.do(winner, Ron())
    (win,) = g.wins()
    assert win.from_seat == discarder
    return win


def _tsumo(winner: int, hand: str, dora: str) -> HandWon:
    """``winner`` tsumos 7s on its second draw (no tenhou / chiihou)."""
    g = Game.start({winner: hand}, dora=dora, late={winner + 4: "7s"}, quiet=True)
    g.run_to(70 - winner - 5)
    assert g.state.hand.turn == winner
    g.do(winner, Tsumo())
    (win,) = g.wins()
    return win


# -- the points table -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dora", "red", "han", "points"),
    [("9s", False, 2, 2000), ("1m", False, 3, 3900), ("7p", False, 4, 7700), ("7p", True, 5, 8000)],
)
def test_points_non_dealer_ron_30_fu(dora: str, red: bool, han: int, points: int) -> None:
    """Golden table: a non-dealer ron at 30 fu is 2,000 / 3,900 / 7,700 for 2 / 3 / 4 han, and 5 han
    is a mangan (8,000). 30 fu 4 han = 7,700 without kiriage mangan."""
    win = _ron(1, PINFU_TANYAO_RED if red else PINFU_TANYAO, dora)
    assert (win.han, win.fu, win.points) == (han, 30, points)
    assert {"pinfu", "tanyao"} <= set(yaku(win))
    assert yaku(win).get("dora", 0) == DORA[dora]
    assert yaku(win).get("aka_dora", 0) == (1 if red else 0)
    assert win.deltas == (0, points, -points, 0)


@pytest.mark.parametrize(
    ("dora", "red", "points"),
    [("9s", False, 2900), ("1m", False, 5800), ("7p", False, 11600), ("7p", True, 12000)],
)
def test_points_dealer_ron_30_fu(dora: str, red: bool, points: int) -> None:
    """Golden table: a dealer ron at 30 fu is 2,900 / 5,800 / 11,600 for 2 / 3 / 4 han; 5 han 12,000."""
    win = _ron(0, PINFU_TANYAO_RED if red else PINFU_TANYAO, dora)
    assert (win.fu, win.points) == (30, points)
    assert win.deltas == (points, -points, 0, 0)


@pytest.mark.parametrize(
    ("dora", "han", "deltas"),
    [
        ("9s", 3, (-1300, 2700, -700, -700)),  # 20 fu 3 han: 700 / 1,300
        ("1m", 4, (-2600, 5200, -1300, -1300)),  # 20 fu 4 han: 1,300 / 2,600
        ("7p", 5, (-4000, 8000, -2000, -2000)),  # mangan: 2,000 / 4,000
    ],
)
def test_points_non_dealer_tsumo_pinfu(dora: str, han: int, deltas: tuple[int, ...]) -> None:
    """Golden table: pinfu tsumo is 20 fu; a non-dealer tsumo pays 1x basic, the dealer 2x."""
    win = _tsumo(1, PINFU_TANYAO, dora)
    assert (win.han, win.fu) == (han, 20)
    assert {"pinfu", "tanyao", "menzen_tsumo"} <= set(yaku(win))
    assert win.deltas == deltas
    assert win.points == deltas[1]


@pytest.mark.parametrize(("dora", "each"), [("9s", 1300), ("1m", 2600), ("7p", 4000)])
def test_points_dealer_tsumo_pinfu(dora: str, each: int) -> None:
    """Golden table: a dealer tsumo at 20 fu is 1,300 / 2,600 all for 3 / 4 han, mangan 4,000 all."""
    win = _tsumo(0, PINFU_TANYAO, dora)
    assert win.deltas == (3 * each, -each, -each, -each)


def test_kiriage_mangan_rounds_30_fu_4_han_up() -> None:
    """kiriage_mangan: 4 han 30 fu is paid as a mangan (8,000) instead of 7,700."""
    win = _ron(1, PINFU_TANYAO, "7p", ruleset=TENHOU.with_options(kiriage_mangan=True))
    assert win.points == 8000


def test_no_red_fives_no_aka_dora() -> None:
    """red_fives = (0, 0, 0): a five is just a five (EMA has no aka dora)."""
    win = _ron(1, PINFU_TANYAO, "9s", ruleset=EMA)
    assert "aka_dora" not in yaku(win)


# -- honba and riichi sticks ----------------------------------------------------------------------


def test_honba_on_a_ron_is_paid_by_the_discarder() -> None:
    """300 per honba from the discarder: 2 honba add 600 to a 2,000 ron."""
    g = Game.at({1: PINFU_TANYAO}, "9m9m7s", honba=2, dora="9s")
    g.tsumogiri(0)
    g.pass_all()
    g.tsumogiri(1)
    g.pass_all()
    g.tsumogiri(2)
    g.do(1, Ron())
    (win,) = g.wins()
    assert win.points == 2000
    assert win.deltas == (0, 2600, -2600, 0)


def test_honba_on_a_tsumo_is_shared_by_the_payers() -> None:
    """100 per honba from each payer of a tsumo: 700 / 1,300 + 2 honba = 900 / 1,500."""
    g = Game.at({1: PINFU_TANYAO}, honba=2, dora="9s", late={5: "7s"})
    g.run_to(64)
    g.do(1, Tsumo())
    (win,) = g.wins()
    assert win.deltas == (-1500, 3300, -900, -900)


def test_riichi_sticks_on_the_table_go_to_the_winner() -> None:
    """docs/rules.md#sticks-and-honba: the deposits are "collected by the next player to win a
    hand": 2 sticks = 2,000."""
    g = Game.at({1: PINFU_TANYAO}, "9m9m7s", sticks=2, dora="9s", scores=(24000, 25000, 24000, 25000))
    for seat in (0, 1):
        g.tsumogiri(seat)
        g.pass_all()
    g.tsumogiri(2)
    g.do(1, Ron())
    (win,) = g.wins()
    assert win.deltas == (0, 4000, -2000, 0)
    assert g.of(RoundStarted)[-1].riichi_sticks == 0


# -- multiple ron ---------------------------------------------------------------------------------

# Seat 1 discards 3m; seat 0 (dealer, double east) and seat 3 (haku) both wait on it (penchan 12m).
TWO_ON_3M = {0: "12m456p789s111z22z", 3: "12m456s789p555z66z"}


def _double_ron(scores: tuple[int, int, int, int], ruleset: Ruleset = TENHOU) -> Game:
    """Honba 1 and one riichi stick on the table; seat 1 discards 3m on its first turn."""
    g = Game.at(TWO_ON_3M, "9m3m", honba=1, sticks=1, ruleset=ruleset, scores=scores)
    g.tsumogiri(0)
    g.pass_all()
    g.tsumogiri(1)  # 3m
    assert {0, 3} <= set(g.pending())
    return g


def test_double_ron_honba_and_sticks_to_the_first_winner_from_the_discarder() -> None:
    """Tenhou double ron: both wins are paid; honba and sticks go to the winner closest to the
    discarder's right (seat 1 discards: seat 3 comes before seat 0), not to the dealer."""
    g = _double_ron((25000, 25000, 25000, 24000))
    g.do(0, Ron())
    g.do(3, Ron())
    wins = g.wins()
    assert [w.seat for w in wins] == [3, 0]  # ordered from the discarder's right
    first, second = wins
    assert first.deltas == (0, -(first.points + 300), 0, first.points + 300 + 1000)
    assert second.deltas == (second.points, -second.points, 0, 0)
    assert first.points > 0 and second.points > 0
    assert g.state.riichi_sticks == 0
    nxt = g.of(RoundStarted)[-1]  # the dealer (seat 0) is one of the winners: renchan
    assert (nxt.kyoku, nxt.honba) == (0, 2)


def test_head_bump_only_the_first_claimant_wins() -> None:
    """EMA (multiple_ron = head_bump, atamahane): only the first claimant from the discarder's right
    wins; the other ron is ignored."""
    g = _double_ron((30000, 30000, 30000, 29000), EMA)
    g.do(0, Ron())
    g.do(3, Ron())
    (win,) = g.wins()
    assert win.seat == 3
    assert win.deltas[3] == win.points + 300 + 1000 and win.deltas[0] == 0


def test_head_bump_the_passed_seat_does_not_block() -> None:
    """If the first claimant passes, the next one wins under head bump."""
    g = _double_ron((30000, 30000, 30000, 29000), EMA)
    g.do(3, Pass())
    g.do(0, Ron())
    (win,) = g.wins()
    assert win.seat == 0


# -- pao ------------------------------------------------------------------------------------------

DAISANGEN = "55z66z77z123m9s123z"  # three dragon pairs; discards 1z 2z 3z; tanki 9s at the end


def _daisangen_fed_by_seat_2(late: dict[int, str]) -> Game:
    """Seat 1 pons 5z (seat 0), 6z and 7z (both seat 2): seat 2 fed the third dragon set."""
    g = Game.start({1: DAISANGEN}, draws="5z6z7z", late=late, dora="9p")
    g.tsumogiri(0)
    g.do(1, Pon((T("5z"), T("5z"))))
    g.discard(1, "1z")
    g.tsumogiri(2)
    g.do(1, Pon((T("6z"), T("6z"))))
    g.discard(1, "2z")
    g.tsumogiri(2)
    g.do(1, Pon((T("7z"), T("7z"))))
    assert g.state.hand.players[1].pao_seat == 2
    g.discard(1, "3z")
    g.pass_all()
    return g


def test_pao_daisangen_tsumo_paid_by_the_feeder_alone() -> None:
    """docs/rules.md#pao liability: on a tsumo the player who fed the third dragon pon pays the
    whole yakuman."""
    g = _daisangen_fed_by_seat_2({6: "9s"})
    g.run_to(63)  # seats 2, 3, 0 draw, then seat 1
    assert g.state.hand.turn == 1 and g.state.hand.players[1].drawn == T("9s")
    g.do(1, Tsumo())
    (win,) = g.wins()
    assert win.pao_seat == 2 and win.yakuman == 1
    assert win.deltas == (0, 32000, -32000, 0)


def test_pao_daisangen_ron_shared_with_the_discarder() -> None:
    """docs/rules.md#pao liability: on a ron by another player the feeder and the discarder pay half
    each."""
    g = _daisangen_fed_by_seat_2({4: "9s"})
    g.tsumogiri(2)
    g.pass_all()
    assert g.state.hand.players[3].drawn == T("9s")
    g.tsumogiri(3)
    g.do(1, Ron())
    (win,) = g.wins()
    assert win.pao_seat == 2
    assert win.deltas == (0, 32000, -16000, -16000)


def test_pao_daisangen_ron_from_the_feeder_is_paid_by_the_feeder() -> None:
    """If the liable player also deals in, they pay the whole yakuman."""
    g = _daisangen_fed_by_seat_2({3: "9s"})
    assert g.state.hand.players[2].drawn == T("9s")
    g.tsumogiri(2)
    g.do(1, Ron())
    (win,) = g.wins()
    assert win.pao_seat == 2
    assert win.deltas == (0, 32000, -32000, 0)
