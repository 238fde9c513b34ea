"""The browser client's JavaScript, run under node: the view fold (checked event by event against
client_protocol.tracker on whole matches), tiles, actions and the connection logic.

Skipped, with the reason, when ``node`` (18 or newer) is not installed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from client_protocol.codec import decode_server
from client_protocol.messages import EventMessage
from client_protocol.tracker import MatchTracker
from server.engine.events import Event, NorthDeclared, RoundStarted
from server.engine.rules import PRESETS, SANMA_PRESETS
from server.hub.wire import event_to_wire
from tests.nodejs import needs_node, run_node_suite
from tests.web.scenarios import MATCH_ID, full_match, wire_stream

JS_TESTS = Path(__file__).resolve().parent / "js"

pytestmark = needs_node("the browser client's JS tests")


def _stream_fixture(messages: list[dict[str, Any]], seat: int | None, every: int) -> dict[str, Any]:
    """The messages and the Python tracker's view after every ``every``-th event (and the last)."""
    tracker = MatchTracker(MATCH_ID, seat)
    views: dict[str, Any] = {}
    for i, message in enumerate(messages):
        decoded = decode_server(json.dumps(message))
        assert isinstance(decoded, EventMessage)
        tracker.apply(decoded)
        if i % every == 0 or i == len(messages) - 1:
            views[str(decoded.version)] = msgspec.to_builtins(tracker.view())
    return {"match_id": MATCH_ID, "seat": seat, "messages": messages, "views": views}


def _snapshot_fixture(messages: list[dict[str, Any]], seat: int | None, cut: int) -> dict[str, Any]:
    tracker = MatchTracker(MATCH_ID, seat)
    for message in messages[:cut]:
        decoded = decode_server(json.dumps(message))
        assert isinstance(decoded, EventMessage)
        tracker.apply(decoded)
    snapshot = msgspec.to_builtins(tracker.snapshot())
    for message in messages[cut:]:
        decoded = decode_server(json.dumps(message))
        assert isinstance(decoded, EventMessage)
        tracker.apply(decoded)
    return {"snapshot": snapshot, "messages": messages[cut:], "final": msgspec.to_builtins(tracker.view())}


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    east = PRESETS["tenhou"].with_options(game_length="east")
    streams: list[dict[str, Any]] = []
    snapshots: list[dict[str, Any]] = []
    sanma = SANMA_PRESETS["tenhou-sanma"].with_options(game_length="east")
    mahjongsoul = PRESETS["mahjongsoul"]
    matches = ((b"jantaku-web-js-1", east), (b"jantaku-web-js-2", mahjongsoul), (b"web-js-3", sanma))
    for seed, ruleset in matches:
        events = full_match(seed, ruleset)
        if ruleset.seats == 3:  # the fold of a north set aside is checked too
            assert any(isinstance(e, NorthDeclared) for e in events)
        for viewer in (*range(ruleset.seats), None):
            messages = wire_stream(events, viewer)
            streams.append(_stream_fixture(messages, viewer, every=1 if viewer in (0, None) else 7))
            snapshots.append(_snapshot_fixture(messages, viewer, cut=len(messages) // 2))
    path = tmp_path_factory.mktemp("web") / "fixtures.json"
    replay = _replay_steps(full_match(b"jantaku-web-js-1", east))
    path.write_text(json.dumps({"streams": streams, "snapshots": snapshots, "replay": replay}))
    return path


def _replay_steps(events: tuple[Event, ...]) -> dict[str, Any]:
    """A game's omniscient events grouped into steps as the store keeps them (an action and what
    follows it: a hand's end and the next deal in the same step), with the events' final view."""
    steps: list[dict[str, Any]] = []
    for event in events:
        wire = msgspec.to_builtins(event_to_wire(event))
        double_ron = (
            wire["type"] == "hand_won" and bool(steps) and steps[-1]["events"][-1]["type"] == "hand_won"
        )
        if not steps or (wire["type"] in ("tile_discarded", "meld_called", "hand_won") and not double_ron):
            steps.append({"events": []})
        steps[-1]["events"].append(wire)
    hands = sum(1 for e in events if isinstance(e, RoundStarted))
    return {"match_id": MATCH_ID, "steps": steps, "hands": hands}


def test_node_suite(fixtures: Path) -> None:
    files, out = run_node_suite(JS_TESTS, {"JANTAKU_WEB_FIXTURES": str(fixtures)})
    assert len(files) >= 4
    assert "# skipped 0" in out, "the fixture-based tests must run here"
