"""Points tables and payments: ron/tsumo figures, honba, riichi sticks, multiple ron, pao, noten
payments and nagashi mangan."""

from __future__ import annotations

import pytest

from server.engine import payments, scoring
from server.engine.errors import RulesError
from server.engine.events import YakuScore
from server.engine.payments import (
    WinSettlement,
    hand_points,
    nagashi_payments,
    noten_payments,
    ron_points,
    settle_wins,
    tsumo_points,
)
from server.engine.rules import Pao, PaoScope, Ruleset
from server.engine.scoring import HandValue, points_limit
from tests.engine.doctests import run_doctests

TENHOU = Ruleset()
FULL = Ruleset(pao_scope=PaoScope.FULL)
PORTION = Ruleset(pao_scope=PaoScope.PORTION)


def ordinary(han: int, fu: int, ruleset: Ruleset = TENHOU) -> HandValue:
    limit, base = points_limit(han, fu, ruleset)
    return HandValue(han, fu, (YakuScore("riichi", han),), 0, limit, base)


def yakuman_value(*yaku: tuple[str, int]) -> HandValue:
    multiple = sum(m for _, m in yaku)
    pao = tuple((Pao(n), m) for n, m in yaku if n in set(Pao))
    scores = tuple(YakuScore(n, 13 * m) for n, m in yaku)
    return HandValue(13 * multiple, 30, scores, multiple, "yakuman", 8000 * multiple, pao)


# --- the points table ------------------------------------------------------------------------

# (han, fu, non-dealer ron, dealer ron, non-dealer tsumo (non-dealers, dealer), dealer tsumo each)
TABLE = [
    (1, 30, 1000, 1500, (300, 500), 500),
    (1, 40, 1300, 2000, (400, 700), 700),
    (1, 50, 1600, 2400, (400, 800), 800),
    (1, 60, 2000, 2900, (500, 1000), 1000),
    (1, 70, 2300, 3400, (600, 1200), 1200),
    (1, 80, 2600, 3900, (700, 1300), 1300),
    (1, 90, 2900, 4400, (800, 1500), 1500),
    (1, 100, 3200, 4800, (800, 1600), 1600),
    (1, 110, 3600, 5300, (900, 1800), 1800),
    (2, 20, 1300, 2000, (400, 700), 700),
    (2, 25, 1600, 2400, (400, 800), 800),
    (2, 30, 2000, 2900, (500, 1000), 1000),
    (2, 40, 2600, 3900, (700, 1300), 1300),
    (2, 50, 3200, 4800, (800, 1600), 1600),
    (2, 60, 3900, 5800, (1000, 2000), 2000),
    (2, 70, 4500, 6800, (1200, 2300), 2300),
    (2, 80, 5200, 7700, (1300, 2600), 2600),
    (2, 90, 5800, 8700, (1500, 2900), 2900),
    (2, 100, 6400, 9600, (1600, 3200), 3200),
    (2, 110, 7100, 10600, (1800, 3600), 3600),
    (3, 20, 2600, 3900, (700, 1300), 1300),
    (3, 25, 3200, 4800, (800, 1600), 1600),
    (3, 30, 3900, 5800, (1000, 2000), 2000),
    (3, 40, 5200, 7700, (1300, 2600), 2600),
    (3, 50, 6400, 9600, (1600, 3200), 3200),
    (3, 60, 7700, 11600, (2000, 3900), 3900),
    (3, 70, 8000, 12000, (2000, 4000), 4000),
    (4, 20, 5200, 7700, (1300, 2600), 2600),
    (4, 25, 6400, 9600, (1600, 3200), 3200),
    (4, 30, 7700, 11600, (2000, 3900), 3900),
    (4, 40, 8000, 12000, (2000, 4000), 4000),
    (5, 30, 8000, 12000, (2000, 4000), 4000),
    (6, 30, 12000, 18000, (3000, 6000), 6000),
    (7, 40, 12000, 18000, (3000, 6000), 6000),
    (8, 30, 16000, 24000, (4000, 8000), 8000),
    (10, 30, 16000, 24000, (4000, 8000), 8000),
    (11, 30, 24000, 36000, (6000, 12000), 12000),
    (12, 30, 24000, 36000, (6000, 12000), 12000),
    (13, 30, 32000, 48000, (8000, 16000), 16000),
]


@pytest.mark.parametrize("row", TABLE, ids=lambda row: f"{row[0]}han{row[1]}fu")
def test_points_table(row: tuple[int, int, int, int, tuple[int, int], int]) -> None:
    han, fu, ron, dealer_ron, tsumo, dealer_tsumo = row
    _, base = points_limit(han, fu, TENHOU)
    assert ron_points(base, dealer=False) == ron
    assert ron_points(base, dealer=True) == dealer_ron
    from_dealer, from_other = tsumo_points(base, dealer=False)
    assert (from_other, from_dealer) == tsumo
    assert tsumo_points(base, dealer=True) == (0, dealer_tsumo)


@pytest.mark.parametrize(
    ("han", "fu", "limit"),
    [(4, 30, ""), (4, 40, "mangan"), (3, 70, "mangan"), (5, 20, "mangan"), (6, 20, "haneman"),
     (7, 20, "haneman"), (8, 20, "baiman"), (10, 20, "baiman"), (11, 20, "sanbaiman"),
     (12, 20, "sanbaiman"), (13, 20, "kazoe_yakuman"), (20, 20, "kazoe_yakuman")],
)  # fmt: skip
def test_limit_names(han: int, fu: int, limit: str) -> None:
    assert points_limit(han, fu, TENHOU)[0] == limit


def test_golden_examples() -> None:
    assert ron_points(points_limit(4, 30, TENHOU)[1], False) == 7700
    assert ron_points(points_limit(4, 30, TENHOU)[1], True) == 11600
    assert ron_points(points_limit(4, 30, Ruleset(kiriage_mangan=True))[1], False) == 8000
    assert ron_points(points_limit(3, 60, Ruleset(kiriage_mangan=True))[1], True) == 12000
    assert tsumo_points(points_limit(1, 30, TENHOU)[1], False) == (500, 300)
    assert ron_points(points_limit(2, 25, TENHOU)[1], False) == 1600
    assert tsumo_points(points_limit(2, 20, TENHOU)[1], False) == (700, 400)
    assert ron_points(16000, False) == 64000  # double yakuman


def test_hand_points() -> None:
    v = ordinary(1, 30)
    assert hand_points(v, dealer=False, tsumo=False, ruleset=TENHOU) == 1000
    assert hand_points(v, dealer=False, tsumo=True, ruleset=TENHOU) == 1100  # 500 + 300 + 300
    assert hand_points(v, dealer=True, tsumo=True, ruleset=TENHOU) == 1500
    assert hand_points(v, dealer=True, tsumo=False, ruleset=TENHOU) == 1500


# --- ordinary settlements --------------------------------------------------------------------


def test_ron_with_honba_and_sticks() -> None:
    win = WinSettlement(winner=1, loser=2, value=ordinary(4, 30))
    assert settle_wins([win], dealer=0, honba=0, riichi_sticks=0, ruleset=TENHOU) == ((0, 7700, -7700, 0),)
    assert settle_wins([win], dealer=0, honba=2, riichi_sticks=3, ruleset=TENHOU) == (
        (0, 7700 + 600 + 3000, -8300, 0),
    )


def test_dealer_ron() -> None:
    win = WinSettlement(winner=0, loser=3, value=ordinary(4, 30))
    assert settle_wins([win], dealer=0, honba=1, riichi_sticks=0, ruleset=TENHOU) == ((11900, 0, 0, -11900),)


def test_non_dealer_tsumo_with_honba() -> None:
    win = WinSettlement(winner=2, loser=None, value=ordinary(1, 30))
    assert settle_wins([win], dealer=1, honba=2, riichi_sticks=1, ruleset=TENHOU) == (
        (-500, -700, 2700, -500),
    )


def test_dealer_tsumo() -> None:
    win = WinSettlement(winner=3, loser=None, value=ordinary(5, 30))
    assert settle_wins([win], dealer=3, honba=1, riichi_sticks=0, ruleset=TENHOU) == (
        (-4100, -4100, -4100, 12300),
    )


def test_honba_value_option() -> None:
    win = WinSettlement(winner=1, loser=None, value=ordinary(1, 30))
    rules = Ruleset(honba_value=1500)
    assert settle_wins([win], dealer=0, honba=1, riichi_sticks=0, ruleset=rules) == (
        (-1000, 2600, -800, -800),
    )


def test_double_ron_honba_and_sticks_to_the_first_winner_only() -> None:
    first = WinSettlement(winner=3, loser=2, value=ordinary(2, 30))
    second = WinSettlement(winner=0, loser=2, value=ordinary(1, 30))  # the dealer
    deltas = settle_wins([first, second], dealer=0, honba=2, riichi_sticks=2, ruleset=TENHOU)
    assert deltas == ((0, 0, -2600, 4600), (1500, 0, -1500, 0))


def test_triple_ron() -> None:
    wins = [WinSettlement(s, 0, ordinary(1, 30)) for s in (1, 2, 3)]
    deltas = settle_wins(wins, dealer=0, honba=1, riichi_sticks=1, ruleset=TENHOU)
    assert deltas == ((-1300, 2300, 0, 0), (-1000, 0, 1000, 0), (-1000, 0, 0, 1000))


def test_points_are_conserved_apart_from_sticks() -> None:
    for win in (
        WinSettlement(1, None, ordinary(3, 40)),
        WinSettlement(0, None, ordinary(2, 70)),
        WinSettlement(2, 3, ordinary(6, 30)),
    ):
        (deltas,) = settle_wins([win], dealer=0, honba=3, riichi_sticks=2, ruleset=TENHOU)
        assert sum(deltas) == 2000


def test_bad_settlements_raise() -> None:
    v = ordinary(1, 30)
    with pytest.raises(RulesError):
        settle_wins([], dealer=0, honba=0, riichi_sticks=0, ruleset=TENHOU)
    with pytest.raises(RulesError, match="tsumo"):
        settle_wins(
            [WinSettlement(1, None, v), WinSettlement(2, 1, v)],
            dealer=0,
            honba=0,
            riichi_sticks=0,
            ruleset=TENHOU,
        )
    with pytest.raises(RulesError, match="discarder"):
        settle_wins(
            [WinSettlement(1, 0, v), WinSettlement(2, 3, v)],
            dealer=0,
            honba=0,
            riichi_sticks=0,
            ruleset=TENHOU,
        )
    with pytest.raises(RulesError, match="seats"):
        settle_wins(
            [WinSettlement(1, 0, v), WinSettlement(1, 0, v)],
            dealer=0,
            honba=0,
            riichi_sticks=0,
            ruleset=TENHOU,
        )
    with pytest.raises(RulesError, match="discarder"):
        settle_wins([WinSettlement(1, 1, v)], dealer=0, honba=0, riichi_sticks=0, ruleset=TENHOU)
    with pytest.raises(RulesError, match="pao"):
        settle_wins(
            [WinSettlement(1, 0, yakuman_value(("daisangen", 1)), pao_seat=1)],
            dealer=0,
            honba=0,
            riichi_sticks=0,
            ruleset=TENHOU,
        )


# --- pao -------------------------------------------------------------------------------------


def test_pao_tsumo_liable_player_pays_everything_with_honba() -> None:
    win = WinSettlement(winner=1, loser=None, value=yakuman_value(("daisangen", 1)), pao_seat=3)
    assert settle_wins([win], dealer=0, honba=1, riichi_sticks=1, ruleset=FULL) == ((0, 33300, 0, -32300),)


def test_pao_tsumo_dealer_winner() -> None:
    win = WinSettlement(winner=0, loser=None, value=yakuman_value(("daisuushii", 1)), pao_seat=2)
    assert settle_wins([win], dealer=0, honba=0, riichi_sticks=0, ruleset=FULL) == ((48000, 0, -48000, 0),)


def test_pao_ron_split_in_half_and_honba_on_the_liable_player() -> None:
    # Tenhou/Mahjong Soul record: 2 honba, non-dealer yakuman, discarder 16000, liable 16600.
    win = WinSettlement(winner=3, loser=2, value=yakuman_value(("daisangen", 1)), pao_seat=0)
    assert settle_wins([win], dealer=0, honba=2, riichi_sticks=0, ruleset=FULL) == (
        (-16600, 0, -16000, 32600),
    )


def test_pao_ron_by_the_liable_player_pays_all() -> None:
    win = WinSettlement(winner=3, loser=0, value=yakuman_value(("daisangen", 1)), pao_seat=0)
    assert settle_wins([win], dealer=0, honba=1, riichi_sticks=0, ruleset=FULL) == ((-32300, 0, 0, 32300),)


def test_pao_portion_tsumo_composite() -> None:
    # riichi wiki example: 1 honba, south wins daisangen + tsuuiisou by tsumo, west liable.
    win = WinSettlement(
        winner=1, loser=None, value=yakuman_value(("daisangen", 1), ("tsuuiisou", 1)), pao_seat=2
    )
    assert settle_wins([win], dealer=0, honba=1, riichi_sticks=0, ruleset=PORTION) == (
        (-16000, 64300, -40300, -8000),
    )
    # full scope: the liable player pays the whole hand
    assert settle_wins([win], dealer=0, honba=1, riichi_sticks=0, ruleset=FULL) == ((0, 64300, -64300, 0),)


def test_pao_portion_ron_composite() -> None:
    # south wins daisangen + tsuuiisou on east's discard, west liable for daisangen: 1 honba
    win = WinSettlement(
        winner=1, loser=0, value=yakuman_value(("daisangen", 1), ("tsuuiisou", 1)), pao_seat=2
    )
    assert settle_wins([win], dealer=0, honba=1, riichi_sticks=0, ruleset=PORTION) == (
        (-48000, 64300, -16300, 0),
    )
    assert settle_wins([win], dealer=0, honba=1, riichi_sticks=0, ruleset=FULL) == (
        (-32000, 64300, -32300, 0),
    )


def test_pao_only_for_listed_yakuman_and_named_one() -> None:
    value = yakuman_value(("suukantsu", 1))
    win = WinSettlement(winner=1, loser=None, value=value, pao_seat=2)
    normal = ((-16000, 32000, -8000, -8000),)
    assert settle_wins([win], dealer=0, honba=0, riichi_sticks=0, ruleset=FULL) == normal  # not in pao
    with_suukantsu = FULL.with_options(pao=["daisangen", "suukantsu"])
    assert settle_wins([win], dealer=0, honba=0, riichi_sticks=0, ruleset=with_suukantsu) == (
        (0, 32000, -32000, 0),
    )
    named = WinSettlement(winner=1, loser=None, value=value, pao_seat=2, pao_yakuman=Pao.DAISANGEN)
    assert settle_wins([named], dealer=0, honba=0, riichi_sticks=0, ruleset=with_suukantsu) == normal
    no_pao = Ruleset(pao=frozenset())
    dai = WinSettlement(winner=1, loser=None, value=yakuman_value(("daisangen", 1)), pao_seat=2)
    assert settle_wins([dai], dealer=0, honba=0, riichi_sticks=0, ruleset=no_pao) == normal
    assert Pao.SUUKANTSU in with_suukantsu.pao


def test_pao_in_a_double_ron_honba_still_with_the_first_winner() -> None:
    first = WinSettlement(winner=2, loser=1, value=ordinary(1, 30))
    second = WinSettlement(winner=3, loser=1, value=yakuman_value(("daisangen", 1)), pao_seat=0)
    deltas = settle_wins([first, second], dealer=0, honba=1, riichi_sticks=1, ruleset=FULL)
    assert deltas == ((0, -1300, 2300, 0), (-16000, -16000, 0, 32000))


# --- exhaustive draw -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tenpai", "deltas"),
    [
        ((False, False, False, False), (0, 0, 0, 0)),
        ((True, True, True, True), (0, 0, 0, 0)),
        ((True, False, False, False), (3000, -1000, -1000, -1000)),
        ((False, False, True, False), (-1000, -1000, 3000, -1000)),
        ((True, False, True, False), (1500, -1500, 1500, -1500)),
        ((False, True, True, False), (-1500, 1500, 1500, -1500)),
        ((True, True, True, False), (1000, 1000, 1000, -3000)),
        ((False, True, True, True), (-3000, 1000, 1000, 1000)),
    ],
)
def test_noten_payments(tenpai: tuple[bool, ...], deltas: tuple[int, ...]) -> None:
    assert noten_payments(tenpai, TENHOU) == deltas


def test_noten_payment_total_option() -> None:
    assert noten_payments((True, False, False, False), Ruleset(noten_payment_total=6000)) == (
        6000,
        -2000,
        -2000,
        -2000,
    )
    with pytest.raises(RulesError):
        noten_payments((True, False), TENHOU)


def test_nagashi_mangan() -> None:
    assert nagashi_payments([2], dealer=0, ruleset=TENHOU) == (-4000, -2000, 8000, -2000)
    assert nagashi_payments([0], dealer=0, ruleset=TENHOU) == (12000, -4000, -4000, -4000)
    assert nagashi_payments([0, 2], dealer=0, ruleset=TENHOU) == (8000, -6000, 4000, -6000)
    assert nagashi_payments([], dealer=0, ruleset=TENHOU) == (0, 0, 0, 0)
    with pytest.raises(RulesError):
        nagashi_payments([1], dealer=0, ruleset=Ruleset(nagashi_mangan=False))


def test_doctests_of_scoring_and_payments() -> None:
    for module in (scoring, payments):
        result = run_doctests(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__
