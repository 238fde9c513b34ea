"""Real step logs for the store tests and the benchmark: bots play a match, steps are recorded the
way the hub records them (``action_to_dict``; events through the wire vocabulary, omniscient)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from server.bots.selfplay import Step, play
from server.domain.records import AccountKind, MatchRecord, MatchStatus, SeatRecord, StepRecord
from server.engine import events as ev
from server.engine.actions import action_to_dict
from server.engine.rules import preset
from server.eventlog.codec import encode_event as event_json

T0 = 1_700_000_000.0


@cache
def played(seed: bytes = b"store-tests") -> tuple[tuple[StepRecord, ...], tuple[ev.Event, ...]]:
    """A whole match of greedy bots: its step records (match id ``m-game``) and all its events."""
    records: list[StepRecord] = []
    events: list[ev.Event] = []
    for item in play(preset("tenhou"), seed, ["greedy"] * 4):
        if isinstance(item, Step):
            t = item.transition
            seat: int | None = item.seat
            action: Any = action_to_dict(item.action)
        else:
            t, seat, action = item, None, None
        events.extend(t.events)
        records.append(
            StepRecord(
                match_id="m-game",
                step=len(records),
                seat=seat,
                action=action,
                events=tuple(event_json(e) for e in t.events),
                request_id=len(records) if seat is not None else None,
                applied_at=T0 + len(records) * 0.5,
            )
        )
    return tuple(records), tuple(events)


def match_record(match_id: str, events: Sequence[ev.Event] = ()) -> MatchRecord:
    started = next((e for e in events if isinstance(e, ev.MatchStarted)), None)
    return MatchRecord(
        id=match_id,
        ruleset_json=started.ruleset_json if started else "{}",
        ruleset_hash=started.ruleset_hash if started else "0" * 64,
        seed_commitment=started.seed_commitment if started else "0" * 64,
        engine_version=started.engine_version if started else "1",
        wall_algorithm=started.wall_algorithm if started else "test",
        seats=tuple(SeatRecord(i, f"bot{i}", AccountKind.BOT, None, "greedy") for i in range(4)),
        status=MatchStatus.RUNNING,
        created_at=T0,
    )


def for_match(records: Sequence[StepRecord], match_id: str) -> list[StepRecord]:
    return [replace(r, match_id=match_id) for r in records]


def engine_events_of(records: Sequence[StepRecord]) -> list[tuple[ev.Event, ...]]:
    """The engine events of each of :func:`played`'s records (by position in the played log)."""
    _, events = played()
    out: list[tuple[ev.Event, ...]] = []
    start = 0
    for r in records:
        out.append(events[start : start + len(r.events)])
        start += len(r.events)
    return out
