"""The ruleset: JSON round trips, the stable hash, validation and presets."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from typing import Any

import pytest

from server.engine import rules as rules_module
from server.engine.errors import RulesError, RulesetError
from server.engine.rules import (
    ALL_PRESETS,
    EMA,
    MAHJONGSOUL,
    PRESETS,
    TENHOU,
    DoubleYakuman,
    GameLength,
    KanDuringRiichi,
    Karaten,
    KazoeLimit,
    Kuikae,
    MultipleRon,
    OpenKanDora,
    Pao,
    PaoScope,
    RenhouValue,
    Ruleset,
    preset,
)
from tests.engine.doctests import run_doctests

OPTION_NAMES = [f.name for f in dataclasses.fields(Ruleset) if not f.name.startswith("_")]


def test_doctests() -> None:
    result = run_doctests(rules_module)
    assert result.attempted > 0
    assert result.failed == 0


# -- JSON ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ALL_PRESETS))
def test_json_round_trip_of_every_preset(name: str) -> None:
    ruleset = ALL_PRESETS[name]
    again = Ruleset.from_json(ruleset.to_json())
    assert again == ruleset
    assert again.hash == ruleset.hash
    assert Ruleset.from_dict(ruleset.to_dict()) == ruleset


def test_json_is_canonical() -> None:
    text = TENHOU.to_json()
    data = json.loads(text)
    assert list(data) == sorted(data)
    assert " " not in text
    # The three-player options hold their four-player values: left out, so the JSON (and hash) of a
    # four-player ruleset is what it was before they existed.
    sanma_options = {"seats", "chi", "north_bonus", "north_ron", "sanma_tsumo"}
    assert set(data) == set(OPTION_NAMES) - sanma_options
    assert "_hash" not in data
    assert text == json.dumps(data, sort_keys=True, separators=(",", ":"))


def test_to_dict_uses_plain_json_types() -> None:
    data = MAHJONGSOUL.to_dict()
    assert data["uma"] == [15, 5, -5, -15]
    assert data["red_fives"] == [1, 1, 1]
    assert data["double_yakuman"] == sorted(str(d) for d in DoubleYakuman)
    assert data["pao"] == ["daisangen", "daisuushii"]
    assert data["multiple_ron"] == "triple"
    assert type(data["multiple_ron"]) is str
    for value in data.values():
        assert isinstance(value, bool | int | str | list)


def test_partial_documents_take_the_tenhou_defaults() -> None:
    assert Ruleset.from_dict({}) == TENHOU
    r = Ruleset.from_json('{"name":"custom","red_fives":[0,0,0],"kuikae":"none"}')
    assert r.red_fives == (0, 0, 0)
    assert r.kuikae is Kuikae.NONE
    assert r.start_points == TENHOU.start_points


def test_json_values_are_coerced_to_option_types() -> None:
    r = Ruleset.from_dict(
        {
            "game_length": "east",
            "uma": [30, 10, -10, -30],
            "double_yakuman": ["kokushi_13", "daisuushii"],
            "pao": [],
            "kan_during_riichi": "strict",
        }
    )
    assert r.game_length is GameLength.EAST
    assert r.uma == (30, 10, -10, -30)
    assert r.double_yakuman == frozenset({DoubleYakuman.KOKUSHI_13, DoubleYakuman.DAISUUSHII})
    assert r.pao == frozenset()
    assert r.kan_during_riichi is KanDuringRiichi.STRICT


# -- the hash ------------------------------------------------------------------------------------


def test_hash_is_sha256_hex_of_the_canonical_json() -> None:
    for ruleset in ALL_PRESETS.values():
        assert re.fullmatch(r"[0-9a-f]{64}", ruleset.hash)
        assert ruleset.hash == hashlib.sha256(ruleset.to_json().encode()).hexdigest()


def test_equal_rulesets_have_equal_hashes() -> None:
    built = Ruleset.from_dict(json.loads(EMA.to_json()))
    assert built == EMA
    assert built is not EMA
    assert built.hash == EMA.hash
    assert Ruleset().hash == TENHOU.hash
    # The order of a set option in the input does not matter.
    a = Ruleset.from_dict({"pao": ["daisangen", "daisuushii"]})
    b = Ruleset.from_dict({"pao": ["daisuushii", "daisangen"]})
    assert a.hash == b.hash


def test_different_rulesets_have_different_hashes() -> None:
    hashes = {r.hash for r in ALL_PRESETS.values()}
    assert len(hashes) == len(ALL_PRESETS)
    assert TENHOU.with_options(kiriage_mangan=True).hash != TENHOU.hash
    assert TENHOU.with_options(name="renamed").hash != TENHOU.hash


def test_rulesets_are_hashable_values() -> None:
    assert len({TENHOU, Ruleset(), MAHJONGSOUL, EMA}) == 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        TENHOU.start_points = 1  # type: ignore[misc]


# -- errors --------------------------------------------------------------------------------------


def test_unknown_option_is_named() -> None:
    with pytest.raises(RulesetError, match="unknown ruleset option 'open_riichi'"):
        Ruleset.from_dict({"open_riichi": True})
    with pytest.raises(RulesetError, match="unknown ruleset option '_hash'"):
        Ruleset.from_dict({"_hash": "x"})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("open_tanyao", 1),
        ("open_tanyao", "yes"),
        ("start_points", True),
        ("start_points", 25000.0),
        ("start_points", "25000"),
        ("name", 5),
        ("uma", "20,10,-10,-20"),
        ("uma", [20, 10, -10, True]),
        ("multiple_ron", "quadruple"),
        ("kuikae", 1),
        ("double_yakuman", ["triple_yakuman"]),
        ("pao", "daisangen"),
    ],
)
def test_bad_value_types_name_the_option(key: str, value: Any) -> None:
    with pytest.raises(RulesetError, match=f"invalid value for ruleset option {key!r}"):
        Ruleset.from_dict({key: value})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"uma": [20, 10, -10]}, "one entry per seat"),
        ({"uma": [20, 10, -10, -10]}, "sum to zero"),
        ({"red_fives": [5, 0, 0]}, "red_fives"),
        ({"red_fives": [1, 1]}, "red_fives"),
        ({"start_points": 0}, "start_points"),
        ({"start_points": 25050}, "start_points"),
        ({"return_points": 20000}, "return_points"),
        ({"riichi_min_points": -1}, "riichi minimums"),
        ({"riichi_min_live_tiles": -1}, "riichi minimums"),
        ({"noten_payment_total": 1001}, "noten_payment_total"),
        ({"noten_payment_total": -3000}, "noten_payment_total"),
        ({"honba_value": 100}, "honba_value"),
        ({"double_wind_pair_fu": 3}, "double_wind_pair_fu"),
    ],
)
def test_invalid_combinations_are_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesetError, match=message) as info:
        Ruleset.from_dict({"name": "mine", **changes})
    assert "'mine'" in str(info.value)


def test_set_options_must_be_frozensets_when_built_directly() -> None:
    with pytest.raises(RulesetError, match="pao must be a frozenset"):
        Ruleset(pao={Pao.DAISANGEN})  # type: ignore[arg-type]


def test_malformed_json() -> None:
    with pytest.raises(RulesetError, match="does not parse"):
        Ruleset.from_json("{not json")
    with pytest.raises(RulesetError, match="JSON object, got list"):
        Ruleset.from_json("[]")


def test_ruleset_error_is_a_value_error() -> None:
    assert issubclass(RulesetError, RulesError)
    assert issubclass(RulesetError, ValueError)


# -- with_options --------------------------------------------------------------------------------


def test_with_options_returns_a_changed_copy() -> None:
    changed = TENHOU.with_options(red_fives=(0, 0, 0), kuikae="none", game_length=GameLength.EAST)
    assert changed.red_fives == (0, 0, 0)
    assert changed.kuikae is Kuikae.NONE
    assert changed.game_length is GameLength.EAST
    assert changed.uma == TENHOU.uma
    assert TENHOU.red_fives == (1, 1, 1)  # the original is untouched
    assert TENHOU.with_options() == TENHOU


def test_with_options_validates() -> None:
    with pytest.raises(RulesetError, match="unknown ruleset option 'bogus'"):
        TENHOU.with_options(bogus=1)
    with pytest.raises(RulesetError, match="sum to zero"):
        TENHOU.with_options(uma=(1, 0, 0, 0))


def test_with_options_accepts_enum_sets() -> None:
    r = TENHOU.with_options(pao=frozenset({Pao.SUUKANTSU}), double_yakuman=[DoubleYakuman.KOKUSHI_13])
    assert r.pao == frozenset({Pao.SUUKANTSU})
    assert r.double_yakuman == frozenset({DoubleYakuman.KOKUSHI_13})


# -- presets -------------------------------------------------------------------------------------


def test_the_seat_count_is_not_an_override() -> None:
    """A table is built for its preset's seats: no option change turns four seats into three."""
    with pytest.raises(RulesetError, match="seats cannot be changed"):
        TENHOU.with_options(seats=3, uma=[15, 0, -15], red_fives=[0, 1, 1])
    assert preset("tenhou-sanma").with_options(game_length="east").seats == 3


def test_presets_by_name() -> None:
    assert set(PRESETS) == {"tenhou", "mahjongsoul", "ema"}  # the hub's: its tables seat four
    assert set(ALL_PRESETS) == {*PRESETS, "tenhou-sanma", "mahjongsoul-sanma"}
    assert all(r.seats == 4 for r in PRESETS.values())
    for name, ruleset in ALL_PRESETS.items():
        assert preset(name) is ruleset
        assert ruleset.name == name
    with pytest.raises(RulesetError, match="unknown ruleset preset 'wrc'"):
        preset("wrc")


def test_tenhou_is_the_default() -> None:
    assert Ruleset() == TENHOU
    assert TENHOU.red_fives == (1, 1, 1)
    assert TENHOU.uma == (20, 10, -10, -20)
    assert TENHOU.multiple_ron is MultipleRon.DOUBLE
    assert TENHOU.abort_sanchahou
    assert TENHOU.double_yakuman == frozenset()
    assert not TENHOU.chankan_ankan_kokushi
    assert TENHOU.pao_scope is PaoScope.FULL
    assert TENHOU.open_kan_dora is OpenKanDora.AFTER_DISCARD


def test_mahjongsoul_preset() -> None:
    assert MAHJONGSOUL.uma == (15, 5, -5, -15)
    assert MAHJONGSOUL.double_yakuman == frozenset(DoubleYakuman)
    assert MAHJONGSOUL.multiple_ron is MultipleRon.TRIPLE
    assert not MAHJONGSOUL.abort_sanchahou
    assert MAHJONGSOUL.chankan_ankan_kokushi
    assert MAHJONGSOUL.pao_scope is PaoScope.PORTION
    assert MAHJONGSOUL.kuikae is Kuikae.FULL


def test_ema_preset() -> None:
    assert EMA.red_fives == (0, 0, 0)
    assert EMA.start_points == EMA.return_points == 30000
    assert not EMA.oka
    assert EMA.multiple_ron is MultipleRon.HEAD_BUMP
    assert EMA.renhou is RenhouValue.MANGAN
    assert EMA.kazoe_limit is KazoeLimit.SANBAIMAN
    assert not EMA.composite_yakuman
    assert EMA.kan_during_riichi is KanDuringRiichi.STRICT
    assert EMA.chankan_ankan_kokushi
    assert not EMA.tobi


# -- options added after matches were stored ---------------------------------------------------

# The canonical documents (and hashes) of the presets as stored before ``karaten`` existed.
TENHOU_BEFORE_KARATEN = (
    '{"abort_kyuushu_kyuuhai":true,"abort_sanchahou":true,"abort_suucha_riichi":true,'
    '"abort_suufon_renda":true,"abort_suukaikan":true,"agari_yame":true,"chankan_ankan_kokushi":false,'
    '"composite_yakuman":true,"double_wind_pair_fu":4,"double_yakuman":[],"game_length":"east_south",'
    '"honba_value":300,"kan_during_riichi":"waits","kan_ura":true,"kazoe_limit":"yakuman",'
    '"kiriage_mangan":false,"kuikae":"full","leftover_sticks":"to_top","multiple_ron":"double",'
    '"nagashi_mangan":true,"name":"tenhou","noten_payment_total":3000,"oka":true,'
    '"open_kan_dora":"after_discard","open_tanyao":true,"pao":["daisangen","daisuushii"],'
    '"pao_scope":"full","pinfu_tsumo_fu":false,"red_fives":[1,1,1],"renhou":"none",'
    '"return_points":30000,"riichi_min_live_tiles":4,"riichi_min_points":1000,"start_points":25000,'
    '"sudden_death":true,"tenpai_yame":false,"tobi":true,"tobi_below":0,"uma":[20,10,-10,-20]}'
)
TENHOU_BEFORE_KARATEN_HASH = "217081fb57641422f6e3df3e0e49b3c67321ef56e22fbcf19ffd8ab5a867bc44"
EMA_HASH = "c93060cff2ce8c1fa7b9a4d6a16b37da6ef1811494e66a9e3a84e53216638562"


def test_karaten_presets() -> None:
    """docs/rules.md#karaten: Tenhou and Mahjong Soul count only the concealed tiles; EMA also the
    melds ("waiting only for a tile of which he already has 4")."""
    assert TENHOU.karaten is MAHJONGSOUL.karaten is Karaten.CONCEALED
    assert EMA.karaten is Karaten.CONCEALED_AND_MELDS
    assert Ruleset().karaten is Karaten.CONCEALED


def test_a_document_stored_before_an_option_existed_keeps_its_meaning_and_hash() -> None:
    """A stored match's ruleset replays under the rules it was played by: a complete document
    without ``karaten`` reads the earlier rule (the melds count), and writes the same JSON back."""
    stored = Ruleset.from_json(TENHOU_BEFORE_KARATEN)
    assert stored.karaten is Karaten.CONCEALED_AND_MELDS
    assert stored.to_json() == TENHOU_BEFORE_KARATEN
    assert stored.hash == TENHOU_BEFORE_KARATEN_HASH
    assert stored == TENHOU.with_options(karaten="concealed_and_melds")


def test_a_ruleset_with_the_earlier_rule_keeps_its_hash() -> None:
    """EMA's rules did not change, so neither did its canonical JSON nor its hash; the presets
    whose rules changed got a new hash."""
    assert EMA.hash == EMA_HASH
    assert "karaten" not in EMA.to_dict()
    assert TENHOU.to_dict()["karaten"] == "concealed"
    assert TENHOU.hash != TENHOU_BEFORE_KARATEN_HASH
    assert Ruleset.from_json(EMA.to_json()) == EMA


def test_a_partial_document_still_takes_tenhous_karaten() -> None:
    assert Ruleset.from_dict({"red_fives": [0, 0, 0]}).karaten is Karaten.CONCEALED
    assert Ruleset.from_dict({"karaten": "concealed_and_melds"}).karaten is Karaten.CONCEALED_AND_MELDS
