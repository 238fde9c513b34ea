"""Crash recovery: rebuild a running match from its stored log, and check that it is the same match.

A match is fully determined by its ruleset, its seed and the actions applied to it; the store keeps
all three (the seed in the secret :class:`~server.domain.records.RecoveryRecord`). On start the
lobby replays each unfinished match through the pure engine (:func:`replay_log`): step 0 is
:func:`~server.engine.new_match`, every later step the stored action applied by the stored seat.
The stored events are decoded by the event log's codec (:mod:`server.eventlog.codec`, each step
with its own format version) and the events the engine regenerates must equal them, event for
event. If they do not (a tampered or corrupted log, a non-deterministic engine change, a different
wall algorithm), :class:`ReplayDivergedError` says where, and the match is flagged (``aborted``,
``status_reason`` ``"diverged: ..."``), logged loudly and NOT resumed: a table never continues from
a state its players did not see. A log in a format this server does not know (written by a newer
server) is :class:`UnrecoverableError` instead: not tampered with, just not this server's to continue.

>>> from server.engine.rules import TENHOU
>>> from server.hub.steplog import step_record
>>> from server.engine import new_match
>>> deal = step_record("m-x", new_match(TENHOU, b"seed"), seat=None, action=None, request_id=None,
...                    applied_at=0.0)
>>> [t.step for t in replay_log(TENHOU, b"seed", [deal])]
[0]
>>> replay_log(TENHOU, b"another seed", [deal])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
server.hub.recovery.ReplayDivergedError: step 0, event 0 (match_started): stored {"seed_commitment": ...
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from server.domain.ports import Repository
from server.domain.records import DIVERGED_PREFIX, JSON, MatchRecord, RecoveryRecord, StepRecord
from server.engine import HandStart, Transition, new_match
from server.engine import apply as engine_apply
from server.engine.errors import RulesError
from server.engine.events import Event
from server.engine.rules import Ruleset
from server.engine.wall import seed_commitment
from server.eventlog.codec import (
    FORMAT_VERSIONS,
    StoredEventError,
    decode_action,
    decode_event,
    difference,
    kind_of,
)
from server.hub.settings import SettingsError, SpectatePolicy, TableTimers
from server.social.chat import TEXT_MODES

_SHOWN = 160  # characters of a differing event quoted in the reason


class ReplayDivergedError(Exception):
    """The stored log is not what the engine regenerates (``step``: the first step that differs)."""

    def __init__(self, step: int, message: str) -> None:
        super().__init__(f"step {step}, {message}")
        self.step = step

    @property
    def reason(self) -> str:
        """The ``status_reason`` of the flagged match."""
        return f"{DIVERGED_PREFIX} {self}"


def _short(value: Any) -> str:
    text = json.dumps(msgspec.to_builtins(value), sort_keys=True)  # a log as written holds wire structs
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _stored_events(record: StepRecord) -> list[Event]:
    events = []
    for i, data in enumerate(record.events):
        try:
            events.append(decode_event(data, record.format_version))
        except StoredEventError as exc:
            raise ReplayDivergedError(record.step, f"event {i}: {exc}: {_short(data)}") from None
    return events


def _compare(record: StepRecord, t: Transition) -> None:
    stored = _stored_events(record)
    replayed = t.events
    if stored == list(replayed):  # typed: engine events, not their JSON
        return
    for i, (old, new) in enumerate(zip(stored, replayed, strict=False)):
        if old != new:
            a, b = difference(old, new)
            raise ReplayDivergedError(
                record.step, f"event {i} ({kind_of(new)}): stored {_short(a)} != replayed {_short(b)}"
            )
    raise ReplayDivergedError(
        record.step, f"{len(stored)} events stored, {len(replayed)} replayed: {_short(list(record.events))}"
    )


def replay_log(
    ruleset: Ruleset, seed: bytes, steps: Sequence[StepRecord], *, start_scores: tuple[int, ...] | None = None
) -> list[Transition]:
    """Replay ``steps`` (a match's stored log, from step 0) from ``seed``; one transition per stored
    step, each checked against the stored events. Raises :class:`ReplayDivergedError`.

    An empty log gives the deal alone (the server stopped between storing the match and its first
    step): the caller stores it before anyone sees it.
    """
    try:
        t = new_match(ruleset, seed, start=None if start_scores is None else HandStart(scores=start_scores))
    except RulesError as exc:
        raise ReplayDivergedError(0, f"the engine cannot deal this match: {exc}") from exc
    out = [t]
    if not steps:
        return out
    if steps[0].step != 0 or steps[0].seat is not None or steps[0].action is not None:
        raise ReplayDivergedError(steps[0].step, "the log does not start with the deal (step 0)")
    _compare(steps[0], t)
    for record in steps[1:]:
        expected = t.step + 1
        if record.step != expected:
            raise ReplayDivergedError(record.step, f"the log skips from step {t.step} to {record.step}")
        if record.seat is None or record.action is None:
            raise ReplayDivergedError(record.step, "a step after the deal without a seat or an action")
        try:
            action = decode_action(record.action, record.format_version)
            t = engine_apply(t.state, record.seat, action)
        except (RulesError, StoredEventError) as exc:
            raise ReplayDivergedError(
                record.step, f"the engine refuses seat {record.seat}'s {_short(record.action)}: {exc}"
            ) from exc
        if t.step != record.step:
            raise ReplayDivergedError(record.step, f"the engine is at step {t.step}")
        _compare(record, t)
        out.append(t)
    return out


@dataclass(frozen=True, slots=True)
class RecoveredMatch:
    """A running match rebuilt from the store, ready for a table to adopt."""

    match: MatchRecord
    ruleset: Ruleset
    seed: bytes
    timers: TableTimers
    spectate: SpectatePolicy
    transitions: tuple[Transition, ...]  # one per stored step (just the deal for an empty log)
    steps: tuple[StepRecord, ...]  # the stored log (may be empty)
    hold_reveals: bool = False  # stored with the table's settings (TableSpec.hold_reveals)
    start_scores: tuple[int, ...] | None = None  # likewise (TableSpec.start_scores)
    chat: str | None = None  # likewise: the table's ``chat`` tag (a private table's or an event's)
    paused: str | None = None  # likewise: paused, and why (``Store.set_paused``); None: it goes on


class UnrecoverableError(Exception):
    """The store lacks what a replay needs (no seed stored, an unreadable ruleset or seed)."""


def rebuild(
    match: MatchRecord,
    recovery: RecoveryRecord | None,
    steps: Sequence[StepRecord],
    *,
    default_timers: TableTimers,
    default_spectate: SpectatePolicy,
) -> RecoveredMatch:
    """Replay a stored match. Raises :class:`UnrecoverableError` or :class:`ReplayDivergedError`."""
    if recovery is None:
        raise UnrecoverableError("no seed stored for it (made by a server without crash recovery?)")
    try:
        seed = bytes.fromhex(recovery.seed_hex)
    except ValueError as exc:
        raise UnrecoverableError(f"the stored seed is not hex: {exc}") from None
    if seed_commitment(seed) != match.seed_commitment:
        raise ReplayDivergedError(0, "the stored seed does not match the match's seed commitment")
    try:
        ruleset = Ruleset.from_json(match.ruleset_json)
    except RulesError as exc:
        raise UnrecoverableError(f"the stored ruleset does not load: {exc}") from None
    if ruleset.hash != match.ruleset_hash:
        raise ReplayDivergedError(0, "the stored ruleset does not match its hash")
    if sorted(s.seat for s in match.seats) != list(range(ruleset.seats)):  # the ruleset's 3 or 4
        raise UnrecoverableError(
            f"it has seats {sorted(s.seat for s in match.seats)}, not 0-{ruleset.seats - 1}"
        )
    unknown = next((s for s in steps if s.format_version not in FORMAT_VERSIONS), None)
    if unknown is not None:  # written by a newer server: not this one's to continue
        raise UnrecoverableError(
            f"step {unknown.step} is in event-log format {unknown.format_version}, unknown to this server"
        )
    start_scores = stored_start_scores(recovery.table)
    transitions = replay_log(ruleset, seed, steps, start_scores=start_scores)
    timers, spectate = table_settings_from_json(recovery.table, default_timers, default_spectate)
    return RecoveredMatch(
        match=match,
        ruleset=ruleset,
        seed=seed,
        timers=timers,
        spectate=spectate,
        transitions=tuple(transitions),
        steps=tuple(steps),
        hold_reveals=isinstance(recovery.table, dict) and recovery.table.get("hold_reveals") is True,
        start_scores=start_scores,
        chat=stored_chat(recovery.table),
        paused=stored_pause(recovery.table),
    )


def stored_pause(data: JSON) -> str | None:
    """Why the table was paused, as stored with its settings (None: it was not)."""
    paused = data.get("paused") if isinstance(data, dict) else None
    return paused if isinstance(paused, str) else None


def stored_chat(data: JSON) -> str | None:
    """The ``chat`` tag stored with a table's settings (None: none, or a mode this server lacks)."""
    chat = data.get("chat") if isinstance(data, dict) else None
    return chat if isinstance(chat, str) and chat in TEXT_MODES else None


def stored_start_scores(data: JSON) -> tuple[int, ...] | None:
    """The per-seat start points stored with a table's settings (None: the ruleset's)."""
    scores = data.get("start_scores") if isinstance(data, dict) else None
    if not isinstance(scores, list) or not all(isinstance(p, int) for p in scores):
        return None
    return tuple(int(p) for p in scores)


log = logging.getLogger(__name__)


async def rebuild_stored(
    repo: Repository, match: MatchRecord, *, default_timers: TableTimers, default_spectate: SpectatePolicy
) -> RecoveredMatch | tuple[str, str]:
    """Read ``match``'s seed and log from ``repo`` and replay them (:func:`rebuild`): the rebuilt
    match, or, logged as an error, ``("diverged" | "unrecoverable", the reason to store)``."""
    try:
        recovery = await repo.recovery_record(match.id)
        steps = await repo.steps(match.id)
        return rebuild(
            match, recovery, steps, default_timers=default_timers, default_spectate=default_spectate
        )
    except ReplayDivergedError as exc:
        log.error(
            "MATCH %s DIVERGED: replaying its stored log does not give its stored events (%s); "
            "flagged and NOT resumed",
            match.id,
            exc,
        )
        return "diverged", exc.reason
    except UnrecoverableError as exc:
        log.error(
            "match %s cannot be resumed: %s; marked aborted", match.id, exc, extra={"match_id": match.id}
        )
        return "unrecoverable", f"unrecoverable: {exc}"


def table_settings_from_json(
    data: JSON, default_timers: TableTimers, default_spectate: SpectatePolicy
) -> tuple[TableTimers, SpectatePolicy]:
    """The stored settings, or the server's for whatever is missing or no longer valid."""
    timers, spectate = default_timers, default_spectate
    if isinstance(data, dict):
        try:
            if isinstance(data.get("timers"), dict):
                timers = default_timers.replace(**data["timers"])  # a newer setting: the server's
        except (TypeError, SettingsError):
            pass
        try:
            if isinstance(data.get("spectate"), dict):
                spectate = SpectatePolicy(**data["spectate"])
        except (TypeError, SettingsError):
            pass
    return timers, spectate
