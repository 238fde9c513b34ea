"""Three-player mahjong (docs/rules.md#three-player-mahjong): the set, the deal, no chi, norths set
aside, tsumo loss, honba, noten payments, the rotation and the final points. Tenhou's own records
check the same rules hand by hand (tests/records/test_sanma.py)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from server.engine import new_match
from server.engine.actions import Chi, Nukidora, Pon, Ron
from server.engine.endings import next_hand
from server.engine.events import MatchEnded, NorthDeclared, TileDrawn
from server.engine.payments import WinSettlement, nagashi_payments, noten_payments, settle_wins
from server.engine.rules import MAHJONGSOUL_SANMA, TENHOU, TENHOU_SANMA, Pao, Ruleset, SanmaTsumo
from server.engine.scoring import HandValue, WinContext, evaluate_win
from server.engine.state import Phase
from server.engine.tiles import EAST, NORTH, WEST, full_set, kind, parse_tile, parse_tiles
from server.engine.wall import layout_of, make_wall, replacement_position
from tests.engine.scenario import Game, spare_walls
from tests.engine.test_properties import _play

SANMA = TENHOU_SANMA


def test_the_three_player_set_has_108_tiles_without_2m_to_8m() -> None:
    tiles = full_set(SANMA.red_fives, 3)
    assert len(tiles) == 108
    assert not {kind(t) for t in tiles} & set(range(1, 8))
    assert Counter(kind(t) for t in tiles)[0] == 4 and Counter(kind(t) for t in tiles)[8] == 4
    wall = make_wall(b"seed", 0, SANMA.red_fives, 3)
    assert sorted(wall) == sorted(tiles)
    lay = layout_of(wall)
    assert (lay.seats, lay.dealt, lay.live_tiles) == (3, 39, 55)


def test_three_seats_are_dealt_and_score_35000() -> None:
    state = new_match(SANMA, b"deal").state
    assert len(state.hand.players) == 3 and state.scores == (35000,) * 3
    assert [len(p.hand) for p in state.hand.players] == [14, 13, 13]
    assert state.hand.live_remaining == 55 - 1


def test_four_player_walls_and_events_are_unchanged_by_seats() -> None:
    """The seat count is data: a four-player wall is the one it always was."""
    assert make_wall(b"seed", 3, (1, 1, 1)) == make_wall(b"seed", 3, (1, 1, 1), 4)
    assert "seats" not in TENHOU.to_json() and "north_bonus" not in TENHOU.to_json()


def test_no_chi_only_pon() -> None:
    hands = {0: "19p19m19s1234567z", 1: "238p11s19m99s5677z"}
    game = Game.start(hands, "5z", ruleset=SANMA)
    game.discard(0, "1p")
    assert game.state.hand.phase is Phase.TURN and game.state.hand.turn == 1  # nobody was asked
    with_chi = Game.start(hands, "5z", ruleset=SANMA.with_options(chi=True))
    with_chi.discard(0, "1p")
    assert any(isinstance(a, Chi) for a in with_chi.legal(1))
    game = Game.start({0: "19p19m19s1234567z", 1: "118p23s19m99s5677z"}, "5z", ruleset=SANMA)
    game.discard(0, "1p")
    assert any(isinstance(a, Pon) for a in game.legal(1))


def test_a_north_is_set_aside_for_a_replacement_draw() -> None:
    game = Game.start({0: "4z19m19p19s123567z"}, "8p", rinshan="2s", ruleset=SANMA)
    assert Nukidora() in game.legal(0)
    before = game.state.hand.live_remaining
    events = game.do(0, Nukidora())
    assert isinstance(events[0], NorthDeclared) and events[0].seat == 0
    draw = next(e for e in events if isinstance(e, TileDrawn))
    assert draw.rinshan and draw.tile == parse_tile("2s")
    hand = game.state.hand
    assert hand.players[0].norths == 1 and NORTH not in hand.players[0].hand
    assert hand.live_remaining == before - 1
    assert hand.wall[replacement_position(layout_of(hand.wall), 0)] == parse_tile("2s")
    # The first go-around is over for everyone (no double riichi, tenhou or chiihou after it).
    assert not hand.no_calls


def test_no_north_without_the_rule_or_the_tile() -> None:
    game = Game.start({0: "4z19m19p19s123567z"}, "8p", ruleset=SANMA.with_options(north_bonus=False))
    assert Nukidora() not in game.legal(0)
    game = Game.start({0: "5z19m19p19s123567z"}, "8p", ruleset=SANMA)
    assert Nukidora() not in game.legal(0)


def test_a_declared_north_can_be_won_on_without_chankan() -> None:
    # Seat 1 waits on north alone, with a haku triplet for its yaku.
    game = Game.start(
        {0: "4z19m19p19s123667z", 1: "111p222s999s5554z"},
        "8p",
        rinshan="2s",
        ruleset=SANMA,
        extra_walls=spare_walls(SANMA),
    )
    game.do(0, Nukidora())
    assert Ron() in game.legal(1)
    game.do(1, Ron())
    win = game.wins()[0]
    assert (win.seat, win.from_seat, win.win_tile) == (1, 0, NORTH)
    assert "chankan" not in {y.name for y in win.yaku}
    no_ron = SANMA.with_options(north_ron=False)
    game = Game.start({0: "4z19m19p19s123667z", 1: "111p222s999s5554z"}, "8p", rinshan="2s", ruleset=no_ron)
    game.do(0, Nukidora())
    assert game.state.hand.players[0].drawn == parse_tile("2s")  # no window: the replacement came


def _value(han: int = 1) -> HandValue:
    return HandValue(han=han, fu=30, yaku=(), yakuman=0, limit="mangan", base_points=2000)


def test_tsumo_loss_and_north_bisection() -> None:
    mangan = WinSettlement(winner=1, loser=None, value=_value())
    loss = settle_wins([mangan], dealer=0, honba=0, riichi_sticks=0, ruleset=SANMA)
    assert loss == ((-4000, 6000, -2000),)
    bisect = SANMA.with_options(sanma_tsumo=SanmaTsumo.NORTH_BISECTION)
    assert settle_wins([mangan], dealer=0, honba=0, riichi_sticks=0, ruleset=bisect) == (
        (-5000, 8000, -3000),
    )
    dealer_win = WinSettlement(winner=0, loser=None, value=_value())
    assert settle_wins([dealer_win], dealer=0, honba=0, riichi_sticks=0, ruleset=SANMA) == (
        (8000, -4000, -4000),
    )
    assert settle_wins([dealer_win], dealer=0, honba=0, riichi_sticks=0, ruleset=bisect) == (
        (12000, -6000, -6000),
    )


def test_honba_is_200_per_counter_split_on_a_tsumo() -> None:
    tsumo = WinSettlement(winner=1, loser=None, value=_value())
    assert settle_wins([tsumo], dealer=0, honba=2, riichi_sticks=1, ruleset=SANMA) == ((-4200, 7400, -2200),)
    ron = WinSettlement(winner=1, loser=2, value=_value())
    assert settle_wins([ron], dealer=0, honba=2, riichi_sticks=0, ruleset=SANMA) == ((0, 8400, -8400),)
    assert MAHJONGSOUL_SANMA.honba_value == 200


def test_noten_payments_share_2000() -> None:
    assert noten_payments([True, False, False], SANMA) == (2000, -1000, -1000)
    assert noten_payments([True, True, False], SANMA) == (1000, 1000, -2000)
    assert noten_payments([True, True, True], SANMA) == (0, 0, 0)


def test_nagashi_mangan_is_a_mangan_tsumo_with_two_payers() -> None:
    assert nagashi_payments([2], dealer=0, ruleset=SANMA) == (-4000, -2000, 6000)


def test_three_kyoku_per_round_wind() -> None:
    state = new_match(SANMA, b"rotation").state
    hand = state.hand
    east3 = type(hand)(**{**{f: getattr(hand, f) for f in hand.__dataclass_fields__}, "kyoku": 2})
    assert next_hand(SANMA, (35000,) * 3, east3, renchan=False, won=True, tenpai=False) == (1, 0)
    south3 = type(hand)(
        **{**{f: getattr(hand, f) for f in hand.__dataclass_fields__}, "round_wind": 1, "kyoku": 2}
    )
    assert next_hand(SANMA, (50000, 30000, 25000), south3, renchan=False, won=True, tenpai=False) is None


def test_dora_wraps_from_1m_to_9m() -> None:
    hand = parse_tiles("99m123p456p789s11z")
    ctx = WinContext(
        concealed=(*hand, parse_tile("1z")),
        melds=(),
        win_tile=parse_tile("1z"),
        is_tsumo=True,
        seat_wind=EAST,
        round_wind=EAST,
        is_dealer=True,
        dora_indicators=(parse_tile("1m"),),
    )
    sanma = evaluate_win(ctx, SANMA)
    four = evaluate_win(ctx, TENHOU)
    assert sanma is not None and four is not None
    assert {y.name: y.han for y in sanma.yaku}.get("dora") == 2
    assert "dora" not in {y.name for y in four.yaku}


def test_norths_set_aside_are_bonus_dora_and_dora_under_a_west_indicator() -> None:
    hand = parse_tiles("99m123p456p789s11z")
    ctx = WinContext(
        concealed=(*hand, parse_tile("1z")),
        melds=(),
        win_tile=parse_tile("1z"),
        is_tsumo=True,
        seat_wind=EAST,
        round_wind=EAST,
        is_dealer=True,
        dora_indicators=(WEST,),
        norths=2,
    )
    value = evaluate_win(ctx, SANMA)
    assert value is not None
    yaku = {y.name: y.han for y in value.yaku}
    assert yaku["nukidora"] == 2 and yaku["dora"] == 2


@pytest.mark.parametrize("ruleset", [TENHOU_SANMA, MAHJONGSOUL_SANMA])
def test_final_points_with_three_seats(ruleset: Ruleset) -> None:
    events = _play(ruleset, b"final", random.Random(3), [])  # a whole match of random legal play
    end = [e for e in events if isinstance(e, MatchEnded)][-1]
    assert len(end.scores) == 3 and sorted(end.ranks) == [1, 2, 3]
    assert sum(end.scores) == 3 * 35000
    # Oka (40000 - 35000) x 3 goes to the first; uma 15/0/-15: the points sum to zero.
    assert abs(sum(end.final_points)) < 0.01


def test_kokushi_with_three_players_is_a_yakuman_paid_with_tsumo_loss() -> None:
    tiles = parse_tiles("19m19p19s1234567z")
    ctx = WinContext(
        concealed=(*tiles, parse_tile("1m")),
        melds=(),
        win_tile=parse_tile("1m"),
        is_tsumo=True,
        seat_wind=parse_tile("2z"),
        round_wind=EAST,
        is_dealer=False,
    )
    value = evaluate_win(ctx, SANMA)
    assert value is not None and value.yakuman == 1
    win = WinSettlement(winner=1, loser=None, value=value)
    assert settle_wins([win], dealer=0, honba=0, riichi_sticks=0, ruleset=SANMA) == ((-16000, 24000, -8000),)


def test_a_north_kept_in_hand_is_no_value_tile() -> None:
    """Norths kept as a triplet: no seat or round wind is north with three players."""
    hand = parse_tiles("111p234p567s9s444z")
    for seat_wind in (EAST, parse_tile("2z"), WEST):
        ctx = WinContext(
            concealed=(*hand, parse_tile("9s")),
            melds=(),
            win_tile=parse_tile("9s"),
            is_tsumo=True,
            seat_wind=seat_wind,
            round_wind=EAST,
            is_dealer=seat_wind == EAST,
        )
        value = evaluate_win(ctx, SANMA)
        assert value is not None and not any(y.name.startswith("yakuhai") for y in value.yaku)


def test_pao_with_three_players() -> None:
    daisangen = HandValue(
        han=13,
        fu=30,
        yaku=(),
        yakuman=1,
        limit="yakuman",
        base_points=8000,
        pao_yakuman=((Pao.DAISANGEN, 1),),
    )
    tsumo = WinSettlement(winner=1, loser=None, value=daisangen, pao_seat=2)
    assert settle_wins([tsumo], dealer=0, honba=1, riichi_sticks=0, ruleset=SANMA) == ((0, 32200, -32200),)
    ron = WinSettlement(winner=1, loser=0, value=daisangen, pao_seat=2)
    assert settle_wins([ron], dealer=0, honba=0, riichi_sticks=0, ruleset=SANMA) == ((-16000, 32000, -16000),)


def test_a_double_ron_pays_both_and_the_sticks_go_to_the_first() -> None:
    win = WinSettlement(winner=1, loser=0, value=_value())
    other = WinSettlement(winner=2, loser=0, value=_value())
    first, second = settle_wins([win, other], dealer=0, honba=1, riichi_sticks=2, ruleset=SANMA)
    assert first == (-8200, 10200, 0) and second == (-8000, 0, 8000)


def test_tobi_ends_a_three_player_match() -> None:
    state = new_match(SANMA, b"tobi").state
    assert next_hand(SANMA, (60000, 46000, -1000), state.hand, renchan=False, won=True, tenpai=False) is None
    assert next_hand(SANMA, (60000, 45000, 0), state.hand, renchan=False, won=True, tenpai=False) == (0, 1)


def test_hints_count_the_norths_set_aside() -> None:
    from server.engine.hints import visible_counts
    from server.engine.views import seat_view

    game = Game.start({0: "4z19m19p19s123567z"}, "8p", rinshan="2s", ruleset=SANMA)
    game.do(0, Nukidora())
    view = seat_view(game.state, 1)
    assert view.seats[0].norths == 1
    assert visible_counts(view)[NORTH] >= 1
