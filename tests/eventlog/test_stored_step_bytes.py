"""The stored step's events are one typed conversion: the wire structs the table rendered, encoded
straight to JSON text. These are the very bytes the former path stored (each struct to a dict,
then the dicts to JSON text), so databases written before read back the same.

The corpus: whole seeded matches of every preset (four and three players, calls and wins among
them) and the golden scenarios' rare endings (double ron, chankan, pao, abortive draws).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from server.bots.selfplay import Step, play
from server.domain.records import StepRecord
from server.engine import Transition
from server.engine import events as ev
from server.engine.rules import preset
from server.eventlog.codec import FORMAT_VERSION, decode_events, render_events, stored_kind
from server.hub.steplog import step_record
from server.store.batch import encoded_step, json_text, normalized_json, sqlite_datetime, step_row
from tests.records.golden_scenarios import SCENARIOS

MATCHES = (
    ("tenhou", b"bytes-0", ("greedy", "random", "greedy", "random")),
    ("tenhou", b"bytes-1", ("random", "random", "greedy", "greedy")),
    ("mahjongsoul", b"bytes-2", ("greedy", "greedy", "random", "greedy")),
    ("ema", b"bytes-3", ("random", "greedy", "greedy", "random")),
    ("tenhou-sanma", b"bytes-4", ("greedy", "random", "greedy")),
    ("mahjongsoul-sanma", b"bytes-5", ("random", "greedy", "greedy")),
)


def former_events(events: tuple[ev.Event, ...]) -> tuple[Any, ...]:
    """The former path, kept here as the reference: every rendered struct to a dict..."""
    return tuple(msgspec.to_builtins(wire) for wire in render_events(events))


def former_events_text(events: tuple[ev.Event, ...]) -> str:
    """... then the dicts to JSON text."""
    return json_text(former_events(events))


def corpus() -> Iterator[tuple[str, StepRecord]]:
    for name, seed, bots in MATCHES:
        for n, item in enumerate(play(preset(name), seed, bots)):
            t: Transition = item.transition if isinstance(item, Step) else item
            seat = item.seat if isinstance(item, Step) else None
            action = item.action if isinstance(item, Step) else None
            yield (
                former_events_text(t.events),
                step_record(f"m-{name}", t, seat=seat, action=action, request_id=n, applied_at=1.0 + n),
            )


def test_the_stored_events_are_the_former_bytes() -> None:
    steps = 0
    kinds: set[type[ev.Event]] = set()
    for former, record in corpus():
        assert all(isinstance(e, msgspec.Struct) for e in record.events)  # no dict on the way
        assert encoded_step(record, sqlite_datetime)[4] == former
        assert record.engine_events is not None
        kinds.update(type(e) for e in record.engine_events)
        steps += 1
    assert steps > 1000
    assert {ev.HandWon, ev.HandDrawn, ev.MeldCalled, ev.RiichiAccepted, ev.NorthDeclared} <= kinds


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_rare_endings_store_the_former_bytes(name: str) -> None:
    events = tuple(SCENARIOS[name]())
    assert json_text(render_events(events)) == former_events_text(events)


def test_a_written_step_reads_as_its_stored_json_reads() -> None:
    """What the hub hands a store (structs) and what a store gives back (JSON objects) decode alike,
    and the SQLAlchemy path (its own JSON encoder) gets the same values as before."""
    for former, record in corpus():
        stored = msgspec.json.decode(former)
        assert normalized_json(record.events) == stored
        assert record.engine_events is not None
        sqlalchemy_text = json.dumps(step_row(record)["events"])  # its JSON type's serializer
        assert sqlalchemy_text == json.dumps(list(former_events(record.engine_events)))
        assert decode_events(record.events, FORMAT_VERSION) == decode_events(stored, FORMAT_VERSION)
        assert [stored_kind(e, FORMAT_VERSION) for e in record.events] == [
            stored_kind(e, FORMAT_VERSION) for e in stored
        ]
