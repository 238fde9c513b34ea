"""The records a table writes: its match and the step log (see :mod:`server.domain.ports`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from client_protocol import events as wire
from server.domain.records import JSON, MatchRecord, MatchStatus, SeatRecord, StepRecord
from server.engine import ENGINE_VERSION, Transition
from server.engine.actions import Action
from server.engine.rules import Ruleset
from server.engine.wall import WALL_ALGORITHM, seed_commitment
from server.eventlog.codec import FORMAT_VERSION, encode_action, render_events
from server.hub.inbox import SeatSpec
from server.hub.settings import SpectatePolicy, TableTimers

__all__ = ["Rendered", "match_record", "render_events", "step_record", "table_settings_json"]

Rendered = tuple[wire.Event, ...]
"""A step's events as :func:`render_events` made them (for the log and for the seats)."""


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


def deal_record(match_id: str, t: Transition, *, applied_at: float, banks: tuple[int, ...]) -> StepRecord:
    """Log step 0: the deal (no seat, no action), with each seat's full bank."""
    return step_record(
        match_id, t, seat=None, action=None, request_id=None, applied_at=applied_at, banks=banks
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
    banks: tuple[int, ...] | None = None,
    rendered: Rendered | None = None,
) -> StepRecord:
    """Log step ``t.step``: the deal (no seat, no action) or ``seat``'s ``action`` and its events,
    rendered by the event log's codec (its current format; the store encodes the wire structs
    straight to the stored JSON), with each seat's time bank left after it
    (``banks``, ms: what crash recovery restarts the clocks with). ``rendered``: ``t.events``
    already rendered (:func:`~server.eventlog.codec.render_events`), which the table sends on."""
    return StepRecord(
        match_id=match_id,
        step=t.step,
        seat=seat,
        action=None if action is None else encode_action(action),
        events=render_events(t.events) if rendered is None else rendered,
        request_id=request_id,
        applied_at=applied_at,
        source=source,
        format_version=FORMAT_VERSION,
        banks=banks,
        engine_events=t.events,
    )


def table_settings_json(
    timers: TableTimers,
    spectate: SpectatePolicy,
    *,
    hold: bool = False,
    start_scores: tuple[int, ...] | None = None,
    chat: str | None = None,
) -> JSON:
    """A table's settings as its :class:`~server.domain.records.RecoveryRecord` keeps them
    (``hold_reveals``, ``start_scores`` and ``chat``, the table's chat tag, only when set, so other
    tables' records are unchanged)."""
    settings: dict[str, JSON] = {
        "timers": dataclasses.asdict(timers),
        "spectate": dataclasses.asdict(spectate),
    }
    if hold:
        settings["hold_reveals"] = True
    if start_scores is not None:
        settings["start_scores"] = list(start_scores)
    if chat is not None:
        settings["chat"] = chat
    return settings
