"""The event log's codec: engine events round-trip through the stored JSON (format 1 is the wire
vocabulary's JSON, byte for byte what a client receives), every format is checked, and readers that
only need a few kinds of event skip the rest unread."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from client_protocol.codec import encode
from client_protocol.messages import EventMessage
from server.bots.selfplay import play_events
from server.domain.records import AccountKind, MatchRecord, MatchStatus, RecoveryRecord, SeatRecord
from server.engine import events as ev
from server.engine import new_match
from server.engine.rules import PRESETS, preset
from server.engine.wall import seed_commitment
from server.eventlog.codec import (
    FORMAT_VERSION,
    FORMAT_VERSIONS,
    EventKind,
    StoredEventError,
    decode_event,
    decode_events,
    decode_kinds,
    difference,
    encode_event,
    encode_events,
    kind_of,
    stored_kind,
    wire_json,
)
from server.eventlog.convert import event_to_wire
from server.eventlog.summary import win_from_summary, win_summary
from server.hub.recovery import UnrecoverableError, rebuild
from server.hub.settings import SpectatePolicy, TableTimers
from server.hub.steplog import step_record


def _stored(events: list[ev.Event]) -> list[object]:
    """As a JSON column gives them back."""
    stored: list[object] = json.loads(json.dumps(list(encode_events(events))))
    return stored


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_event_round_trips(name: str) -> None:
    events = play_events(PRESETS[name], f"codec-{name}".encode(), ["greedy"] * 4)
    stored = _stored(events)
    assert decode_events(stored, FORMAT_VERSION) == events
    assert {kind_of(e) for e in events} <= set(EventKind)
    assert [stored_kind(s, FORMAT_VERSION) for s in stored] == [kind_of(e) for e in events]


def test_format_1_is_the_wire_vocabulary() -> None:
    events = play_events(preset("tenhou").with_options(game_length="east"), b"wire", ["greedy"] * 4)
    for e in events:
        message = EventMessage(match_id="m", version=1, event=event_to_wire(e))
        assert json.loads(encode(message))["event"] == json.loads(json.dumps(encode_event(e)))
        assert wire_json(encode_event(e), 1) == encode_event(e)


def test_the_version_written_is_one_that_is_read() -> None:
    assert FORMAT_VERSION in FORMAT_VERSIONS
    deal = step_record(
        "m", new_match(preset("tenhou"), b"v"), seat=None, action=None, request_id=None, applied_at=0
    )
    assert deal.format_version == FORMAT_VERSION


def test_an_unknown_format_is_refused_not_guessed() -> None:
    data = encode_event(ev.DoraRevealed(indicator=4))
    for read in (decode_event, stored_kind, wire_json):
        with pytest.raises(StoredEventError, match="format 2 is unknown"):
            read(data, 2)
    assert list(decode_kinds([data], 2, set(EventKind))) == []  # lenient readers skip it


def test_decode_kinds_decodes_only_what_is_asked_and_skips_the_malformed() -> None:
    good = encode_event(ev.DoraRevealed(indicator=4))
    other = encode_event(ev.RoundEnded(scores=(1, 2, 3, 4), riichi_sticks=0))
    bad = {"type": "dora_revealed", "indicator": "8z"}
    items = [good, other, bad, "not an event", {"type": 3}]
    assert list(decode_kinds(items, 1, {EventKind.DORA_REVEALED})) == [ev.DoraRevealed(indicator=4)]
    assert [stored_kind(i, 1) for i in items] == [
        EventKind.DORA_REVEALED,
        EventKind.ROUND_ENDED,
        EventKind.DORA_REVEALED,
        None,
        None,
    ]


def test_difference_names_the_fields_that_differ() -> None:
    a = ev.TileDiscarded(seat=1, tile=4, tsumogiri=False)
    b = ev.TileDiscarded(seat=1, tile=5, tsumogiri=False)
    assert difference(a, b) == ({"tile": "5m"}, {"tile": "6m"})
    c = ev.DoraRevealed(indicator=4)
    assert difference(a, c) == (encode_event(a), encode_event(c))


def test_win_summaries_round_trip() -> None:
    events = play_events(preset("tenhou"), b"summaries", ["greedy"] * 4)
    wins = [e for e in events if isinstance(e, ev.HandWon)]
    assert wins
    for w in wins:
        summary = json.loads(json.dumps(win_summary(w)))
        back = win_from_summary(summary)
        assert (back.seat, back.from_seat, back.win_tile, back.yaku, back.deltas) == (
            w.seat,
            w.from_seat,
            w.win_tile,
            w.yaku,
            w.deltas,
        )
    with pytest.raises(StoredEventError):
        win_from_summary({"seat": 0})


def test_recovery_does_not_continue_a_log_of_an_unknown_format() -> None:
    rules, seed = preset("tenhou"), b"newer server"
    deal = step_record("m-1", new_match(rules, seed), seat=None, action=None, request_id=None, applied_at=0)
    match = MatchRecord(
        id="m-1",
        ruleset_json=rules.to_json(),
        ruleset_hash=rules.hash,
        seed_commitment=seed_commitment(seed),
        engine_version="1",
        wall_algorithm="w",
        seats=tuple(SeatRecord(i, f"b{i}", AccountKind.BOT, None, "greedy") for i in range(4)),
        status=MatchStatus.RUNNING,
        created_at=0.0,
    )
    recovery = RecoveryRecord("m-1", seed.hex())
    timers, spectate = TableTimers(), SpectatePolicy()
    resumed = rebuild(match, recovery, [deal], default_timers=timers, default_spectate=spectate)
    assert len(resumed.transitions) == 1
    with pytest.raises(UnrecoverableError, match="format 2, unknown"):
        rebuild(
            match,
            recovery,
            [replace(deal, format_version=2)],
            default_timers=timers,
            default_spectate=spectate,
        )
