"""server.hub.wire: every engine event and action converts to its wire form, and actions back."""

from __future__ import annotations

import json

import msgspec
import pytest

from client_protocol import events as w
from client_protocol.codec import decode_server, encode
from client_protocol.errors import ErrorCode, ProtocolError
from client_protocol.messages import Action as WireAction
from client_protocol.messages import ActionType, EventMessage
from server.engine import events as ev
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
)
from server.engine.melds import Meld, MeldType
from server.engine.tiles import parse_tile, parse_tiles
from server.hub.wire import (
    action_from_wire,
    action_to_wire,
    event_to_wire,
    legal_actions_to_wire,
    meld_to_wire,
)

T = parse_tile
SCORES = (25000, 25000, 25000, 25000)
PON = Meld(MeldType.PON, parse_tiles("550p"), called=T("0p"), from_seat=2)
KAKAN = Meld(MeldType.KAKAN, parse_tiles("5550p"), called=T("0p"), from_seat=2, added=T("5p"))
ANKAN = Meld(MeldType.ANKAN, parse_tiles("1111z"), called=None, from_seat=1)
HAND = parse_tiles("123406m11p34s11z")

# (engine event, expected JSON of its wire form without the "type" field)
CASES: list[tuple[ev.Event, str, dict[str, object]]] = [
    (
        ev.MatchStarted("{}", "h" * 64, "c" * 64, "0.1.0", "wall-v1", SCORES),
        "match_started",
        {
            "ruleset_json": "{}",
            "ruleset_hash": "h" * 64,
            "seed_commitment": "c" * 64,
            "engine_version": "0.1.0",
            "wall_algorithm": "wall-v1",
            "scores": list(SCORES),
        },
    ),
    (
        ev.RoundStarted(1, 0, 1, 2, 1, 1, SCORES, T("9s"), "w" * 64, (None, HAND, None, None)),
        "round_started",
        {
            "hand_index": 1,
            "round_wind": 0,
            "kyoku": 1,
            "honba": 2,
            "riichi_sticks": 1,
            "dealer": 1,
            "scores": list(SCORES),
            "dora_indicator": "9s",
            "wall_commitment": "w" * 64,
            "hands": [
                None,
                ["1m", "2m", "3m", "4m", "0m", "6m", "1p", "1p", "3s", "4s", "1z", "1z"],
                None,
                None,
            ],
        },
    ),
    (ev.TileDrawn(2, None), "tile_drawn", {"seat": 2, "tile": None, "rinshan": False}),
    (ev.TileDrawn(0, T("0s"), rinshan=True), "tile_drawn", {"seat": 0, "tile": "0s", "rinshan": True}),
    (
        ev.TileDiscarded(3, T("7z"), tsumogiri=True, riichi=True),
        "tile_discarded",
        {"seat": 3, "tile": "7z", "tsumogiri": True, "riichi": True},
    ),
    (
        ev.RiichiAccepted(3, (25000, 25000, 25000, 24000), 1),
        "riichi_accepted",
        {"seat": 3, "scores": [25000, 25000, 25000, 24000], "riichi_sticks": 1},
    ),
    (
        ev.MeldCalled(1, MeldType.PON, PON, T("0p"), parse_tiles("55p")),
        "meld_called",
        {
            "seat": 1,
            "meld_type": "pon",
            "meld": {
                "type": "pon",
                "tiles": ["5p", "5p", "0p"],
                "called": "0p",
                "from_seat": 2,
                "added": None,
            },
            "tile": "0p",
            "consumed": ["5p", "5p"],
        },
    ),
    (
        ev.MeldCalled(1, MeldType.KAKAN, KAKAN, T("5p"), parse_tiles("5p")),
        "meld_called",
        {
            "seat": 1,
            "meld_type": "kakan",
            "meld": {
                "type": "kakan",
                "tiles": ["5p", "5p", "5p", "0p"],
                "called": "0p",
                "from_seat": 2,
                "added": "5p",
            },
            "tile": "5p",
            "consumed": ["5p"],
        },
    ),
    (
        ev.MeldCalled(1, MeldType.ANKAN, ANKAN, None, parse_tiles("1111z")),
        "meld_called",
        {
            "seat": 1,
            "meld_type": "ankan",
            "meld": {"type": "ankan", "tiles": ["1z"] * 4, "called": None, "from_seat": 1, "added": None},
            "tile": None,
            "consumed": ["1z"] * 4,
        },
    ),
    (ev.NorthDeclared(2, T("4z")), "north_declared", {"seat": 2, "tile": "4z"}),
    (ev.DoraRevealed(T("4z")), "dora_revealed", {"indicator": "4z"}),
    (
        ev.HandWon(
            seat=1,
            from_seat=3,
            win_tile=T("3s"),
            hand=parse_tiles("123m406p333s77z"),
            melds=(ANKAN,),
            yaku=(ev.YakuScore("riichi", 1), ev.YakuScore("aka_dora", 1)),
            han=2,
            fu=70,
            points=4500,
            limit="",
            yakuman=0,
            dora_indicators=(T("4p"),),
            ura_indicators=(T("9m"),),
            pao_seat=None,
            deltas=(0, 5500, 0, -4500),
            scores=(25000, 30500, 25000, 19500),
        ),
        "hand_won",
        {
            "seat": 1,
            "from_seat": 3,
            "win_tile": "3s",
            "hand": ["1m", "2m", "3m", "4p", "0p", "6p", "3s", "3s", "3s", "7z", "7z"],
            "melds": [{"type": "ankan", "tiles": ["1z"] * 4, "called": None, "from_seat": 1, "added": None}],
            "yaku": [{"name": "riichi", "han": 1}, {"name": "aka_dora", "han": 1}],
            "han": 2,
            "fu": 70,
            "points": 4500,
            "limit": "",
            "yakuman": 0,
            "dora_indicators": ["4p"],
            "ura_indicators": ["9m"],
            "pao_seat": None,
            "deltas": [0, 5500, 0, -4500],
            "scores": [25000, 30500, 25000, 19500],
        },
    ),
    (
        ev.HandDrawn(
            ev.DrawReason.EXHAUSTIVE,
            (True, False, False, False),
            (parse_tiles("1m"), None, None, None),
            (2,),
            (3000, -1000, -1000, -1000),
            (28000, 24000, 24000, 24000),
        ),
        "hand_drawn",
        {
            "reason": "exhaustive",
            "tenpai": [True, False, False, False],
            "hands": [["1m"], None, None, None],
            "nagashi": [2],
            "deltas": [3000, -1000, -1000, -1000],
            "scores": [28000, 24000, 24000, 24000],
        },
    ),
    (
        ev.WallRevealed("ab", parse_tiles("0m1z"), "w" * 64),
        "wall_revealed",
        {"salt": "ab", "wall": ["0m", "1z"], "wall_commitment": "w" * 64},
    ),
    (ev.RoundEnded(SCORES, 2), "round_ended", {"scores": list(SCORES), "riichi_sticks": 2}),
    (
        ev.MatchEnded((40000, 30000, 20000, 10000), (1, 2, 3, 4), (50.0, 10.0, -20.0, -40.0), "5eed"),
        "match_ended",
        {
            "scores": [40000, 30000, 20000, 10000],
            "ranks": [1, 2, 3, 4],
            "final_points": [50.0, 10.0, -20.0, -40.0],
            "seed": "5eed",
        },
    ),
]


@pytest.mark.parametrize(("event", "tag", "fields"), CASES, ids=[f"{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_event_to_wire(event: ev.Event, tag: str, fields: dict[str, object]) -> None:
    wire_event = event_to_wire(event)
    message = EventMessage(match_id="m", version=1, event=wire_event)
    data = encode(message)
    assert json.loads(data)["event"] == {"type": tag, **fields}
    assert decode_server(data) == message  # what the server sends, a client reads back unchanged


def test_every_engine_event_type_is_covered() -> None:
    engine_types = {type(event) for event, _, _ in CASES}
    assert engine_types == set(ev.Event.__args__)
    assert {type(event_to_wire(event)) for event, _, _ in CASES} == set(w.EVENT_TYPES)


def test_wire_enums_mirror_the_engine() -> None:
    assert {m.value for m in w.MeldType} == {m.value for m in MeldType}
    assert {r.value for r in w.DrawReason} == {r.value for r in ev.DrawReason}
    assert {a.value for a in ActionType} == set(ACTION_TYPES)


ACTIONS: list[tuple[Action, dict[str, object]]] = [
    (Discard(T("0p")), {"type": "discard", "tile": "0p", "tsumogiri": False}),
    (Discard(T("7z"), tsumogiri=True), {"type": "discard", "tile": "7z", "tsumogiri": True}),
    (Riichi(T("5m"), tsumogiri=False), {"type": "riichi", "tile": "5m", "tsumogiri": False}),
    (Tsumo(), {"type": "tsumo"}),
    (Ron(), {"type": "ron"}),
    (Pass(), {"type": "pass"}),
    (Chi((T("4p"), T("0p"))), {"type": "chi", "consumed": ["4p", "0p"]}),
    (Pon((T("5s"), T("0s"))), {"type": "pon", "consumed": ["5s", "0s"]}),
    (Daiminkan((T("1z"),) * 3), {"type": "daiminkan", "consumed": ["1z", "1z", "1z"]}),
    (Ankan((T("9m"),) * 4), {"type": "ankan", "consumed": ["9m"] * 4}),
    (Kakan(T("0m")), {"type": "kakan", "tile": "0m"}),
    (KyuushuKyuuhai(), {"type": "kyuushu_kyuuhai"}),
    (Nukidora(), {"type": "nukidora"}),
]


@pytest.mark.parametrize(("action", "data"), ACTIONS, ids=[type(a).__name__ for a, _ in ACTIONS])
def test_action_round_trip(action: Action, data: dict[str, object]) -> None:
    wire_action = action_to_wire(action)
    assert json.loads(msgspec.json.encode(wire_action)) == data
    assert action_from_wire(wire_action) == action
    assert action_from_wire(msgspec.convert(data, WireAction)) == action


def test_every_action_type_is_covered() -> None:
    assert {type(a) for a, _ in ACTIONS} == set(ACTION_TYPES.values())


def test_a_discard_or_riichi_without_tsumogiri_is_malformed() -> None:
    # Actions are echoed from legal_actions (docs/protocol.md): the flag is never guessed.
    for kind in (ActionType.DISCARD, ActionType.RIICHI):
        with pytest.raises(ProtocolError) as err:
            action_from_wire(WireAction(type=kind, tile="3m"))
        assert err.value.code is ErrorCode.MALFORMED and "tsumogiri" in err.value.message
    assert action_from_wire(WireAction(type=ActionType.DISCARD, tile="3m", tsumogiri=False)) == Discard(
        T("3m"), False
    )


@pytest.mark.parametrize(
    "wire_action",
    [
        WireAction(type=ActionType.DISCARD),
        WireAction(type=ActionType.DISCARD, consumed=("1m", "2m")),
        WireAction(type=ActionType.RIICHI, tsumogiri=True),
        WireAction(type=ActionType.PASS, tile="1m"),
        WireAction(type=ActionType.TSUMO, tsumogiri=False),
        WireAction(type=ActionType.CHI, consumed=("4p",)),
        WireAction(type=ActionType.CHI, consumed=()),
        WireAction(type=ActionType.CHI),
        WireAction(type=ActionType.PON, consumed=("5s", "5s", "5s")),
        WireAction(type=ActionType.ANKAN, consumed=("1z",) * 3),
        WireAction(type=ActionType.KAKAN, tile="1z", tsumogiri=False),
        WireAction(type=ActionType.KAKAN, consumed=("1z",)),
    ],
)
def test_action_from_wire_rejects_misfits_as_malformed(wire_action: WireAction) -> None:
    with pytest.raises(ProtocolError) as info:
        action_from_wire(wire_action)
    assert info.value.code is ErrorCode.MALFORMED
    assert wire_action.type.value in info.value.message


def test_legal_actions_are_sorted_by_type_then_tile() -> None:
    actions: list[Action] = [
        Pass(),
        Discard(T("1z")),
        Chi((T("3p"), T("4p"))),
        Discard(T("0p")),
        Discard(T("5p")),
        Chi((T("2p"), T("3p"))),
    ]
    order = [(a.type.value, a.tile or a.consumed) for a in legal_actions_to_wire(actions)]
    assert order == [
        ("discard", "5p"),
        ("discard", "0p"),
        ("discard", "1z"),
        ("pass", None),
        ("chi", ("2p", "3p")),
        ("chi", ("3p", "4p")),
    ]


def test_meld_to_wire() -> None:
    assert meld_to_wire(KAKAN) == w.Meld(
        type=w.MeldType.KAKAN, tiles=("5p", "5p", "5p", "0p"), called="0p", from_seat=2, added="5p"
    )
