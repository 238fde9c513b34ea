"""Actions: the JSON form of every action type and precise errors for malformed input."""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.engine.actions import (
    ACTION_TYPES,
    Action,
    Ankan,
    Chi,
    Daiminkan,
    Discard,
    Kakan,
    KyuushuKyuuhai,
    Nukidora,
    Pass,
    Pon,
    Riichi,
    Ron,
    Tsumo,
    action_from_dict,
    action_to_dict,
)
from server.engine.errors import NotationError
from server.engine.tiles import parse_tile, parse_tiles

EXAMPLES: list[tuple[Action, dict[str, Any]]] = [
    (Discard(parse_tile("0p")), {"type": "discard", "tile": "0p", "tsumogiri": False}),
    (Discard(parse_tile("7z"), tsumogiri=True), {"type": "discard", "tile": "7z", "tsumogiri": True}),
    (Riichi(parse_tile("3s")), {"type": "riichi", "tile": "3s", "tsumogiri": False}),
    (Riichi(parse_tile("9m"), tsumogiri=True), {"type": "riichi", "tile": "9m", "tsumogiri": True}),
    (Tsumo(), {"type": "tsumo"}),
    (Ron(), {"type": "ron"}),
    (Pass(), {"type": "pass"}),
    (Chi((parse_tile("4m"), parse_tile("0m"))), {"type": "chi", "consumed": "40m"}),
    (Pon((parse_tile("1z"), parse_tile("1z"))), {"type": "pon", "consumed": "11z"}),
    (Daiminkan(parse_tiles("550s")), {"type": "daiminkan", "consumed": "550s"}),  # type: ignore[arg-type]
    (Ankan(parse_tiles("9999p")), {"type": "ankan", "consumed": "9999p"}),  # type: ignore[arg-type]
    (Kakan(parse_tile("0s")), {"type": "kakan", "tile": "0s"}),
    (KyuushuKyuuhai(), {"type": "kyuushu_kyuuhai"}),
    (Nukidora(), {"type": "nukidora"}),
]


def test_examples_cover_every_action_type() -> None:
    assert {action.TYPE for action, _ in EXAMPLES} == set(ACTION_TYPES)
    assert set(ACTION_TYPES) == {
        "discard",
        "riichi",
        "tsumo",
        "ron",
        "pass",
        "chi",
        "pon",
        "daiminkan",
        "ankan",
        "kakan",
        "kyuushu_kyuuhai",
        "nukidora",
    }


@pytest.mark.parametrize(("action", "data"), EXAMPLES, ids=lambda x: getattr(x, "TYPE", ""))
def test_to_dict(action: Action, data: dict[str, Any]) -> None:
    assert action_to_dict(action) == data


@pytest.mark.parametrize(("action", "data"), EXAMPLES, ids=lambda x: getattr(x, "TYPE", ""))
def test_from_dict(action: Action, data: dict[str, Any]) -> None:
    assert action_from_dict(data) == action


@pytest.mark.parametrize(("action", "data"), EXAMPLES, ids=lambda x: getattr(x, "TYPE", ""))
def test_round_trip_through_json_text(action: Action, data: dict[str, Any]) -> None:
    assert action_from_dict(json.loads(json.dumps(action_to_dict(action)))) == action


def test_tsumogiri_defaults_to_false() -> None:
    assert action_from_dict({"type": "discard", "tile": "1m"}) == Discard(0, False)
    assert action_from_dict({"type": "riichi", "tile": "1m"}) == Riichi(0, False)


def test_actions_are_hashable_values() -> None:
    assert len({Discard(0), Discard(0), Discard(0, True), Riichi(0), Pass(), Pass()}) == 4


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "an action must be an object, got list"),
        ("discard", "an action must be an object, got str"),
        ({}, "unknown action type None"),
        ({"type": "kan"}, "unknown action type 'kan'"),
        ({"type": 3}, "unknown action type 3"),
        ({"type": "discard"}, "discard: 'tile' must be an mpsz tile like '5m', got None"),
        ({"type": "discard", "tile": 4}, "discard: 'tile' must be an mpsz tile"),
        ({"type": "discard", "tile": "1m", "tsumogiri": "yes"}, "discard: 'tsumogiri' must be a boolean"),
        ({"type": "riichi", "tile": "1m", "tsumogiri": 1}, "riichi: 'tsumogiri' must be a boolean"),
        ({"type": "discard", "tile": "12m"}, "exactly one tile, got 2 in '12m'"),
        ({"type": "discard", "tile": "5x"}, "unexpected character 'x' at position 1 in '5x'"),
        ({"type": "kakan"}, "kakan: 'tile' must be an mpsz tile"),
        ({"type": "chi"}, "chi: 'consumed' must be an mpsz string, got None"),
        ({"type": "chi", "consumed": ["4m", "5m"]}, "chi: 'consumed' must be an mpsz string"),
        ({"type": "chi", "consumed": "456m"}, "chi: 'consumed' needs 2 tiles, got '456m'"),
        ({"type": "pon", "consumed": "1z"}, "pon: 'consumed' needs 2 tiles"),
        ({"type": "daiminkan", "consumed": "55m"}, "daiminkan: 'consumed' needs 3 tiles"),
        ({"type": "ankan", "consumed": "555m"}, "ankan: 'consumed' needs 4 tiles"),
        ({"type": "ankan", "consumed": "5555q"}, "unexpected character 'q' at position 4"),
        ({"type": "pass", "tile": "1m"}, "pass: unexpected field(s) ['tile']"),
        ({"type": "tsumo", "seat": 1}, "tsumo: unexpected field(s) ['seat']"),
        ({"type": "discard", "tile": "1m", "riichi": True}, "discard: unexpected field(s) ['riichi']"),
        ({"type": "kakan", "tile": "1m", "tsumogiri": False}, "kakan: unexpected field(s) ['tsumogiri']"),
    ],
)
def test_malformed_actions_are_refused_with_the_reason(data: Any, message: str) -> None:
    with pytest.raises(NotationError) as info:
        action_from_dict(data)
    assert message in str(info.value)


def test_errors_are_value_errors() -> None:
    with pytest.raises(ValueError, match="unknown action type"):
        action_from_dict({"type": "open_riichi"})


def test_actions_hash_and_compare_like_generated_dataclass_methods() -> None:
    # The actions spell out __eq__/__hash__ (compiled in the mypyc build); they must keep the
    # dataclass semantics and hash values, so sets of actions keep their iteration order.
    from server.engine.actions import DISCARDS, PASS, RIICHIS, Chi, Discard, Kakan, Pass, Riichi, Ron, Tsumo

    assert hash(Discard(5, True)) == hash((5, True))
    assert hash(Riichi(34, False)) == hash((34, False))
    assert hash(Chi((1, 2))) == hash(((1, 2),))
    assert hash(Kakan(7)) == hash((7,))
    assert hash(Tsumo()) == hash(Ron()) == hash(())
    assert Discard(5, True) == DISCARDS[5][1] and Riichi(5, False) == RIICHIS[5][0]
    assert Discard(5, False) != Riichi(5, False) and Discard(5, False) != Discard(5, True)
    assert Tsumo() != Ron() and Pass() == PASS
    assert Discard(5) != (5, False)
    legal = frozenset({Discard(1), Riichi(1), Tsumo()})
    assert Discard(1) in legal and Ron() not in legal and Riichi(1, True) not in legal
