from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from server.engine.events import DrawReason
from server.engine.melds import MeldType
from server.engine.tiles import parse_tile
from server.records import (
    CallStep,
    DiscardStep,
    DrawStep,
    GameRecord,
    RecordError,
    RiichiAcceptedStep,
    TruncatedRecordError,
    read_record,
)
from server.records.mjai import read_mjai, write_mjai
from tests.records.corpus import mjlog_files

TEHAIS = [
    ["1m", "2m", "3m", "4m", "5mr", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "4p"],
    ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "5p", "6p", "7p", "8p"],
    ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "9p", "1s", "3s", "4s"],
    ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "6s", "E", "E", "P"],
]


def log(*events: dict[str, Any], end: bool = True) -> str:
    start = [
        {"type": "start_game", "names": ["A", "B", "C", "D"]},
        {
            "type": "start_kyoku", "bakaze": "E", "dora_marker": "9s", "kyoku": 1, "honba": 0,
            "kyotaku": 0, "oya": 0, "scores": [25000] * 4, "tehais": TEHAIS,
        },
    ]  # fmt: skip
    tail = [{"type": "end_kyoku"}, {"type": "end_game"}] if end else []
    return "\n".join(json.dumps(e) for e in [*start, *events, *tail]) + "\n"


RIICHI_PON_RON = (
    {"type": "tsumo", "actor": 0, "pai": "E"},
    {"type": "reach", "actor": 0},
    {"type": "dahai", "actor": 0, "pai": "E", "tsumogiri": True},
    {"type": "pon", "actor": 3, "target": 0, "pai": "E", "consumed": ["E", "E"]},
    {"type": "reach_accepted", "actor": 0},  # written after the call: moved before it
    {"type": "dahai", "actor": 3, "pai": "P", "tsumogiri": False},
    {"type": "hora", "actor": 1, "target": 3, "deltas": [0, 1000, 0, -1000], "ura_markers": []},
)


def test_riichi_pon_ron() -> None:
    record = read_mjai(log(*RIICHI_PON_RON))
    assert record.complete and not record.all_problems
    east, haku = parse_tile("1z"), parse_tile("5z")
    hand = record.hands[0]
    assert hand.steps == (
        DrawStep(0, east),
        DiscardStep(0, east, tsumogiri=True, riichi=True),
        RiichiAcceptedStep(0),
        CallStep(3, MeldType.PON, (east, east, east), east, 0, (east, east)),
        DiscardStep(3, haku, tsumogiri=False),
    )
    (win,) = hand.wins
    assert (win.seat, win.from_seat, win.win_tile, win.deltas) == (1, 3, haku, (0, 1000, 0, -1000))
    assert win.han is None and win.fu is None and win.points is None
    assert record.rules == {"red_fives": (1, 1, 1)}  # a red five was seen
    assert hand.end_scores == (24000, 26000, 25000, 24000)


def test_missing_tsumogiri_is_derived() -> None:
    events = [dict(e) for e in RIICHI_PON_RON]
    del events[2]["tsumogiri"], events[5]["tsumogiri"]
    assert read_mjai(log(*events)) == read_mjai(log(*RIICHI_PON_RON))


def test_kyuushu_is_inferred() -> None:
    record = read_mjai(
        log({"type": "tsumo", "actor": 0, "pai": "C"}, {"type": "ryukyoku", "deltas": [0] * 4})
    )
    draw = record.hands[0].draw
    assert draw is not None and draw.reason is DrawReason.KYUUSHU_KYUUHAI and draw.declarer == 0


def test_without_end_game_is_incomplete() -> None:
    record = read_mjai(log(*RIICHI_PON_RON[:3], end=False))
    assert not record.complete and not record.hands[0].complete
    assert "the log stops before end_game" in record.problems


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "not json\n",
        "[1, 2]\n",
        '{"no_type": 1}\n',
        '{"type": "tsumo", "actor": 0, "pai": "1m"}\n',
        '{"type": "start_game"}\n',
        log({"type": "tsumo", "actor": 0, "pai": "?"}),
        log({"type": "tsumo", "actor": 0, "pai": "0m"}),
        log({"type": "tsumo", "actor": 4, "pai": "1m"}),
        log({"type": "tsumo", "actor": "0", "pai": "1m"}),
        log({"type": "chi", "actor": 1, "target": 0, "pai": "3m", "consumed": ["1m"]}),
        log({"type": "ankan", "actor": 0, "consumed": "1m1m1m1m"}),
        log({"type": "hora", "actor": 1, "target": 0, "deltas": [1, 2, 3]}),
        log().replace('"bakaze": "E"', '"bakaze": "X"'),
        log().replace('"kyoku": 1', '"kyoku": 0'),
        log().replace('"oya": 0', '"oya": null'),
        log().replace('"scores": [25000, 25000, 25000, 25000]', '"scores": [1]'),
        log().replace('"1p", ', ""),
        b"\xff\xfe\xfd",
        '{"type": "start_game"}\n' + "[" * 100000 + "\n",
    ],
)
def test_malformed_input_raises_record_error(text: str | bytes) -> None:
    with pytest.raises(RecordError):
        read_mjai(text)


def test_cut_last_line_is_truncated() -> None:
    text = log(*RIICHI_PON_RON)
    with pytest.raises(TruncatedRecordError):
        read_mjai(text[: text.rindex("end_game") - 5])


def _without_reasons(text: str) -> str:
    events = [json.loads(line) for line in text.splitlines()]
    for event in events:
        event.pop("reason", None)
    return "\n".join(json.dumps(e) for e in events)


def _comparable(record: GameRecord) -> list[Any]:
    out: list[Any] = []
    for hand in record.hands:
        draw = hand.draw and (hand.draw.reason, hand.draw.deltas, hand.draw.nagashi, hand.draw.declarer)
        wins = [(w.seat, w.from_seat, w.win_tile, w.hand, w.deltas, w.ura_indicators) for w in hand.wins]
        out.append((hand.label, hand.dealt, hand.steps, hand.dora_indicators, hand.complete, draw, wins))
    return out


@pytest.mark.parametrize("path", mjlog_files())
def test_corpus_round_trip(path: Path) -> None:
    """Every corpus game written as mjai reads back the same, with or without ryukyoku reasons."""
    original = read_record(path.read_bytes())
    text = write_mjai(original)
    for again in (read_mjai(text), read_mjai(_without_reasons(text))):
        assert _comparable(again) == _comparable(original)
        assert again.complete == original.complete
        hand_problems = [p for h in again.hands for p in h.problems if "stops before" not in p]
        assert hand_problems == []
