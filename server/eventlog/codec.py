"""The stored step log's JSON, versioned: engine events and actions in, engine events and actions out.

Every step of the log (:class:`~server.domain.records.StepRecord`) carries the ``format_version`` its
``events`` and ``action`` were written in. Writers use :data:`FORMAT_VERSION`; readers decode with the
version stored on the step, so a log written by an older server reads the same after an upgrade.

Format versions:

* **1**: every event is the JSON object of its wire form (:mod:`client_protocol.events`, every tile
  present: the log is omniscient); the action is :func:`server.engine.actions.action_to_dict`.
  Steps stored before the version was recorded (migration 0004) are this format.

**One conversion on the way in.** A step the hub writes carries its events as the wire structs they
were rendered to once (:func:`render_events`, also what the seats are sent), and the store encodes
those structs straight to the stored JSON text (msgspec): the same bytes as the JSON object of each
event, with no detour through dicts. What a store gives back is that JSON (objects); every reader
here takes either (:data:`StoredEvent`).

Decoding validates (msgspec) and never returns anything but engine values: a stored event that is
not one raises :class:`StoredEventError`. Readers that only care about a few kinds of event (the
hand projection, the review's scan) ask :func:`stored_kind` first and decode only those.

>>> from server.engine.events import TileDiscarded
>>> data = encode_event(TileDiscarded(seat=1, tile=35, tsumogiri=False, riichi=True))
>>> data
{'type': 'tile_discarded', 'seat': 1, 'tile': '0p', 'tsumogiri': False, 'riichi': True}
>>> stored_kind(data, FORMAT_VERSION)
<EventKind.TILE_DISCARDED: 'tile_discarded'>
>>> decode_event(data, FORMAT_VERSION)
TileDiscarded(seat=1, tile=35, tsumogiri=False, riichi=True)
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from enum import StrEnum
from typing import Any

import msgspec

from client_protocol import events as wire
from server.domain.records import JSON, StepRecord
from server.engine import events as ev
from server.engine.actions import Action, action_from_dict, action_to_dict
from server.engine.errors import NotationError
from server.eventlog.convert import EVENT_CODECS, event_from_wire, event_to_wire

FORMAT_VERSION = 1
"""The format this server writes."""

FORMAT_VERSIONS = frozenset({1})
"""The formats this server reads."""


class StoredEventError(ValueError):
    """A stored event that is not a valid event of its step's format."""


class EventKind(StrEnum):
    """The kinds of event, by their stored (and wire) ``type`` tag."""

    MATCH_STARTED = "match_started"
    ROUND_STARTED = "round_started"
    TILE_DRAWN = "tile_drawn"
    TILE_DISCARDED = "tile_discarded"
    RIICHI_ACCEPTED = "riichi_accepted"
    MELD_CALLED = "meld_called"
    NORTH_DECLARED = "north_declared"
    DORA_REVEALED = "dora_revealed"
    HAND_WON = "hand_won"
    HAND_DRAWN = "hand_drawn"
    WALL_REVEALED = "wall_revealed"
    ROUND_ENDED = "round_ended"
    MATCH_ENDED = "match_ended"


_KIND_OF_TYPE: dict[type[ev.Event], EventKind] = {c.engine: EventKind(c.tag) for c in EVENT_CODECS}
_KIND_OF_TAG: dict[str, EventKind] = {k.value: k for k in EventKind}
# Converting to the one struct the tag names: msgspec builds its converter for a union on every
# call, which made decoding an event cost tens of microseconds.
_WIRE_OF_TAG: dict[str, type[wire.Event]] = {c.tag: c.wire for c in EVENT_CODECS}
assert set(_WIRE_OF_TAG) == set(_KIND_OF_TAG), "every event has its kind"
_KIND_OF_WIRE: dict[type[msgspec.Struct], EventKind] = {c.wire: EventKind(c.tag) for c in EVENT_CODECS}

StoredEvent = Any
"""One event of a step's ``events``: its JSON object as read back from a store, or (a step the hub
has just made) the wire struct it is stored as (:func:`render_events`)."""


def kind_of(event: ev.Event) -> EventKind:
    """The kind of an engine event."""
    return _KIND_OF_TYPE[type(event)]


def _check_version(version: int) -> None:
    if version not in FORMAT_VERSIONS:
        known = ", ".join(str(v) for v in sorted(FORMAT_VERSIONS))
        raise StoredEventError(f"event-log format {version!r} is unknown to this server (it reads {known})")


# -- writing ---------------------------------------------------------------------------------------------


def encode_event(event: ev.Event) -> JSON:
    """One omniscient engine event as stored (format :data:`FORMAT_VERSION`)."""
    return msgspec.to_builtins(event_to_wire(event))


def encode_events(events: Iterable[ev.Event]) -> tuple[JSON, ...]:
    """Engine events as the JSON objects a store gives back (tools and tests)."""
    return tuple(map(encode_event, events))


def render_events(events: Iterable[ev.Event]) -> tuple[wire.Event, ...]:
    """Omniscient engine events in their wire form, rendered once for a step: the step log stores
    them as they are (encoded straight to JSON text by the store: format :data:`FORMAT_VERSION`)
    and a seat whose redaction leaves an event as it is receives the same struct
    (``server.hub.outputs.SharedFrames``)."""
    return tuple(map(event_to_wire, events))


def encode_action(action: Action) -> JSON:
    """One action as stored (format :data:`FORMAT_VERSION`)."""
    return action_to_dict(action)


# -- reading ---------------------------------------------------------------------------------------------


def stored_kind(data: StoredEvent, version: int) -> EventKind | None:
    """The kind of a stored event, without decoding it (None: not an event of a known kind)."""
    _check_version(version)
    if not isinstance(data, dict):
        return _KIND_OF_WIRE.get(type(data))
    tag = data.get("type")
    return _KIND_OF_TAG.get(tag) if isinstance(tag, str) else None


def decode_event(data: StoredEvent, version: int) -> ev.Event:
    """One stored event as an engine event; :class:`StoredEventError` when it is not one."""
    _check_version(version)
    if type(data) in _KIND_OF_WIRE:  # as written (a step the hub made, not read back)
        try:
            return event_from_wire(data)
        except (NotationError, ValueError) as exc:
            raise StoredEventError(f"stored event {type(data).__name__} is not valid: {exc}") from None
    try:
        tag = data.get("type") if isinstance(data, dict) else None
        struct = _WIRE_OF_TAG.get(tag) if isinstance(tag, str) else None
        if struct is None:
            raise ValueError("not an object with a known 'type'")
        decoded: wire.Event = msgspec.convert(data, struct)
        return event_from_wire(decoded)
    except (msgspec.ValidationError, NotationError, ValueError) as exc:
        kind = data.get("type") if isinstance(data, dict) else type(data).__name__
        raise StoredEventError(f"stored event {kind!r} is not a valid wire event: {exc}") from None


def decode_events(items: Iterable[StoredEvent], version: int) -> list[ev.Event]:
    return [decode_event(item, version) for item in items]


def step_events(step: StepRecord) -> list[ev.Event]:
    """The engine events of one stored step (:class:`StoredEventError` if one does not decode)."""
    return decode_events(step.events, step.format_version)


def log_events(steps: Iterable[StepRecord]) -> list[ev.Event]:
    """Every engine event of a stored log, in order (what the exports of ``server.records`` take)."""
    return [e for s in steps for e in step_events(s)]


def decode_kinds(
    items: Iterable[StoredEvent], version: int, kinds: Collection[EventKind]
) -> Iterator[ev.Event]:
    """The events of the given kinds among stored ``items``, decoded; everything else (other kinds,
    malformed events, a format this server does not know) is skipped. For readers that must never
    fail on a damaged log (the store's projection, the review's scan)."""
    if version not in FORMAT_VERSIONS:
        return
    for data in items:
        # Inline stored_kind: this runs on every step the store appends. A kind is a StrEnum, so
        # the stored tag (a str) is looked up in ``kinds`` as it is.
        if (data.get("type") if isinstance(data, dict) else _KIND_OF_WIRE.get(type(data))) in kinds:
            try:
                yield decode_event(data, version)
            except StoredEventError:
                continue


def decode_action(data: Any, version: int) -> Action:
    """A stored action; raises :class:`~server.engine.errors.NotationError` when it is not one."""
    _check_version(version)
    return action_from_dict(data)


def wire_json(data: StoredEvent, version: int) -> dict[str, Any] | None:
    """A stored event as the JSON of the wire vocabulary (what the admin replay serves); None for
    something that is not a JSON object. Format 1 is that JSON already: it is returned as stored."""
    _check_version(version)
    if type(data) in _KIND_OF_WIRE:
        return dict(msgspec.to_builtins(data))
    return dict(data) if isinstance(data, dict) else None


def difference(stored: ev.Event, replayed: ev.Event) -> tuple[JSON, JSON]:
    """Where two events differ, as their stored JSON: the differing fields of each when they are of
    the same kind, else both whole (for crash recovery's divergence messages)."""
    a, b = encode_event(stored), encode_event(replayed)
    if type(stored) is not type(replayed):
        return a, b
    keys = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    return {k: a.get(k) for k in keys}, {k: b.get(k) for k in keys}
