"""Exports of our own event log: pinned golden files for hand-picked hands, per-seat mjai views,
and round trips (export -> import -> verify, and re-export of the import) for self-play matches.

Golden files live in tests/records/golden/. After a deliberate change of the output, regenerate them
with ``JANTAKU_UPDATE_GOLDEN=1 pytest tests/records/test_exports.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from server.bots.selfplay import play_events
from server.engine.events import Event, RoundStarted, TileDrawn
from server.engine.rules import preset
from server.engine.views import redact
from server.records import RecordError, RecordFormat, read_record
from server.records.export import ExportFormat, export_match
from server.records.export_mjai import export_mjai, mjai_views, write_mjai
from server.records.export_tenhou6 import export_tenhou6, write_tenhou6
from server.records.from_events import record_from_events
from server.records.model import GameRecord
from server.records.replay import Outcome, replay_record
from tests.records.corpus import mjlog_bytes, mjlog_files, paired_games, tenhou6_bytes
from tests.records.golden_scenarios import SCENARIOS

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("JANTAKU_UPDATE_GOLDEN") == "1"
NAMES = ("A", "B", "C", "D")
WRITERS: dict[str, tuple[Callable[..., str], Callable[[GameRecord], str], str]] = {
    "tenhou6": (export_tenhou6, write_tenhou6, ".tenhou6.json"),
    "mjai": (export_mjai, write_mjai, ".mjai.jsonl"),
}


@cache
def scenario_events(name: str) -> tuple[Event, ...]:
    return tuple(SCENARIOS[name]())


def check_golden(path: Path, text: str) -> None:
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no golden file {path.name}: run with JANTAKU_UPDATE_GOLDEN=1 and review it"
    assert text == path.read_text(encoding="utf-8"), f"{path.name} changed"


def assert_verifies(record: GameRecord, what: str) -> None:
    reports = replay_record(record, record.ruleset(), file=what)
    assert [str(m) for r in reports for m in r.mismatches] == []
    assert all(r.outcome is Outcome.VERIFIED for r in reports if record.hands[r.index].complete)


# -- golden files ----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", sorted(WRITERS))
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_golden_export(name: str, fmt: str) -> None:
    export, _, suffix = WRITERS[fmt]
    check_golden(GOLDEN / f"{name}{suffix}", export(scenario_events(name), names=NAMES))


@pytest.mark.parametrize("fmt", sorted(WRITERS))
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_golden_round_trip(name: str, fmt: str) -> None:
    """The export reads back, replays through the engine with no mismatch and re-exports the same."""
    export, write, _ = WRITERS[fmt]
    text = export(scenario_events(name), names=NAMES)
    record = read_record(text)
    assert record.source is (RecordFormat.MJAI if fmt == "mjai" else RecordFormat.TENHOU6)
    assert [p for p in record.all_problems if "stops before end_game" not in p] == []
    assert record.hands[0].complete
    assert_verifies(record, name)
    assert write(record) == text


def test_golden_player_view() -> None:
    """What seat 1 saw of the called riichi tile hand: others' tiles and draws are "?"."""
    events = scenario_events("riichi_tile_called")
    check_golden(GOLDEN / "riichi_tile_called.seat1.mjai.jsonl", export_mjai(events, names=NAMES, viewer=1))


def test_tenhou6_documents_the_viewer_reads() -> None:
    """Shape checks against the format's public readers (mjai-reviewer's convlog schema)."""
    doc = json.loads(export_tenhou6(scenario_events("rinshan_after_each_kan"), names=NAMES))
    assert set(doc) >= {"title", "name", "rule", "log"}
    assert doc["rule"] == {"disp": "般南喰赤", "aka": 1}
    assert len(doc["title"]) == 2 and doc["name"] == list(NAMES)
    (hand,) = doc["log"]
    assert len(hand) == 17
    assert hand[0] == [0, 0, 0] and len(hand[1]) == 4
    for seat in range(4):
        dealt, takes, discards = hand[4 + 3 * seat : 7 + 3 * seat]
        assert len(dealt) == 13 and all(isinstance(t, int) for t in dealt)
        for item in (*takes, *discards):
            if isinstance(item, str):
                assert len(item) in (3, 7, 9), item  # "r60", chi/pon, kans (convlog's lengths)
    assert hand[16][0] == "和了"


# -- exports of whole self-play matches -------------------------------------------------------------

MATCHES = [
    ("tenhou", ("greedy", "random", "greedy", "random")),
    ("tenhou", ("random", "random", "random", "random")),
    ("mahjongsoul", ("random", "greedy", "random", "greedy")),
    ("ema", ("greedy", "greedy", "random", "random")),
    ("tenhou-sanma", ("greedy", "random", "greedy")),
    ("mahjongsoul-sanma", ("random", "greedy", "greedy")),
]


@cache
def match_events(ruleset: str, bots: tuple[str, ...], seed: str) -> tuple[Event, ...]:
    return tuple(play_events(preset(ruleset), seed.encode(), bots))


@pytest.mark.parametrize("fmt", sorted(WRITERS))
@pytest.mark.parametrize(("ruleset", "bots"), MATCHES, ids=[f"{r}-{'-'.join(b)}" for r, b in MATCHES])
def test_self_play_round_trip(ruleset: str, bots: tuple[str, ...], fmt: str) -> None:
    """export -> import -> verify gives 0 mismatches, and re-exporting the import gives the same text."""
    events = match_events(ruleset, bots, f"round-trip-{ruleset}")
    export, write, _ = WRITERS[fmt]
    text = export(events, names=bots)
    record = read_record(text)
    assert record.complete and record.all_problems == ()
    assert record.ruleset() == preset(ruleset)
    assert record.names == bots
    assert len(record.hands) == sum(isinstance(e, RoundStarted) for e in events)
    assert_verifies(record, f"{ruleset}-{fmt}")
    assert write(record) == text


@pytest.mark.parametrize(
    ("ruleset", "bots"), [*MATCHES[:2], MATCHES[4]], ids=["greedy-random", "random", "sanma"]
)
def test_steps_come_out_as_the_tenhou_readers_order_them(ruleset: str, bots: tuple[str, ...]) -> None:
    """record_from_events places dora reveals and deposits where the tenhou.net/6 reader does."""
    events = match_events(ruleset, bots, f"round-trip-{ruleset}")
    ours = record_from_events(events)
    again = read_record(export_tenhou6(events))
    assert [h.steps for h in again.hands] == [h.steps for h in ours.hands]
    assert [h.dora_indicators for h in again.hands] == [h.dora_indicators for h in ours.hands]
    assert [h.wins for h in again.hands] != []


def test_export_match_dispatches_and_validates() -> None:
    events = scenario_events("kyuushu_kyuuhai")
    assert export_match(events, ExportFormat.TENHOU6, names=NAMES) == export_tenhou6(events, names=NAMES)
    assert export_match(events, "mjai", names=NAMES) == export_mjai(events, names=NAMES)
    assert export_match(events, "mjai", viewer=2) == export_mjai(events, viewer=2)
    with pytest.raises(ValueError, match="tenhou6"):
        export_match(events, "xml")
    with pytest.raises(ValueError, match="per-seat"):
        export_match(events, "tenhou6", viewer=0)
    redacted = [redact(e, 0) for e in events]
    with pytest.raises(RecordError, match="omniscient"):
        export_match(redacted, "mjai")


def test_unfinished_match_exports_what_is_complete() -> None:
    """A log cut in the middle of a hand: tenhou6 keeps the finished hands, mjai writes every event."""
    events = list(match_events(*MATCHES[0], "round-trip-tenhou"))
    starts = [i for i, e in enumerate(events) if isinstance(e, RoundStarted)]
    cut = events[: starts[2] + 5]
    doc = json.loads(export_tenhou6(cut))
    assert len(doc["log"]) == 2 and "sc" not in doc
    lines = [json.loads(line) for line in export_mjai(cut).splitlines()]
    assert sum(e["type"] == "start_kyoku" for e in lines) == 3
    assert lines[-1]["type"] != "end_game"
    record = read_record(export_mjai(cut))
    assert not record.complete and not record.hands[-1].complete


# -- per-seat views ---------------------------------------------------------------------------------


def _hidden_lines(view: str, full: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    pairs = list(zip(map(json.loads, view.splitlines()), map(json.loads, full.splitlines()), strict=True))
    return [(v, f) for v, f in pairs if v != f]


def test_views_hide_exactly_what_redact_hides() -> None:
    events = match_events(*MATCHES[0], "round-trip-tenhou")
    full = export_mjai(events)
    draws = [e for e in events if isinstance(e, TileDrawn)]
    for seat, view in enumerate(mjai_views(events)):
        assert view == export_mjai(events, viewer=seat)
        hidden_draws = 0
        for v, f in _hidden_lines(view, full):
            assert v["type"] in ("start_kyoku", "tsumo")
            if v["type"] == "tsumo":
                assert v["actor"] != seat and v["pai"] == "?" and f["pai"] != "?"
                hidden_draws += 1
            else:
                for s in range(4):
                    assert (v["tehais"][s] == f["tehais"][s]) == (s == seat)
                    assert s == seat or v["tehais"][s] == ["?"] * 13
        assert hidden_draws == sum(d.seat != seat for d in draws)


def test_views_are_accepted_by_mortals_player_state() -> None:
    """Mortal's own state tracker (libriichi, shipped in the ``mjai`` package) takes every view
    event by event without an error. Skipped where that package is not installed."""
    libriichi = pytest.importorskip("mjai.mlibriichi.state")
    for ruleset, bots in MATCHES[:3]:
        events = match_events(ruleset, bots, f"round-trip-{ruleset}")
        for seat, view in enumerate(mjai_views(events)):
            state = libriichi.PlayerState(seat)
            for line in view.splitlines():
                state.update(line)
    for name in sorted(SCENARIOS):
        for seat, view in enumerate(mjai_views(scenario_events(name))):
            state = libriichi.PlayerState(seat)
            for line in view.splitlines():
                state.update(line)


# -- the writers against real Tenhou records --------------------------------------------------------


@pytest.mark.parametrize("name", paired_games())
def test_tenhou6_writer_reproduces_tenhou(name: str) -> None:
    """Written from the mjlog of a game, every hand is the hand Tenhou's own tenhou.net/6 JSON of that
    game holds (tiles, takes and calls, discards, dora, result labels, point text and yaku)."""
    ours = json.loads(write_tenhou6(read_record(mjlog_bytes(name))))["log"]
    theirs = [
        json.loads(line)["log"][0] for line in tenhou6_bytes(name).decode().splitlines() if line.strip()
    ]
    assert 0 < len(theirs) <= len(ours)
    for index, (mine, tenhou) in enumerate(zip(ours, theirs, strict=False)):
        assert mine == tenhou, f"hand {index}"


@pytest.mark.parametrize("path", mjlog_files())
def test_corpus_games_written_as_mjai_verify(path: Path) -> None:
    """Real games written by the mjai writer (Mortal's order) read back and replay cleanly."""
    original = read_record(path.read_bytes())
    again = read_record(write_mjai(original))
    reports = replay_record(again, again.ruleset(), file=path.name)
    assert [str(m) for r in reports for m in r.mismatches] == []
    assert sum(r.outcome is Outcome.VERIFIED for r in reports) == sum(h.complete for h in original.hands)
