"""Crash recovery: rebuild a running match from its stored log, and check that it is the same match.

A match is fully determined by its ruleset, its seed and the actions applied to it; the store keeps
all three (the seed in the secret :class:`~server.domain.records.RecoveryRecord`). On start the
lobby replays each unfinished match through the pure engine (:func:`replay_log`): step 0 is
:func:`~server.engine.new_match`, every later step the stored action applied by the stored seat.
The events the engine regenerates must equal the stored ones, event for event, as JSON. If they do
not (a tampered or corrupted log, a non-deterministic engine change, a different wall algorithm),
:class:`ReplayDivergedError` says where, and the match is flagged (``aborted``, ``status_reason``
``"diverged: ..."``), logged loudly and NOT resumed: a table never continues from a state its
players did not see.

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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from server.domain.records import DIVERGED_PREFIX, JSON, MatchRecord, RecoveryRecord, StepRecord
from server.engine import Transition, new_match
from server.engine import apply as engine_apply
from server.engine.actions import action_from_dict
from server.engine.errors import RulesError
from server.engine.rules import Ruleset
from server.engine.wall import seed_commitment
from server.hub.settings import SettingsError, SpectatePolicy, TableTimers
from server.hub.steplog import event_json

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


def _as_json(value: Any) -> Any:
    """JSON as a database gives it back (tuples become lists), for comparisons."""
    return json.loads(json.dumps(value))


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _compare(step: int, stored: Sequence[JSON], t: Transition) -> None:
    replayed = _as_json([event_json(e) for e in t.events])
    stored_json = _as_json(list(stored))
    if stored_json == replayed:
        return
    for i, (old, new) in enumerate(zip(stored_json, replayed, strict=False)):
        if old != new:
            kind = new.get("type") if isinstance(new, dict) else "?"
            a, b = old, new
            if isinstance(old, dict) and isinstance(new, dict) and old.get("type") == kind:
                keys = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))  # what differs
                a, b = {k: old.get(k) for k in keys}, {k: new.get(k) for k in keys}
            raise ReplayDivergedError(step, f"event {i} ({kind}): stored {_short(a)} != replayed {_short(b)}")
    raise ReplayDivergedError(
        step, f"{len(stored_json)} events stored, {len(replayed)} replayed: {_short(stored_json)}"
    )


def replay_log(ruleset: Ruleset, seed: bytes, steps: Sequence[StepRecord]) -> list[Transition]:
    """Replay ``steps`` (a match's stored log, from step 0) from ``seed``; one transition per stored
    step, each checked against the stored events. Raises :class:`ReplayDivergedError`.

    An empty log gives the deal alone (the server stopped between storing the match and its first
    step): the caller stores it before anyone sees it.
    """
    try:
        t = new_match(ruleset, seed)
    except RulesError as exc:
        raise ReplayDivergedError(0, f"the engine cannot deal this match: {exc}") from exc
    out = [t]
    if not steps:
        return out
    if steps[0].step != 0 or steps[0].seat is not None or steps[0].action is not None:
        raise ReplayDivergedError(steps[0].step, "the log does not start with the deal (step 0)")
    _compare(0, steps[0].events, t)
    for record in steps[1:]:
        expected = t.step + 1
        if record.step != expected:
            raise ReplayDivergedError(record.step, f"the log skips from step {t.step} to {record.step}")
        if record.seat is None or record.action is None:
            raise ReplayDivergedError(record.step, "a step after the deal without a seat or an action")
        try:
            action = action_from_dict(record.action)
            t = engine_apply(t.state, record.seat, action)
        except RulesError as exc:
            raise ReplayDivergedError(
                record.step, f"the engine refuses seat {record.seat}'s {_short(record.action)}: {exc}"
            ) from exc
        if t.step != record.step:
            raise ReplayDivergedError(record.step, f"the engine is at step {t.step}")
        _compare(record.step, record.events, t)
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
    if sorted(s.seat for s in match.seats) != [0, 1, 2, 3]:
        raise UnrecoverableError(f"it has seats {sorted(s.seat for s in match.seats)}, not 0-3")
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
    transitions = replay_log(ruleset, seed, steps)
    timers, spectate = table_settings_from_json(recovery.table, default_timers, default_spectate)
    return RecoveredMatch(
        match=match,
        ruleset=ruleset,
        seed=seed,
        timers=timers,
        spectate=spectate,
        transitions=tuple(transitions),
        steps=tuple(steps),
    )


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
