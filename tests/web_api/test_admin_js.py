"""The admin pages' JavaScript under node: the replay fold checked against the engine's state after
every step of whole matches (chi, pon, kakan, daiminkan, ankan, riichi, draws), and the tile helpers.

Skipped, with the reason, when ``node`` (18 or newer) is not installed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from server.bots.selfplay import Step, play
from server.engine.rules import PRESETS, Ruleset
from server.engine.state import MatchState
from server.engine.tiles import tile_name
from server.engine.wall import dora_indicator
from server.eventlog.codec import encode_event as event_json
from tests.nodejs import needs_node, run_node_suite

JS_TESTS = Path(__file__).resolve().parent / "js"

pytestmark = needs_node("the admin pages' JS tests")


def _names(tiles: Any) -> list[str]:
    return [tile_name(t) for t in tiles]


def _expected(state: MatchState) -> dict[str, Any]:
    hand = state.hand
    players = hand.players
    return {
        "hand_index": hand.hand_index,
        "hands": [_names(p.hand) for p in players],
        "melds": [[_names(m.tiles) for m in p.melds] for p in players],
        "rivers": [[tile_name(r.tile) for r in p.river] for p in players],
        "called": [[r.called for r in p.river] for p in players],
        "riichi": [p.riichi for p in players],
        "scores": list(state.scores),
        "dora": [tile_name(dora_indicator(hand.wall, i)) for i in range(hand.dora_revealed)],
    }


def _match(label: str, ruleset: Ruleset, seed: bytes, bots: list[str]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    expected: list[dict[str, Any]] = []
    hands = 0
    for item in play(ruleset, seed, bots):
        t = item.transition if isinstance(item, Step) else item
        events = [event_json(e) for e in t.events]
        hands += sum(e["type"] == "round_started" for e in events)
        steps.append({"step": len(steps), "seat": getattr(item, "seat", None), "events": events})
        expected.append(_expected(t.state))
    return {"label": label, "steps": json.loads(json.dumps(steps)), "expected": expected, "hands": hands}


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    east = PRESETS["tenhou"].with_options(game_length="east")
    matches = [
        _match("tenhou hanchan, kakan", PRESETS["tenhou"], b"js-1", ["greedy", "random", "greedy", "random"]),
        _match("kakan and daiminkan", PRESETS["tenhou"], b"js-3", ["greedy", "random", "greedy", "random"]),
        _match("ankan", east, b"ankan-9", ["random", "greedy", "random", "greedy"]),
        _match(
            "ema, no red fives", PRESETS["ema"].with_options(game_length="east"), b"js-ema", ["greedy"] * 4
        ),
    ]
    path = tmp_path_factory.mktemp("admin_js") / "fixtures.json"
    path.write_text(json.dumps({"matches": matches}))
    return path


def test_node_suite(fixtures: Path) -> None:
    files, _ = run_node_suite(JS_TESTS, {"JANTAKU_ADMIN_FIXTURES": str(fixtures)})
    assert files
