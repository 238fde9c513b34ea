"""The records a table writes: its match and the step log (see :mod:`server.domain.ports`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import msgspec

from server.domain.records import JSON, MatchRecord, MatchStatus, SeatRecord, StepRecord
from server.engine import ENGINE_VERSION, Transition
from server.engine.actions import Action, action_to_dict
from server.engine.events import Event
from server.engine.rules import Ruleset
from server.engine.wall import WALL_ALGORITHM, seed_commitment
from server.hub.inbox import SeatSpec
from server.hub.settings import SpectatePolicy, TableTimers
from server.hub.wire import event_to_wire


def event_json(event: Event) -> Any:
    """An omniscient event as JSON (the wire vocabulary, every tile present)."""
    return msgspec.to_builtins(event_to_wire(event))


def match_record(
    match_id: str, ruleset: Ruleset, seed: bytes, seats: Sequence[SeatSpec], *, created_at: float, source: str
) -> MatchRecord:
    return MatchRecord(
        id=match_id,
        ruleset_json=ruleset.to_json(),
        ruleset_hash=ruleset.hash,
        seed_commitment=seed_commitment(seed),
        engine_version=ENGINE_VERSION,
        wall_algorithm=WALL_ALGORITHM,
        seats=tuple(
            SeatRecord(seat=i, name=s.name, kind=s.kind, account_id=s.account_id, bot=s.bot)
            for i, s in enumerate(seats)
        ),
        status=MatchStatus.RUNNING,
        created_at=created_at,
        source=source,
    )


def step_record(
    match_id: str,
    t: Transition,
    *,
    seat: int | None,
    action: Action | None,
    request_id: int | None,
    applied_at: float,
    source: str | None = None,
) -> StepRecord:
    """Log step ``t.step``: the deal (no seat, no action) or ``seat``'s ``action`` and its events."""
    return StepRecord(
        match_id=match_id,
        step=t.step,
        seat=seat,
        action=None if action is None else action_to_dict(action),
        events=tuple(event_json(e) for e in t.events),
        request_id=request_id,
        applied_at=applied_at,
        source=source,
    )


def table_settings_json(timers: TableTimers, spectate: SpectatePolicy) -> JSON:
    """A table's settings as its :class:`~server.domain.records.RecoveryRecord` keeps them."""
    return {"timers": dataclasses.asdict(timers), "spectate": dataclasses.asdict(spectate)}
