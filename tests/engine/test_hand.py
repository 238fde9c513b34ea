"""Hand analysis: golden shanten, waits, agari, decompositions and kan-during-riichi cases.

Random comparisons against the ``mahjong`` package and brute-force definitions live in
``test_hand_oracle.py``.
"""

from __future__ import annotations

import pytest

from server.engine import hand
from server.engine.errors import RulesError
from server.engine.hand import Decomposition, HandForm, Mentsu
from server.engine.rules import KanDuringRiichi
from server.engine.tiles import counts34, parse_tile, parse_tiles


def c(mpsz: str) -> list[int]:
    """34-kind counts of an mpsz hand."""
    return counts34(parse_tiles(mpsz))


def k(name: str) -> int:
    """The kind of one mpsz tile, e.g. ``k("5m") == 4``."""
    return parse_tile(name)


def kinds(mpsz: str) -> frozenset[int]:
    return frozenset(parse_tiles(mpsz))


# --------------------------------------------------------------------------------------------------
# Shanten


@pytest.mark.parametrize(
    ("tiles", "expected"),
    [
        ("123m456p789s11z222z", -1),  # complete
        ("123m456p789s1122z", 0),  # shanpon
        ("123m456p789s1z2z3z4z", 2),
        ("19m19p19s1234567z", 0),  # kokushi, thirteen-sided
        ("19m19p19s12345677z", -1),
        ("19m19p19s123456z5m", 1),  # kokushi missing chun, no pair
        ("1122m3344p5566s7z", 0),  # chiitoitsu tanki
        ("1122m3344p5566s77z", -1),
        ("1112345678999m", 0),  # chuuren
        ("147m258p369s1234z", 6),  # nothing fits
        ("1111m234p567p789s", 1),  # 111m + 1m would wait on a fifth 1m
        ("1111z2222z123m45m", 2),  # two honor quads: two useless tiles and no pair yet
        ("1111m2222m3333m4z", 0),  # 123m four times and a 4z tanki: quads used as sequences
        ("1111z2222z3333z4z", 3),  # an honor quad is a triplet and a dead tile
        ("1111m", 1),  # 111m + 1m cannot become 111m + 11m
    ],
)
def test_shanten_golden(tiles: str, expected: int) -> None:
    assert hand.shanten(c(tiles)) == expected


@pytest.mark.parametrize(
    ("tiles", "expected"),
    [
        ("5m", 0),  # four melds called: tanki
        ("55m", -1),
        ("57m", 0),
        ("1234m", 0),  # one meld left to build
        ("1379m", 1),
        ("123m55p", -1),
        ("123m456p78s11z", 0),  # one meld called
        ("1z2z3z4z", 2),  # a pair needs one more tile, a set two
    ],
)
def test_shanten_of_open_hands_counts_only_regular_sets(tiles: str, expected: int) -> None:
    assert hand.shanten(c(tiles)) == expected


def test_chiitoitsu_and_kokushi_need_a_closed_hand() -> None:
    # Ten tiles of pairs (one meld called): the regular form only.
    assert hand.shanten(c("1122m3344p55z")) == hand.shanten_regular(c("1122m3344p55z")) == 2
    with pytest.raises(RulesError):
        hand.shanten_chiitoitsu(c("1122m3344p55z"))
    with pytest.raises(RulesError):
        hand.shanten_kokushi(c("19m19p19s1z"))


def test_shanten_is_the_minimum_of_the_three_forms() -> None:
    h = c("1122m3344p5566s7z")
    assert hand.shanten_chiitoitsu(h) == 0
    assert hand.shanten_regular(h) == 3
    assert hand.shanten_kokushi(h) == 10  # 1m (paired) and 7z
    assert hand.shanten(h) == 0


def test_chiitoitsu_four_of_a_kind_counts_as_one_pair() -> None:
    assert hand.shanten_chiitoitsu(c("11112233445566m")) == 1
    assert hand.shanten_chiitoitsu(c("11223344556677m")) == -1


def test_kokushi_shanten_counts_kinds_and_one_pair() -> None:
    assert hand.shanten_kokushi(c("19m19p19s1234567z")) == 0
    assert hand.shanten_kokushi(c("19m19p19s1234566z")) == 0
    assert hand.shanten_kokushi(c("19m19p19s1234555z")) == 1
    assert hand.shanten_kokushi(c("2345678m2345678p")) == 13


def test_shanten_after_discards() -> None:
    after = hand.shanten_after_discards(c("123m456p789s1122z3z"))
    assert set(after) == kinds("123m456p789s123z")
    assert after[k("3z")] == 0
    assert after[k("1z")] == after[k("5p")] == 1
    assert hand.shanten_after_discards(c("55m")) == {k("5m"): 0}


def test_shanten_accepts_tuples_and_lists() -> None:
    h = c("123m456p789s1122z")
    assert hand.shanten(h) == hand.shanten(tuple(h)) == 0


# --------------------------------------------------------------------------------------------------
# Waits and tenpai


def test_chuuren_waits_on_all_nine() -> None:
    assert hand.waits(c("1112345678999m")) == kinds("123456789m")


def test_kokushi_thirteen_sided_wait() -> None:
    assert hand.waits(c("19m19p19s1234567z")) == kinds("19m19p19s1234567z")


def test_kokushi_single_wait() -> None:
    assert hand.waits(c("19m19p19s1234566z")) == kinds("7z")


def test_chiitoitsu_tanki() -> None:
    assert hand.waits(c("1122m3344p5566s7z")) == kinds("7z")


def test_chiitoitsu_with_three_of_a_kind_does_not_wait_on_the_fourth() -> None:
    # Six distinct kinds paired, the sixth held three times: chiitoitsu needs seven distinct pairs,
    # so 6p is no chiitoitsu wait. The regular readings wait on 1m (111m 234m 234m 55m), 2m (11m
    # 222m 345m 345m) and the 4m/5m shanpon (123m 123m 44m 55m).
    h = c("1122334455m666p")
    assert hand.shanten_chiitoitsu(h) == 1
    assert hand.waits(h) == kinds("1245m")


def test_a_fifth_copy_is_never_a_wait() -> None:
    # 111m + 1m tanki would need a fifth 1m: not tenpai.
    assert hand.waits(c("1111m234p567p789s")) == frozenset()
    assert not hand.is_tenpai(c("1111m234p567p789s"))
    assert hand.waits(c("1111m")) == frozenset()
    # 1111m + 3m: 111m and the 13m kanchan waits on 2m.
    assert hand.waits(c("1111m3m456p789p55s")) == kinds("2m")


@pytest.mark.parametrize(
    ("tiles", "expected"),
    [
        ("23m456p789s11z222z", "14m"),  # ryanmen
        ("13m456p789s11z222z", "2m"),  # kanchan
        ("12m456p789s11z222z", "3m"),  # penchan
        ("123m456p789s1z222z", "1z"),  # tanki
        ("3444m778899s333z", "235m"),  # docs/rules.md#kan-during-riichi
        ("2345m", "25m"),  # nobetan after three calls
        ("4m", "4m"),
        ("1z2z3z4z", ""),
    ],
)
def test_waits_golden(tiles: str, expected: str) -> None:
    assert hand.waits(c(tiles)) == (kinds(expected) if expected else frozenset())
    assert hand.is_tenpai(c(tiles)) == bool(expected)


def test_tenpai_for_draw_ignores_waits_on_own_four_copies() -> None:
    # 5p tanki with a pon of 5p on the table: all four 5p are the player's own.
    held = c("5p")
    held[k("5p")] = 4
    assert hand.is_tenpai(c("5p"))
    assert not hand.tenpai_for_draw(c("5p"), held)
    assert hand.tenpai_for_draw(c("5p"), c("5p555s"))
    # A second wait that is still live keeps the hand tenpai.
    h = c("4555m")  # 4m tanki or 45m ryanmen + 55m pair: waits 3m 4m 6m
    held = c("4555m")
    held[k("4m")] = 4
    assert hand.waits(h) == kinds("346m")
    assert hand.tenpai_for_draw(h, held)


def test_tenpai_for_draw_rejects_held_below_hand() -> None:
    with pytest.raises(RulesError):
        hand.tenpai_for_draw(c("5p"), [0] * 34)


def test_discards_keeping_tenpai() -> None:
    assert hand.discards_keeping_tenpai(c("123m456p789s1122z3z")) == kinds("3z")
    # Complete hands keep tenpai whatever they discard.
    assert hand.discards_keeping_tenpai(c("123m456p789s11z222z")) == kinds("123m456p789s12z")
    assert hand.discards_keeping_tenpai(c("147m258p369s12345z")) == frozenset()
    # 1112345678999m + 5m: complete, and every discard leaves a tenpai hand.
    assert hand.discards_keeping_tenpai(c("11123455678999m")) == kinds("123456789m")
    # The kan-during-riichi example (docs/rules.md#kan-during-riichi) and a 6z: discard 6z (waits
    # 2m 3m 5m) or 3m (444m and a 6z tanki).
    assert hand.discards_keeping_tenpai(c("3444m778899s3336z")) == kinds("3m6z")


def test_is_kokushi_tenpai_on() -> None:
    thirteen = c("19m19p19s1234567z")
    assert all(hand.is_kokushi_tenpai_on(thirteen, w) for w in kinds("19m19p19s1234567z"))
    assert not hand.is_kokushi_tenpai_on(thirteen, k("5m"))
    single = c("19m19p19s1234566z")
    assert hand.is_kokushi_tenpai_on(single, k("7z"))
    assert not hand.is_kokushi_tenpai_on(single, k("1m"))
    # A regular tenpai on 1m is not a kokushi wait.
    assert not hand.is_kokushi_tenpai_on(c("23m456p789s11z222z"), k("1m"))


def test_count_terminal_honor_kinds() -> None:
    assert hand.count_terminal_honor_kinds(c("19m19p19s1234567z5m")) == 13
    assert hand.count_terminal_honor_kinds(c("11199m1p1234z5678s")) == 7
    assert hand.count_terminal_honor_kinds(c("2345678m2345678p")) == 0


# --------------------------------------------------------------------------------------------------
# Agari and decompositions


@pytest.mark.parametrize(
    "tiles",
    [
        "123m456p789s11z222z",
        "11223344556677m",  # ryanpeikou / chiitoitsu
        "1122m3344p5566s77z",
        "19m19p19s12345677z",
        "11122233344455m",
        "55m",
        "123m55p",
        "111z222z33z",
    ],
)
def test_is_agari(tiles: str) -> None:
    assert hand.is_agari(c(tiles))
    assert hand.shanten(c(tiles)) == -1


@pytest.mark.parametrize(
    "tiles",
    [
        "1111m22p55p77s99s33z",  # four of a kind is not two pairs
        "123m456p789s13z222z",
        "19m19p19s1234567z5m",  # 13 orphans and a 5m
        "12m",
        "111z222z34z",
    ],
)
def test_is_not_agari(tiles: str) -> None:
    assert not hand.is_agari(c(tiles))


def test_decompositions_of_three_consecutive_triplets() -> None:
    got = hand.decompositions(c("111222333m456p77s"))
    regular = [str(d) for d in got]
    assert regular == ["123m 123m 123m 456p 77s", "111m 222m 333m 456p 77s"]
    assert all(d.form is HandForm.REGULAR for d in got)


def test_decompositions_of_ryanpeikou_include_chiitoitsu() -> None:
    got = hand.decompositions(c("11223344556677m"))
    assert [str(d) for d in got] == [
        "234m 234m 567m 567m 11m",
        "123m 123m 567m 567m 44m",
        "123m 123m 456m 456m 77m",
        "11m 22m 33m 44m 55m 66m 77m",
    ]
    assert got[-1] == Decomposition(HandForm.CHIITOITSU, pairs=tuple(range(7)))


def test_decompositions_of_kokushi() -> None:
    (only,) = hand.decompositions(c("19m19p19s12345677z"))
    assert only == Decomposition(HandForm.KOKUSHI, pair=k("7z"))
    assert str(only) == "19m19p19s12345677z"


def test_decompositions_of_chuuren_with_the_extra_five() -> None:
    (only,) = hand.decompositions(c("11123455678999m"))
    assert only.sets == (
        Mentsu(k("1m"), True),
        Mentsu(k("2m"), False),
        Mentsu(k("6m"), False),
        Mentsu(k("9m"), True),
    )
    assert only.pair == k("5m")
    assert str(only) == "111m 234m 678m 999m 55m"


def test_decompositions_of_an_incomplete_hand_are_empty() -> None:
    assert hand.decompositions(c("123m456p789s13z222z")) == ()


def test_mentsu_tiles() -> None:
    assert Mentsu(k("7p"), False).kinds == (k("7p"), k("8p"), k("9p"))
    assert str(Mentsu(k("1z"), True)) == "111z"


# --------------------------------------------------------------------------------------------------
# Kan during riichi (docs/rules.md#kan-during-riichi)


def riichi_kan(tiles: str, drawn: str, mode: str) -> bool:
    return hand.riichi_ankan_allowed(c(tiles), k(drawn), mode)


@pytest.mark.parametrize("mode", ["waits", "strict"])
def test_003_fours_may_not_be_kanned(mode: str) -> None:
    # 3444m: 34m ryanmen + 44m pair, or 444m + 3m tanki. Without the fours only 3m remains.
    assert not riichi_kan("3444m778899s333z", "4m", mode)


@pytest.mark.parametrize("mode", ["waits", "strict"])
def test_003_west_may_be_kanned(mode: str) -> None:
    assert riichi_kan("3444m778899s333z", "3z", mode)


@pytest.mark.parametrize("drawn", ["1m", "2p", "3p"])
@pytest.mark.parametrize("mode", ["waits", "strict"])
def test_003_any_of_the_three_triplets_may_be_kanned(drawn: str, mode: str) -> None:
    # 222333p cannot be sequences without 1p or 4p, so every reading keeps the triplets.
    assert riichi_kan("111m222333p5678s", drawn, mode)


@pytest.mark.parametrize("drawn", ["1m", "2m", "3m"])
def test_001_three_consecutive_triplets_only_under_waits(drawn: str) -> None:
    # Waits 5s/8s with or without the kan, but 111222333m also reads as 123m 123m 123m
    # (docs/rules.md#kan-during-riichi).
    assert riichi_kan("111222333m5678s", drawn, "waits")
    assert not riichi_kan("111222333m5678s", drawn, "strict")


@pytest.mark.parametrize("drawn", ["6m", "9m"])
def test_triplet_read_as_pair_and_sequence_only_under_waits(drawn: str) -> None:
    # 6668999m waits 7m and 8m: 66 678 999 / 666 789 99 on 7m, 666 88 999 on 8m. After a kan of
    # 6m (8999m: 8m tanki, 89m + 99m) or of 9m (6668m: 8m tanki, 66m + 68m) the waits are the same,
    # but on 7m the kanned kind is read as a pair and part of a sequence.
    assert hand.waits(c("6668999m111222z")) == kinds("78m")
    assert riichi_kan("6668999m111222z", drawn, "waits")
    assert not riichi_kan("6668999m111222z", drawn, "strict")


@pytest.mark.parametrize(
    ("tiles", "drawn"),
    [
        ("3334m456p789s111z", "3m"),  # 2m 4m 5m -> 4m
        ("4445m123p456p789s", "4m"),  # 3m 5m 6m -> 5m
        ("8999m111222333z", "9m"),  # 7m 8m -> 8m
        ("1112345678999m", "1m"),  # the drawn 1m wins: a kan would give up that wait
        ("1112345678999m", "9m"),
    ],
)
@pytest.mark.parametrize("mode", ["waits", "strict"])
def test_kan_that_changes_the_waits_is_illegal(tiles: str, drawn: str, mode: str) -> None:
    assert not riichi_kan(tiles, drawn, mode)


def test_kan_during_riichi_never() -> None:
    assert not riichi_kan("3444m778899s333z", "3z", "never")


def test_kan_during_riichi_needs_three_in_hand() -> None:
    assert not riichi_kan("3444m778899s333z", "7s", "waits")


def test_kan_during_riichi_accepts_the_ruleset_enum() -> None:
    assert hand.riichi_ankan_allowed(c("3444m778899s333z"), k("3z"), KanDuringRiichi.STRICT)
    with pytest.raises(RulesError):
        hand.riichi_ankan_allowed(c("3444m778899s333z"), k("3z"), "sometimes")


# --------------------------------------------------------------------------------------------------
# Input checks


@pytest.mark.parametrize(
    "counts",
    [
        [0] * 33,  # 33 kinds
        [5] + [0] * 33,  # a fifth copy
        [-1, 2] + [0] * 32,
        c("123m456p789s"),  # 3k tiles
        c("123m456p789s11z222z33z"),  # 16 tiles
    ],
)
def test_bad_counts_raise(counts: list[int]) -> None:
    with pytest.raises(RulesError):
        hand.shanten(counts)


def test_functions_check_the_hand_size() -> None:
    with pytest.raises(RulesError):
        hand.waits(c("123m456p789s11z222z"))  # 14 tiles
    with pytest.raises(RulesError):
        hand.is_agari(c("123m456p789s1122z"))  # 13 tiles
    with pytest.raises(RulesError):
        hand.decompositions(c("123m456p789s1122z"))
    with pytest.raises(RulesError):
        hand.discards_keeping_tenpai(c("123m456p789s1122z"))
    with pytest.raises(RulesError):
        hand.riichi_ankan_allowed(c("3444m778899s333z4m"), k("4m"), "waits")
