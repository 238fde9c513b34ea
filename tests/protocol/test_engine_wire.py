"""Whole engine matches through the wire: redact, convert, encode, decode, fold.

For every seat, the view folded from its wire events (what a client builds, and what a snapshot
carries) must agree with the engine's own :func:`server.engine.views.seat_view` after every step,
and every legal action must survive the trip to the wire and back.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from client_protocol import events as w
from client_protocol.codec import decode_server, encode
from client_protocol.messages import Action as WireAction
from client_protocol.messages import ActionType, EventMessage
from client_protocol.tracker import MatchTracker
from server.engine import apply, legal_actions, new_match, pending_seats, redact
from server.engine.hand import shanten
from server.engine.rules import preset
from server.engine.state import MatchState
from server.engine.tiles import counts34, parse_tile, tile_name
from server.engine.views import seat_view
from server.hub.wire import action_from_wire, event_to_wire, legal_actions_to_wire, meld_to_wire


def _names(tiles: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(tile_name(t) for t in tiles)


def _check_view(tracker: MatchTracker, state: MatchState, seat: int) -> None:
    mine = tracker.view()
    theirs = seat_view(state, seat)
    assert mine.scores == theirs.scores
    assert mine.round is not None
    assert (mine.round.round_wind, mine.round.kyoku, mine.round.honba) == (
        theirs.round_wind,
        theirs.kyoku,
        theirs.honba,
    )
    assert mine.round.riichi_sticks == theirs.riichi_sticks
    assert mine.dora_indicators == _names(theirs.dora_indicators)
    assert mine.tiles_left == theirs.live_remaining
    assert mine.seats[seat].hand == _names(theirs.hand)
    assert mine.seats[seat].drawn == (None if theirs.drawn is None else tile_name(theirs.drawn))
    for s, public in enumerate(theirs.seats):
        folded = mine.seats[s]
        assert folded.hand_size == public.hand_size, f"seat {s}"
        assert folded.riichi == public.riichi, f"seat {s}"
        assert folded.melds == tuple(meld_to_wire(m) for m in public.melds), f"seat {s}"
        river = [(t.tile, t.tsumogiri, t.sideways, t.called) for t in folded.river]
        assert river == [(tile_name(t.tile), t.tsumogiri, t.sideways, t.called) for t in public.river], (
            f"seat {s}"
        )
        if s != seat:
            assert folded.hand is None


def _assert_no_leak(event: w.Event, viewer: int | None) -> None:
    if isinstance(event, w.TileDrawn) and event.seat != viewer:
        assert event.tile is None
    if isinstance(event, w.RoundStarted):
        assert all(hand is None for s, hand in enumerate(event.hands) if s != viewer)


Policy = Callable[[random.Random, Sequence[WireAction], tuple[int, ...]], WireAction]


def _random(rng: random.Random, legal: Sequence[WireAction], hand: tuple[int, ...]) -> WireAction:
    """Uniform over the legal actions: calls a lot, rarely wins."""
    return rng.choice(legal)


def _shanten_after(hand: tuple[int, ...], tile: str) -> int:
    rest = list(hand)
    rest.remove(parse_tile(tile))
    return shanten(counts34(rest))


def _greedy(rng: random.Random, legal: Sequence[WireAction], hand: tuple[int, ...]) -> WireAction:
    """Win, riichi and kan when possible, call rarely, discard towards tenpai: reaches wins and riichi."""
    by_type: dict[ActionType, list[WireAction]] = {}
    for action in legal:
        by_type.setdefault(action.type, []).append(action)
    for wanted in (ActionType.TSUMO, ActionType.RON, ActionType.NUKIDORA):
        if wanted in by_type:
            return by_type[wanted][0]
    if ActionType.RIICHI in by_type:
        return min(by_type[ActionType.RIICHI], key=lambda a: _shanten_after(hand, a.tile or ""))
    kans = by_type.get(ActionType.ANKAN, []) + by_type.get(ActionType.KAKAN, [])
    if kans and rng.random() < 0.5:
        return rng.choice(kans)
    calls = [a for t in (ActionType.CHI, ActionType.PON, ActionType.DAIMINKAN) for a in by_type.get(t, [])]
    if calls and rng.random() < 0.1:
        return rng.choice(calls)
    if ActionType.PASS in by_type:
        return by_type[ActionType.PASS][0]
    discards = by_type.get(ActionType.DISCARD, [])
    if not discards:
        return rng.choice(legal)
    best = min(_shanten_after(hand, a.tile or "") for a in discards)
    return rng.choice([a for a in discards if _shanten_after(hand, a.tile or "") == best])


def _play(seed: int, ruleset_name: str, policy: Policy, seen: Counter[str], max_steps: int = 5000) -> int:
    rng = random.Random(seed)
    rules = preset(ruleset_name).with_options(game_length="east")
    transition = new_match(rules, seed.to_bytes(8, "big"))
    trackers = {viewer: MatchTracker("m", viewer) for viewer in (None, *range(rules.seats))}
    version = 0
    steps = 0
    while True:
        for event in transition.events:
            version += 1
            wire_event = event_to_wire(event)
            seen[str(wire_event.__struct_config__.tag)] += 1
            if isinstance(wire_event, w.MeldCalled):
                seen[wire_event.meld_type.value] += 1
            for viewer, tracker in trackers.items():
                message = EventMessage(
                    match_id="m", version=version, event=event_to_wire(redact(event, viewer))
                )
                received = decode_server(encode(message))
                assert received == message
                assert isinstance(received, EventMessage)
                assert tracker.apply(received)
        state = transition.state
        if state.finished:
            break
        for seat in range(rules.seats):
            _check_view(trackers[seat], state, seat)
        seat = pending_seats(state)[0]
        legal = legal_actions(state, seat)
        wire_legal = legal_actions_to_wire(legal)
        assert {action_from_wire(a) for a in wire_legal} == legal
        action = action_from_wire(policy(rng, wire_legal, seat_view(state, seat).hand))
        transition = apply(state, seat, action)
        steps += 1
        assert steps < max_steps
    final = trackers[None].view()
    assert final.match_result is not None
    assert all(s.hand is None for s in final.seats)
    return steps


def test_random_matches_fold_to_the_engine_view() -> None:
    seen: Counter[str] = Counter()
    for seed, ruleset_name, policy in [
        (1, "tenhou", _random),
        (2, "ema", _random),
        (6, "mahjongsoul", _random),
        (3, "tenhou", _greedy),
        (4, "mahjongsoul", _greedy),
        (5, "ema", _greedy),
        (7, "tenhou-sanma", _greedy),
        (8, "mahjongsoul-sanma", _random),
    ]:
        assert _play(seed, ruleset_name, policy, seen) > 0
    # The matches went through every kind of event and meld, so every conversion above was checked.
    assert {str(cls.__struct_config__.tag) for cls in w.EVENT_TYPES} <= set(seen)
    assert {m.value for m in w.MeldType} <= set(seen)
