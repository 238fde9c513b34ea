"""Conversion between engine actions and the wire messages of :mod:`client_protocol`.

Events are converted by the event log's codec (:mod:`server.eventlog.convert`), the one place where
engine events meet the wire vocabulary; its functions are re-exported here for the protocol
session. Redaction is not done there either: :mod:`server.engine.views` replaces secret tiles with
``None`` before an event reaches :func:`event_to_wire`.

>>> from server.engine.actions import Discard
>>> action_to_wire(Discard(35, tsumogiri=False))
Action(type=<ActionType.DISCARD: 'discard'>, tile='0p', tsumogiri=False, consumed=None)
>>> action_from_wire(action_to_wire(Discard(35)))
Discard(tile=35, tsumogiri=False)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from operator import itemgetter

from client_protocol.errors import ErrorCode, ProtocolError
from client_protocol.messages import Action as WireAction
from client_protocol.messages import ActionType, DiscardHint, PromptHints, WaitHint
from server.engine.actions import ACTION_FORMS, Action
from server.engine.errors import NotationError
from server.engine.hints import Hints, Wait
from server.engine.tiles import Tile, sort_key, tile_name
from server.eventlog.convert import (
    TILE_NAMES,
    event_to_wire,
    meld_to_wire,
    tile_from_wire,
    tile_to_wire,
    tiles_from_wire,
    tiles_to_wire,
)

__all__ = [
    "action_from_wire",
    "action_to_wire",
    "event_to_wire",
    "hints_to_wire",
    "legal_actions_to_wire",
    "meld_to_wire",
    "tile_to_wire",
    "tiles_to_wire",
]

_ACTION_TYPE = {action_type.value: action_type for action_type in ActionType}
_ACTION_ORDER = {action_type.value: i for i, action_type in enumerate(ActionType)}
assert _ACTION_TYPE.keys() == ACTION_FORMS.keys(), "the wire's action types are the engine's"
_CACHED_ACTIONS = 4096  # distinct actions are few (a tile or a meld each): their wire forms are kept


def action_to_wire(action: Action) -> WireAction:
    """The wire form of one engine action (as listed in a prompt's ``legal_actions``)."""
    return _wire_entry(action)[1]


@functools.lru_cache(maxsize=_CACHED_ACTIONS)
def _wire_entry(action: Action) -> tuple[tuple[int, tuple[tuple[int, int], ...], bool], WireAction]:
    """An action's place in a prompt's order and its wire form: both depend on the action only, and
    engine actions and wire actions are frozen, so one computation serves every prompt."""
    return _action_sort_key(action), _to_wire(action)


def _to_wire(action: Action) -> WireAction:
    name = action.TYPE
    form = ACTION_FORMS[name]
    return WireAction(
        type=_ACTION_TYPE[name],
        tile=TILE_NAMES[getattr(action, "tile")] if form.tile else None,  # noqa: B009 - the form has it
        tsumogiri=getattr(action, "tsumogiri") if form.tsumogiri else None,  # noqa: B009
        consumed=tiles_to_wire(getattr(action, "consumed")) if form.consumed else None,  # noqa: B009
    )


def legal_actions_to_wire(actions: Iterable[Action]) -> tuple[WireAction, ...]:
    """A prompt's ``legal_actions`` in a stable order: by action type, then by tiles."""
    return tuple(wire for _, wire in sorted(map(_wire_entry, actions), key=itemgetter(0)))


def _action_sort_key(action: Action) -> tuple[int, tuple[tuple[int, int], ...], bool]:
    name = action.TYPE
    form = ACTION_FORMS[name]
    tiles: tuple[Tile, ...] = ()
    if form.tile:
        tiles = (getattr(action, "tile"),)  # noqa: B009 - the form has it
    elif form.consumed:
        tiles = getattr(action, "consumed")  # noqa: B009
    tsumogiri: bool = getattr(action, "tsumogiri") if form.tsumogiri else False  # noqa: B009
    return (_ACTION_ORDER[name], tuple(sort_key(t) for t in tiles), tsumogiri)


def action_from_wire(action: WireAction) -> Action:
    """Parse a client's action into the engine's; a field that does not fit its type raises
    :class:`ProtocolError` with code ``malformed`` (legality is the engine's question, not this one's).

    Typed to typed, by the action's :class:`~server.engine.actions.ActionForm`: the same fields and
    the same reasons as the stored JSON form (:func:`~server.engine.actions.action_from_dict`)."""
    name = action.type.value
    form = ACTION_FORMS[name]
    tile = consumed = None
    try:
        if form.tsumogiri and action.tsumogiri is None:
            # Fields are echoed from legal_actions: a discard without its tsumogiri flag is not a guess.
            raise _malformed(f"{name} needs 'tsumogiri' (echo a legal action)")
        if form.tile:
            if action.tile is None:
                raise _malformed(f"{name}: 'tile' must be an mpsz tile like '5m', got None")
            tile = tile_from_wire(action.tile)
        if form.consumed:
            if action.consumed is None:
                raise _malformed(f"{name}: 'consumed' must be an mpsz string, got None")
            consumed = tiles_from_wire(action.consumed)
            if len(consumed) != form.consumed:
                got = "".join(action.consumed)
                raise _malformed(f"{name}: 'consumed' needs {form.consumed} tiles, got {got!r}")
    except NotationError as exc:
        raise _malformed(str(exc)) from None
    extra = [
        field
        for field, given, expected in (
            ("consumed", action.consumed is not None, form.consumed > 0),
            ("tile", action.tile is not None, form.tile),
            ("tsumogiri", action.tsumogiri is not None, form.tsumogiri),
        )
        if given and not expected
    ]
    if extra:
        raise _malformed(f"{name}: unexpected field(s) {extra}")
    return form.make(tile, action.tsumogiri, consumed)


def _malformed(reason: str) -> ProtocolError:
    return ProtocolError(ErrorCode.MALFORMED, f"bad action: {reason}")


def hints_to_wire(hints: Hints) -> PromptHints:
    """A prompt's ``hints``: waits by kind name (``"5p"``, never red), discards by face (``"0p"``)."""
    return PromptHints(
        waits=_waits_to_wire(hints.waits),
        furiten=hints.furiten,
        discards=tuple(
            DiscardHint(
                tile=tile_name(d.tile),
                tsumogiri=d.tsumogiri,
                waits=_waits_to_wire(d.waits),
                furiten=d.furiten,
            )
            for d in hints.discards
        ),
    )


def _waits_to_wire(waits: tuple[Wait, ...]) -> tuple[WaitHint, ...]:
    return tuple(WaitHint(tile=tile_name(w.kind), left=w.left) for w in waits)
