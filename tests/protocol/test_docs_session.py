"""docs/protocol.md's example session is what the server sends, not only well-formed.

The first part is replayed through the engine: on a wall that deals seat 0 the hand the example
shows (in the order it shows it: the deal's, not sorted) and the other seats tiles that hold what
they discard, with the seed the match reveals at its end, every event line must be the engine's
event as seat 0 sees it (``match_started`` with the real ruleset document, its hash and the seed's
commitment; ``round_started`` with the wall's commitment), and every prompt the engine's decision
(step, legal actions in the server's order). The second part, hours later, cannot be replayed
move by move: its lines must agree with each other and with the commitments (the revealed seed and
wall, the dora and ura indicators at their places in that wall, the scores).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import msgspec

from client_protocol.messages import Action as WireAction
from server.engine import apply, legal_actions, new_match, pending_seats
from server.engine.actions import Action, Discard, Pass
from server.engine.events import Event, RoundStarted
from server.engine.rules import TENHOU
from server.engine.state import MatchState
from server.engine.tiles import full_set, parse_tile, sort_key
from server.engine.views import redact
from server.engine.wall import (
    DORA_START,
    URA_START,
    build_wall,
    commitment,
    make_salt,
    make_wall,
    seed_commitment,
    validate_wall,
)
from server.hub.wire import action_from_wire, event_to_wire, legal_actions_to_wire

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

# What seat 0 never sees, chosen to agree with the example: seats 1 and 2 hold the tiles they
# discard from their hands (8m; 9m and 2z), seat 3 the first tiles left over; the live draws are, in
# turn order, 9p (seat 0), 1z (seat 1), 6p (seat 2), 0s (seat 3), then after seat 0's chi 3p (seat
# 1), 6z (seat 2), 7s (seat 3) and 5m (seat 0). The rest of the wall is filled in canonical order.
HIDDEN_HANDS = {1: "8m 2m 5p 8p 2s 9s 3z 4z 6z 7z 1p 6p 8s", 2: "9m 2z 3m 6m 1s 7p 5s 4z 6z 7z 1p 9s 2s"}
LIVE_DRAWS = "9p 1z 6p 0s 3p 6z 7s 5m"


def _blocks() -> list[list[dict[str, Any]]]:
    """Each ```text block of the example: its message lines, parsed, with ``dir`` "→" or "←"."""
    section = DOC.read_text(encoding="utf-8").split("## Example session", 1)[1].split("\n## ", 1)[0]
    out = []
    for block in re.findall(r"```text\n(.*?)```", section, flags=re.S):
        lines = []
        for line in block.splitlines():
            if line.startswith(("→ ", "← ")):
                try:
                    message = json.loads(line[2:])
                except json.JSONDecodeError:
                    continue
                lines.append({"dir": line[0], **message})
        out.append(lines)
    return out


def _seed() -> bytes:
    (end,) = [m for m in _blocks()[1] if m["type"] == "event" and m["event"]["type"] == "match_ended"]
    return bytes.fromhex(end["event"]["seed"])


def _tiles(text: str) -> tuple[int, ...]:
    return tuple(parse_tile(t) for t in text.split())


def _wire(event: Event) -> Any:
    """The event as seat 0 receives it, as JSON values."""
    return json.loads(msgspec.json.encode(event_to_wire(redact(event, 0))))


def test_the_first_part_is_what_the_engine_plays() -> None:
    lines = _blocks()[0]
    dealt = next(m["event"] for m in lines if m["type"] == "event" and m["event"]["type"] == "round_started")
    mine = tuple(parse_tile(t) for t in dealt["hands"][0])
    wall = _wall(mine, parse_tile(dealt["dora_indicator"]))
    t = new_match(TENHOU, _seed(), walls_=[wall])
    state, queue = t.state, [_wire(e) for e in t.events]
    acted: set[int] = set()
    version = prompts = 0
    for i, m in enumerate(lines):
        if m["dir"] == "←" and m["type"] == "event":
            while not queue:  # the engine waits for the other seats: they play what the example shows
                state, queue = _others_move(state, m["event"])
            assert queue.pop(0) == m["event"], f"line {i}: version {m['version']}"
            version = m["version"]
        elif m["dir"] == "←" and m["type"] == "prompt":
            assert not queue and m["step"] == version == m["version"]
            assert 0 in pending_seats(state)
            wire = json.loads(msgspec.json.encode(legal_actions_to_wire(legal_actions(state, 0))))
            assert wire == m["legal_actions"], f"line {i}: prompt at step {m['step']}"
            prompts += 1
        elif m["dir"] == "→" and m["type"] == "act":
            following = lines[i + 1]
            applied = following["type"] == "ack" and not following["duplicate"]
            if applied and m["request_id"] not in acted:
                acted.add(m["request_id"])
                action = action_from_wire(msgspec.convert(m["action"], type=WireAction))
                t = apply(state, 0, action)
                state, queue = t.state, queue + [_wire(e) for e in t.events]
    assert not queue
    assert (version, prompts) == (20, 5)  # every event line and every prompt of the first part


def test_the_dealt_hand_is_in_the_walls_order_not_sorted() -> None:
    """docs/protocol.md#events: ``round_started`` deals each seat its 13 tiles in the order they
    come off the wall (a client sorts them for display), as the example shows."""
    assert "in the order they come off the wall" in DOC.read_text(encoding="utf-8")
    t = new_match(TENHOU, _seed())
    (dealt,) = [e for e in t.events if isinstance(e, RoundStarted)]
    wall = make_wall(_seed(), 0, TENHOU.red_fives)
    assert dealt.hands[0] == wall[:13] != tuple(sorted(wall[:13], key=sort_key))
    shown = next(
        m["event"] for m in _blocks()[0] if m["type"] == "event" and m["event"]["type"] == "round_started"
    )
    hand = [parse_tile(t) for t in shown["hands"][0]]
    assert hand != sorted(hand, key=sort_key)


def test_the_second_part_agrees_with_its_commitments() -> None:
    first, later = _blocks()
    started = next(
        m["event"] for m in first if m["type"] == "event" and m["event"]["type"] == "match_started"
    )
    snapshot = next(m for m in later if m["type"] == "snapshot")
    assert snapshot["view"]["match"] == started  # the same match
    seed = _seed()
    assert seed_commitment(seed) == started["seed_commitment"]
    events = {m["event"]["type"]: m["event"] for m in later if m["type"] == "event"}
    revealed, won = events["wall_revealed"], events["hand_won"]
    hand_index = snapshot["view"]["round"]["hand_index"]
    assert revealed["salt"] == make_salt(seed, hand_index).hex()
    wall = validate_wall([parse_tile(t) for t in revealed["wall"]], TENHOU.red_fives)
    assert commitment(bytes.fromhex(revealed["salt"]), wall) == revealed["wall_commitment"]
    assert revealed["wall_commitment"] == snapshot["view"]["round"]["wall_commitment"]
    kans = len(won["dora_indicators"]) - 1
    assert won["dora_indicators"] == [revealed["wall"][DORA_START + k] for k in range(kans + 1)]
    assert won["ura_indicators"] == [revealed["wall"][URA_START + k] for k in range(kans + 1)]
    assert snapshot["view"]["dora_indicators"] == won["dora_indicators"]
    seat = snapshot["view"]["seats"][0]
    assert sorted(won["hand"]) == sorted([*seat["hand"], won["win_tile"]])
    before, sticks = snapshot["view"]["scores"], snapshot["view"]["round"]["riichi_sticks"]
    after = [s + d for s, d in zip(before, won["deltas"], strict=True)]
    assert sum(won["deltas"]) == 1000 * sticks and after == won["scores"]
    assert events["round_ended"]["scores"] == events["match_ended"]["scores"] == after
    end = next(m for m in later if m["type"] == "match_end")
    assert end["result"]["final_points"] == events["match_ended"]["final_points"]
    assert hashlib.sha256(seed).hexdigest() == started["seed_commitment"]


def _wall(mine: tuple[int, ...], dora: int) -> tuple[int, ...]:
    """Seat 0's hand as dealt, seats 1 and 2 as above, seat 3 the first of the leftovers."""
    hands = [mine, _tiles(HIDDEN_HANDS[1]), _tiles(HIDDEN_HANDS[2])]
    leftovers = list(full_set(TENHOU.red_fives))
    for tile in (*hands[0], *hands[1], *hands[2], *_tiles(LIVE_DRAWS), dora):
        leftovers.remove(tile)
    hands.append(tuple(leftovers[:13]))
    return build_wall(
        hands, 0, live_draws=_tiles(LIVE_DRAWS), dora_indicators=(dora,), red_fives=TENHOU.red_fives
    )


def _others_move(state: MatchState, shown: dict[str, Any]) -> tuple[MatchState, list[Any]]:
    """The seats other than 0 that must decide: the one whose discard the example shows next
    discards it, every other one passes (a call window everyone passes shows nothing)."""
    pending = [s for s in pending_seats(state) if s != 0]
    assert pending, f"the engine waits for seat 0, the example shows {shown}"
    seat = pending[0]
    action: Action = Pass()
    if shown["type"] == "tile_discarded" and shown["seat"] == seat:
        action = Discard(parse_tile(shown["tile"]), shown["tsumogiri"])
    t = apply(state, seat, action)
    return t.state, [_wire(e) for e in t.events]
