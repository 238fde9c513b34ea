"""Hand values through the adapter: every yaku (docs/rules.md#hand-shapes), dora, limits and the
rule options.

Hands are written in mpsz: ``ctx("123m456p789s13s99m", "2s")`` is the 13 concealed tiles and the
winning tile (appended to the concealed tiles, as the engine passes it). The default winner sits
south in the east round (not the dealer).
"""

from __future__ import annotations

from typing import Any

import pytest

from server.engine.errors import RulesError
from server.engine.melds import Meld, MeldType
from server.engine.payments import ron_points
from server.engine.rules import DoubleYakuman, KazoeLimit, RenhouValue, Ruleset
from server.engine.scoring import HandValue, WinContext, evaluate_win, has_yaku, points_limit
from server.engine.tiles import EAST, NORTH, SOUTH, WEST, parse_tile, parse_tiles

TENHOU = Ruleset()


def meld(kind: str, tiles: str, from_seat: int = 3) -> Meld:
    faces = parse_tiles(tiles)
    match kind:
        case "chi" | "pon" | "daiminkan":
            return Meld(MeldType(kind), faces, faces[0], from_seat)
        case "ankan":
            return Meld(MeldType.ANKAN, faces, None, 1)
        case "kakan":
            return Meld(MeldType.KAKAN, faces, faces[0], from_seat, added=faces[3])
    raise AssertionError(kind)


def ctx(
    hand: str, win: str, *melds: Meld, seat: int = SOUTH, round_wind: int = EAST, **flags: Any
) -> WinContext:
    tile = parse_tile(win)
    flags.setdefault("is_tsumo", False)
    return WinContext(
        concealed=(*parse_tiles(hand), tile),
        melds=melds,
        win_tile=tile,
        seat_wind=seat,
        round_wind=round_wind,
        is_dealer=seat == EAST,
        **flags,
    )


def value(c: WinContext, ruleset: Ruleset = TENHOU) -> HandValue:
    result = evaluate_win(c, ruleset)
    assert result is not None, "expected a hand with yaku"
    return result


def yaku(c: WinContext, ruleset: Ruleset = TENHOU) -> dict[str, int]:
    v = value(c, ruleset)
    names = [y.name for y in v.yaku]
    assert len(names) == len(set(names)), f"a yaku listed twice: {names}"
    assert sum(y.han for y in v.yaku) == v.han
    return {y.name: y.han for y in v.yaku}


# A closed hand with no yaku at all: kanchan ron, terminals, no pinfu, no tanyao.
NO_YAKU = ("123m456p789s13s99m", "2s")
# The same shape, open: a daiminkan of 2m replaces 123m's role (no menzen tsumo for it).
OPEN_NO_YAKU = ("456p789s13s99m", "2s", meld("daiminkan", "2222m"))


# --- situational yaku ------------------------------------------------------------------------


def test_no_yaku_is_none_and_dora_alone_do_not_make_a_yaku() -> None:
    assert evaluate_win(ctx(*NO_YAKU), TENHOU) is None
    assert evaluate_win(ctx(*NO_YAKU, dora_indicators=parse_tiles("8m1s")), TENHOU) is None
    assert not has_yaku(ctx(*NO_YAKU), TENHOU)
    assert has_yaku(ctx(*NO_YAKU, riichi=True), TENHOU)


def test_riichi() -> None:
    v = value(ctx(*NO_YAKU, riichi=True))
    assert [(y.name, y.han) for y in v.yaku] == [("riichi", 1)]
    assert (v.han, v.fu, v.limit, v.base_points) == (1, 40, "", 320)  # 30 + kanchan 2 + pair 0 -> 40


def test_ippatsu_only_with_riichi() -> None:
    assert yaku(ctx(*NO_YAKU, riichi=True, ippatsu=True)) == {"riichi": 1, "ippatsu": 1}
    # docs/rules.md#ippatsu: depends on riichi
    assert evaluate_win(ctx(*NO_YAKU, ippatsu=True), TENHOU) is None


def test_double_riichi_replaces_riichi() -> None:
    assert yaku(ctx(*NO_YAKU, double_riichi=True)) == {"double_riichi": 2}
    assert yaku(ctx(*NO_YAKU, riichi=True, double_riichi=True)) == {"double_riichi": 2}


def test_menzen_tsumo_closed_only() -> None:
    assert yaku(ctx(*NO_YAKU, is_tsumo=True)) == {"menzen_tsumo": 1}
    assert evaluate_win(ctx(*OPEN_NO_YAKU, is_tsumo=True), TENHOU) is None


def test_chankan() -> None:
    assert yaku(ctx(*OPEN_NO_YAKU, chankan=True)) == {"chankan": 1}


def test_rinshan_and_not_haitei_with_it() -> None:
    assert yaku(ctx(*OPEN_NO_YAKU, is_tsumo=True, rinshan=True)) == {"rinshan": 1}
    # docs/rules.md#haitei-houtei: a replacement tile that is also the last tile scores only rinshan.
    assert yaku(ctx(*OPEN_NO_YAKU, is_tsumo=True, rinshan=True, haitei=True)) == {"rinshan": 1}
    # closed rinshan (after an ankan) also has menzen tsumo
    c = ctx("456p789s13s99m", "2s", meld("ankan", "2222m"), is_tsumo=True, rinshan=True)
    assert yaku(c) == {"menzen_tsumo": 1, "rinshan": 1}


def test_haitei_and_houtei() -> None:
    assert yaku(ctx(*OPEN_NO_YAKU, is_tsumo=True, haitei=True)) == {"haitei": 1}
    assert yaku(ctx(*OPEN_NO_YAKU, houtei=True)) == {"houtei": 1}


# --- pattern yaku ----------------------------------------------------------------------------


def test_pinfu_ron_30_fu() -> None:
    v = value(ctx("234m567p789s99m45s", "3s"))
    assert [y.name for y in v.yaku] == ["pinfu"]
    assert (v.han, v.fu, ron_points(v.base_points, False)) == (1, 30, 1000)


def test_pinfu_tsumo_20_fu_and_the_pinfu_tsumo_fu_option() -> None:
    v = value(ctx("234m567p789s99m45s", "3s", is_tsumo=True))
    assert {y.name for y in v.yaku} == {"pinfu", "menzen_tsumo"}
    # 400/700 (docs/rules.md#option-pinfu_tsumo_fu: pinfu-tsumo ari)
    assert (v.han, v.fu, v.base_points) == (2, 20, 320)
    nashi = value(ctx("234m567p789s99m45s", "3s", is_tsumo=True), Ruleset(pinfu_tsumo_fu=True))
    # docs/rules.md#option-pinfu_tsumo_fu: tsumo invalidates pinfu
    assert [y.name for y in nashi.yaku] == ["menzen_tsumo"]
    assert (nashi.han, nashi.fu) == (1, 30)


def test_pinfu_needs_a_two_sided_wait_and_a_plain_pair() -> None:
    assert "pinfu" not in yaku(ctx("234m567p789s99m13s", "2s", riichi=True))  # kanchan
    assert "pinfu" not in yaku(ctx("234m567p789s55z45s", "3s", riichi=True))  # dragon pair


def test_iipeikou() -> None:
    assert yaku(ctx("223344m567p66s78s", "9s")) == {"iipeikou": 1, "pinfu": 1}


def test_iipeikou_is_closed_only() -> None:
    c = ctx("234m567p66s78s", "9s", meld("chi", "234m"), houtei=True)
    assert yaku(c) == {"houtei": 1}


def test_tanyao_closed_and_open_per_option() -> None:
    assert yaku(ctx("234m567p345s66s78s", "6s")) == {"tanyao": 1, "pinfu": 1}
    open_hand = ctx("567p345s66s78s", "6s", meld("chi", "234m"))
    assert yaku(open_hand) == {"tanyao": 1}  # kuitan ari (Tenhou)
    v = value(open_hand)
    assert (v.fu, ron_points(v.base_points, False)) == (30, 1000)  # open pinfu shape: 30 fu
    # kuitan nashi (docs/rules.md#option-open_tanyao)
    assert evaluate_win(open_hand, Ruleset(open_tanyao=False)) is None


@pytest.mark.parametrize(
    ("triplet", "name"),
    [
        ("555z", "yakuhai_haku"),
        ("666z", "yakuhai_hatsu"),
        ("777z", "yakuhai_chun"),
        ("222z", "yakuhai_seat_wind"),  # south for the south seat
        ("111z", "yakuhai_round_wind"),  # east in the east round
    ],
)
def test_yakuhai(triplet: str, name: str) -> None:
    assert yaku(ctx("234m456p678s9m" + triplet, "9m")) == {name: 1}
    assert yaku(ctx("234m456p678s9m", "9m", meld("pon", triplet))) == {name: 1}


def test_yakuhai_other_wind_is_no_yaku() -> None:
    assert evaluate_win(ctx("234m456p678s9m333z", "9m"), TENHOU) is None  # west for south in east round


def test_double_wind_triplet_counts_twice() -> None:
    assert yaku(ctx("234m456p678s9m111z", "9m", seat=EAST)) == {
        "yakuhai_seat_wind": 1,
        "yakuhai_round_wind": 1,
    }
    assert yaku(ctx("234m456p678s9m222z", "9m", seat=SOUTH, round_wind=SOUTH)) == {
        "yakuhai_seat_wind": 1,
        "yakuhai_round_wind": 1,
    }


def test_double_wind_pair_fu_option() -> None:
    # ron, ryanmen, closed 999m (8 fu), pair of east for the east seat in the east round.
    c = ctx("999m234p567s11z34s", "2s", seat=EAST, riichi=True)
    assert value(c).fu == 50  # 30 + 8 + 4 = 42 -> 50 (Tenhou)
    assert value(c, Ruleset(double_wind_pair_fu=2)).fu == 40  # 30 + 8 + 2 = 40 (EMA)
    assert value(ctx("999m234p567s22z34s", "2s", seat=SOUTH, riichi=True)).fu == 40  # single: 2 fu


def test_chiitoitsu_25_fu() -> None:
    v = value(ctx("1133m4466p2299s5z", "5z"))
    assert [(y.name, y.han) for y in v.yaku] == [("chiitoitsu", 2)]
    assert (v.fu, ron_points(v.base_points, False)) == (25, 1600)


def test_chiitoitsu_needs_distinct_pairs() -> None:
    # docs/rules.md#hand-shapes: four of a kind are not two pairs, so this is no winning hand at all
    with pytest.raises(RulesError, match="hand_not_winning"):
        evaluate_win(ctx("1111m4466p2299s5z", "5z", riichi=True), TENHOU)


def test_toitoi() -> None:
    c = ctx("666s777s8s", "8s", meld("pon", "222m"), meld("pon", "444p"))
    assert yaku(c) == {"toitoi": 2, "tanyao": 1}


def test_sanankou_and_shanpon_ron_opens_the_triplet() -> None:
    assert yaku(ctx("222m444p666s789s1z", "1z")) == {"sanankou": 2}
    # ron on a shanpon wait: the completed triplet counts as open (docs/rules.md#hand-shapes) -> only two
    # concealed
    assert evaluate_win(ctx("222m444p789s66s11z", "6s"), TENHOU) is None
    assert yaku(ctx("222m444p789s66s11z", "6s", is_tsumo=True)) == {"sanankou": 2, "menzen_tsumo": 1}


def test_sanshoku_doukou() -> None:
    c = ctx("222s456m9p", "9p", meld("pon", "222m"), meld("pon", "222p"))
    assert yaku(c) == {"sanshoku_doukou": 2}


def test_sankantsu() -> None:
    c = ctx("789m1z", "1z", meld("ankan", "2222m"), meld("daiminkan", "4444p"), meld("kakan", "6666s"))
    assert yaku(c) == {"sankantsu": 2}


def test_shousangen_with_its_dragon_yakuhai() -> None:
    c = ctx("666z77z234m56p", "4p", meld("pon", "555z"))
    assert yaku(c) == {"shousangen": 2, "yakuhai_haku": 1, "yakuhai_hatsu": 1}


def test_honroutou() -> None:
    c = ctx("111s22z99s", "9s", meld("pon", "111m"), meld("pon", "999p"))
    assert yaku(c) == {"honroutou": 2, "toitoi": 2}


def test_ittsu_closed_and_open() -> None:
    assert yaku(ctx("123456789m234p5s", "5s")) == {"ittsu": 2}
    assert yaku(ctx("456789m234p5s", "5s", meld("chi", "123m"))) == {"ittsu": 1}


def test_chanta_closed_and_open() -> None:
    assert yaku(ctx("123m789p123s333z9m", "9m")) == {"chanta": 2}
    assert yaku(ctx("789p123s333z9m", "9m", meld("chi", "123m"))) == {"chanta": 1}


def test_sanshoku_closed_and_open() -> None:
    assert yaku(ctx("123m123p123s456m9s", "9s")) == {"sanshoku": 2}
    assert yaku(ctx("123p123s456m9s", "9s", meld("chi", "123m"))) == {"sanshoku": 1}


def test_ryanpeikou_beats_chiitoitsu_and_iipeikou() -> None:
    names = yaku(ctx("223344m556677p9s", "9s"))
    assert names["ryanpeikou"] == 3
    assert "iipeikou" not in names and "chiitoitsu" not in names


def test_junchan_closed_and_open() -> None:
    assert yaku(ctx("123m789p123s999s1m", "1m")) == {"junchan": 3}
    assert yaku(ctx("789p123s999s1m", "1m", meld("chi", "123m"))) == {"junchan": 2}


def test_honitsu_closed_and_open() -> None:
    assert yaku(ctx("123m345m777m333z9m", "9m")) == {"honitsu": 3}
    assert yaku(ctx("345m777m333z9m", "9m", meld("chi", "123m"))) == {"honitsu": 2}


def test_chinitsu_closed_and_open() -> None:
    v = value(ctx("123345567678m9m", "9m"))
    assert [(y.name, y.han) for y in v.yaku] == [("chinitsu", 6)]
    assert (v.limit, v.base_points) == ("haneman", 3000)
    assert yaku(ctx("345567678m9m", "9m", meld("chi", "123m"))) == {"chinitsu": 5}


# --- yakuman ---------------------------------------------------------------------------------


def yakuman(c: WinContext, ruleset: Ruleset = TENHOU) -> tuple[dict[str, int], int]:
    v = value(c, ruleset)
    assert v.limit == "yakuman" and v.base_points == 8000 * v.yakuman and v.han == 13 * v.yakuman
    return {y.name: y.han for y in v.yaku}, v.yakuman


def test_tenhou_and_chiihou() -> None:
    assert yakuman(ctx(*NO_YAKU, seat=EAST, is_tsumo=True, tenhou=True)) == ({"tenhou": 13}, 1)
    assert yakuman(ctx(*NO_YAKU, is_tsumo=True, chiihou=True)) == ({"chiihou": 13}, 1)


def test_kokushi_single_and_13_wait() -> None:
    assert yakuman(ctx("119m19p19s123456z", "7z")) == ({"kokushi": 13}, 1)
    assert yakuman(ctx("19m19p19s1234567z", "1m")) == ({"kokushi_13": 13}, 1)  # Tenhou: single


def test_chuuren_and_junsei_chuuren() -> None:
    assert yakuman(ctx("1112345578999m", "6m")) == ({"chuuren": 13}, 1)
    assert yakuman(ctx("1112345678999m", "5m")) == ({"junsei_chuuren": 13}, 1)


def test_suuankou_by_tsumo_and_tanki() -> None:
    assert yakuman(ctx("222m444p666s88s11z", "8s", is_tsumo=True)) == ({"suuankou": 13}, 1)
    assert yakuman(ctx("222m444p666s888s1z", "1z")) == ({"suuankou_tanki": 13}, 1)
    # ron on the shanpon: toitoi + sanankou only (docs/rules.md#hand-shapes)
    assert yaku(ctx("222m444p666s88s11z", "8s")) == {"toitoi": 2, "sanankou": 2}


def test_suukantsu() -> None:
    c = ctx(
        "5z",
        "5z",
        meld("ankan", "1111m"),
        meld("daiminkan", "2222p"),
        meld("kakan", "3333s"),
        meld("ankan", "4444z"),
    )
    names, mult = yakuman(c)
    assert (names, mult) == ({"suukantsu": 13}, 1)
    assert value(c).pao_yakuman == (("suukantsu", 1),)


def test_ryuuiisou_chinroutou_tsuuiisou() -> None:
    assert yakuman(ctx("223344s666s888s6z", "6z")) == ({"ryuuiisou": 13}, 1)
    assert yakuman(ctx("999m111p999s1s", "1s", meld("pon", "111m"))) == ({"chinroutou": 13}, 1)
    assert yakuman(ctx("222z333z55z66z", "5z", meld("pon", "111z"))) == ({"tsuuiisou": 13}, 1)


def test_seven_pairs_of_honours_and_of_terminals() -> None:
    assert yakuman(ctx("1122334455667z", "7z")) == ({"tsuuiisou": 13}, 1)
    v = value(ctx("11m99m11p99p11s99s1z", "1z"))
    assert {y.name: y.han for y in v.yaku} == {"chiitoitsu": 2, "honroutou": 2}
    assert (v.han, v.fu, ron_points(v.base_points, False)) == (4, 25, 6400)


def test_daisangen_shousuushii_daisuushii() -> None:
    dai = ctx("666z777z234m9m", "9m", meld("pon", "555z", from_seat=1))
    assert yakuman(dai) == ({"daisangen": 13}, 1)
    assert value(dai).pao_yakuman == (("daisangen", 1),)
    assert yakuman(ctx("222z333z44z23m", "1m", meld("pon", "111z"))) == ({"shousuushii": 13}, 1)
    big = ctx("222z333z444z5m", "5m", meld("pon", "111z"))
    assert yakuman(big) == ({"daisuushii": 13}, 1)
    assert value(big).pao_yakuman == (("daisuushii", 1),)


def test_yakuman_ignores_dora_and_other_yaku() -> None:
    c = ctx("666z777z234m9m", "9m", meld("pon", "555z"), dora_indicators=parse_tiles("1m4z"))
    names, mult = yakuman(c)
    assert names == {"daisangen": 13} and mult == 1


# --- double and composite yakuman ------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "win", "name", "option"),
    [
        ("222m444p666s888s1z", "1z", "suuankou_tanki", DoubleYakuman.SUUANKOU_TANKI),
        ("19m19p19s1234567z", "1m", "kokushi_13", DoubleYakuman.KOKUSHI_13),
        ("1112345678999m", "5m", "junsei_chuuren", DoubleYakuman.JUNSEI_CHUUREN),
    ],
)
def test_double_yakuman_only_when_listed(hand: str, win: str, name: str, option: DoubleYakuman) -> None:
    assert yakuman(ctx(hand, win)) == ({name: 13}, 1)  # Tenhou: no double yakuman
    assert yakuman(ctx(hand, win), Ruleset(double_yakuman=frozenset({option}))) == ({name: 26}, 2)
    others = frozenset(DoubleYakuman) - {option}
    assert yakuman(ctx(hand, win), Ruleset(double_yakuman=others)) == ({name: 13}, 1)


def test_double_daisuushii_option() -> None:
    big = ctx("222z333z444z5m", "5m", meld("pon", "111z"))
    rules = Ruleset(double_yakuman=frozenset({DoubleYakuman.DAISUUSHII}))
    assert yakuman(big, rules) == ({"daisuushii": 26}, 2)
    assert value(big, rules).pao_yakuman == (("daisuushii", 2),)


def test_composite_yakuman_or_only_the_highest() -> None:
    c = ctx("777z111z2z", "2z", meld("pon", "555z"), meld("pon", "666z"))
    assert yakuman(c) == ({"daisangen": 13, "tsuuiisou": 13}, 2)
    # docs/rules.md#option-composite_yakuman: yakuman are not cumulative
    single = Ruleset(composite_yakuman=False)
    assert yakuman(c, single) == ({"daisangen": 13}, 1)  # the liability-carrying one is kept
    assert value(c, single).pao_yakuman == (("daisangen", 1),)


def test_not_composite_keeps_a_double_over_a_single() -> None:
    c = ctx("222m444p666s888s1z", "1z", seat=EAST, is_tsumo=True, tenhou=True)
    both = Ruleset(double_yakuman=frozenset({DoubleYakuman.SUUANKOU_TANKI}))
    assert yakuman(c, both) == ({"suuankou_tanki": 26, "tenhou": 13}, 3)
    single = both.with_options(composite_yakuman=False)
    assert yakuman(c, single) == ({"suuankou_tanki": 26}, 2)


# --- dora ------------------------------------------------------------------------------------


def test_dora_wraps_around() -> None:
    base = ("123m456p789s13s99m", "2s")
    assert yaku(ctx(*base, riichi=True, dora_indicators=parse_tiles("8m"))) == {"riichi": 1, "dora": 2}
    assert yaku(ctx(*base, riichi=True, dora_indicators=parse_tiles("9m"))) == {"riichi": 1, "dora": 1}
    assert yaku(ctx(*base, riichi=True, dora_indicators=parse_tiles("8m8m"))) == {"riichi": 1, "dora": 4}
    assert yaku(ctx("123m456p789s234s1z", "1z", riichi=True, dora_indicators=parse_tiles("4z"))) == {
        "riichi": 1,
        "dora": 2,
    }  # north -> east
    assert yaku(ctx("123m456p789s234s5z", "5z", riichi=True, dora_indicators=parse_tiles("7z"))) == {
        "riichi": 1,
        "dora": 2,
    }  # chun -> haku


def test_dora_counts_meld_tiles_and_a_red_indicator() -> None:
    c = ctx("234m456p66s78s", "9s", meld("pon", "555z"), dora_indicators=parse_tiles("0s"))
    assert yaku(c) == {"yakuhai_haku": 1, "dora": 2}


def test_aka_dora_counts_red_fives_in_hand_and_melds() -> None:
    c = ctx("406p340s66s78s", "6s", meld("chi", "304m"))  # 0p and 0s in hand, 0m in a chi
    assert yaku(c) == {"tanyao": 1, "aka_dora": 3}
    assert yaku(c, Ruleset(red_fives=(0, 0, 0))) == {"tanyao": 1}  # no red fives in play: not counted


def test_several_red_fives_of_one_suit() -> None:
    # two red 5s (red_fives=(1, 1, 2)): the package alone would see one; we count both.
    c = ctx("234m406p340s055s8p", "8p", riichi=True)
    assert yaku(c, Ruleset(red_fives=(1, 1, 2))) == {"riichi": 1, "tanyao": 1, "aka_dora": 3}


def test_plain_fives_are_never_red() -> None:
    # four plain 5m take copies 1..3 and 0; copy 0 is the package's red 5m, yet only 0p is red
    c = ctx("555m456m340p678s2s", "2s")
    assert yaku(c) == {"tanyao": 1, "aka_dora": 1}
    assert yaku(c, Ruleset(red_fives=(0, 0, 0))) == {"tanyao": 1}


def test_ura_dora_only_with_riichi_and_kan_ura_option() -> None:
    ura = parse_tiles("8m1z")  # 9m twice; the second indicator (kan ura) points at south (none)
    assert yaku(ctx(*NO_YAKU, riichi=True, ura_indicators=ura)) == {"riichi": 1, "ura_dora": 2}
    assert yaku(ctx(*NO_YAKU, double_riichi=True, ura_indicators=ura)) == {"double_riichi": 2, "ura_dora": 2}
    assert yaku(ctx(*NO_YAKU, is_tsumo=True, ura_indicators=ura)) == {"menzen_tsumo": 1}
    kan_ura = parse_tiles("1z8m")
    assert yaku(ctx(*NO_YAKU, riichi=True, ura_indicators=kan_ura)) == {"riichi": 1, "ura_dora": 2}
    no_kan_ura = Ruleset(kan_ura=False)
    assert yaku(ctx(*NO_YAKU, riichi=True, ura_indicators=kan_ura), no_kan_ura) == {"riichi": 1}
    assert yaku(ctx(*NO_YAKU, riichi=True, ura_indicators=ura), no_kan_ura) == {"riichi": 1, "ura_dora": 2}


def test_yaku_order_is_tenhou_order() -> None:
    c = ctx(
        "234m456p66s78s",
        "9s",
        meld("pon", "555z"),
        dora_indicators=parse_tiles("4p"),
        riichi=False,
    )
    assert [y.name for y in value(c).yaku] == ["yakuhai_haku", "dora"]


# --- limits ----------------------------------------------------------------------------------


def _kazoe_hand(**flags: Any) -> WinContext:
    # closed chinitsu (6) + riichi (1) + six dora (3m, 5m, 6m twice each) = 13 han
    return ctx("123345567678m9m", "9m", riichi=True, dora_indicators=parse_tiles("2m4m5m"), **flags)


def test_kazoe_yakuman_per_option() -> None:
    v = value(_kazoe_hand())
    assert (v.han, v.limit, v.base_points, v.yakuman) == (13, "kazoe_yakuman", 8000, 1)
    capped = value(_kazoe_hand(), Ruleset(kazoe_limit=KazoeLimit.SANBAIMAN))
    assert (capped.han, capped.limit, capped.base_points, capped.yakuman) == (13, "sanbaiman", 6000, 0)
    assert points_limit(26, 30, Ruleset(kazoe_limit=KazoeLimit.NONE)) == ("kazoe_yakuman", 16000)
    assert points_limit(25, 30, Ruleset(kazoe_limit=KazoeLimit.NONE)) == ("kazoe_yakuman", 8000)
    assert points_limit(26, 30, Ruleset()) == ("kazoe_yakuman", 8000)


def test_kiriage_mangan_option() -> None:
    # riichi, pinfu, tanyao, one dora: 4 han 30 fu
    c = ctx("234m567p345s66s78s", "6s", riichi=True, dora_indicators=parse_tiles("1m"))
    v = value(c)
    assert (v.han, v.fu, v.limit, ron_points(v.base_points, False)) == (4, 30, "", 7700)
    kiriage = value(c, Ruleset(kiriage_mangan=True))
    assert (kiriage.limit, ron_points(kiriage.base_points, False)) == ("mangan", 8000)
    assert points_limit(3, 60, Ruleset(kiriage_mangan=True)) == ("mangan", 2000)
    assert points_limit(3, 60, Ruleset()) == ("", 1920)


# --- renhou ----------------------------------------------------------------------------------


def test_renhou_none_is_no_yaku() -> None:
    assert evaluate_win(ctx(*NO_YAKU, renhou=True), Ruleset(renhou=RenhouValue.NONE)) is None


def test_renhou_mangan_not_cumulative() -> None:
    rules = Ruleset(renhou=RenhouValue.MANGAN)
    alone = value(ctx(*NO_YAKU, renhou=True, dora_indicators=parse_tiles("8m")), rules)
    # dora do not add (docs/rules.md#option-renhou)
    assert [(y.name, y.han) for y in alone.yaku] == [("renhou", 5)]
    assert (alone.limit, alone.base_points) == ("mangan", 2000)
    # a hand worth more on its own scores normally, without renhou
    haneman = value(ctx("123345567678m9m", "9m", renhou=True), rules)
    assert [y.name for y in haneman.yaku] == ["chinitsu"] and haneman.limit == "haneman"
    # a cheaper hand with yaku is lifted to renhou's mangan, alone
    cheap = value(ctx("234m567p789s99m45s", "3s", renhou=True), rules)
    assert [y.name for y in cheap.yaku] == ["renhou"]


def test_renhou_baiman_and_yakuman() -> None:
    baiman = value(ctx("123345567678m9m", "9m", renhou=True), Ruleset(renhou=RenhouValue.BAIMAN))
    assert [(y.name, y.han) for y in baiman.yaku] == [("renhou", 8)] and baiman.base_points == 4000
    rules = Ruleset(renhou=RenhouValue.YAKUMAN)
    assert yakuman(ctx(*NO_YAKU, renhou=True), rules) == ({"renhou": 13}, 1)
    assert yakuman(ctx("119m19p19s123456z", "7z", renhou=True), rules) == ({"kokushi": 13, "renhou": 13}, 2)


# --- bad input -------------------------------------------------------------------------------


def test_contradictory_or_incomplete_contexts_raise() -> None:
    with pytest.raises(RulesError, match="hand_not_winning"):
        evaluate_win(ctx("123m456p789s13s99m", "5s"), TENHOU)
    with pytest.raises(RulesError, match="not among the concealed"):
        evaluate_win(WinContext(parse_tiles("11m"), (), 5, False, SOUTH, EAST, False), TENHOU)
    with pytest.raises(RulesError, match="tenhou"):
        evaluate_win(ctx(*NO_YAKU, is_tsumo=True, tenhou=True), TENHOU)
    with pytest.raises(RulesError, match="renhou"):
        evaluate_win(ctx(*NO_YAKU, seat=EAST, renhou=True), TENHOU)
    with pytest.raises(RulesError, match="is_dealer"):
        evaluate_win(WinContext(parse_tiles("11m"), (), 0, False, WEST, EAST, True), TENHOU)
    with pytest.raises(RulesError, match="more than four"):
        evaluate_win(ctx("11111m", "1m"), TENHOU)
    with pytest.raises(RulesError, match="not a tile face"):
        evaluate_win(ctx("234m567p66s78s", "9s", Meld(MeldType.PON, (40, 40, 40), 40, 3)), TENHOU)
    with pytest.raises(RulesError, match="wind"):
        evaluate_win(WinContext(parse_tiles("11m"), (), 0, False, 3, NORTH, False), TENHOU)
