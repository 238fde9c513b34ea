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

from collections.abc import Iterable
from typing import Any, assert_never

from client_protocol.errors import ErrorCode, ProtocolError
from client_protocol.messages import Action as WireAction
from client_protocol.messages import ActionType
from server.engine.actions import (
    Action,
    Ankan,
    Chi,
    Daiminkan,
    Discard,
    Kakan,
    KyuushuKyuuhai,
    Pass,
    Pon,
    Riichi,
    Ron,
    Tsumo,
    action_from_dict,
)
from server.engine.errors import NotationError
from server.engine.tiles import Tile, sort_key, tile_name
from server.eventlog.convert import event_to_wire, meld_to_wire, tile_to_wire, tiles_to_wire

__all__ = [
    "action_from_wire",
    "action_to_wire",
    "event_to_wire",
    "legal_actions_to_wire",
    "meld_to_wire",
    "tile_to_wire",
    "tiles_to_wire",
]

_ACTION_ORDER = {action_type: i for i, action_type in enumerate(ActionType)}


def action_to_wire(action: Action) -> WireAction:
    """The wire form of one engine action (as listed in a prompt's ``legal_actions``)."""
    action_type = ActionType(action.TYPE)
    match action:
        case Discard(tile, tsumogiri) | Riichi(tile, tsumogiri):
            return WireAction(type=action_type, tile=tile_name(tile), tsumogiri=tsumogiri)
        case Kakan(tile):
            return WireAction(type=action_type, tile=tile_name(tile))
        case Chi(consumed) | Pon(consumed) | Daiminkan(consumed) | Ankan(consumed):
            return WireAction(type=action_type, consumed=tiles_to_wire(consumed))
        case Tsumo() | Ron() | Pass() | KyuushuKyuuhai():
            return WireAction(type=action_type)
        case _:
            assert_never(action)


def legal_actions_to_wire(actions: Iterable[Action]) -> tuple[WireAction, ...]:
    """A prompt's ``legal_actions`` in a stable order: by action type, then by tiles."""
    return tuple(action_to_wire(a) for a in sorted(actions, key=_action_sort_key))


def _action_sort_key(action: Action) -> tuple[int, tuple[tuple[int, int], ...], bool]:
    tiles: tuple[Tile, ...]
    tsumogiri = False
    match action:
        case Discard(tile, tsumogiri) | Riichi(tile, tsumogiri):
            tiles = (tile,)
        case Kakan(tile):
            tiles = (tile,)
        case Chi(consumed) | Pon(consumed) | Daiminkan(consumed) | Ankan(consumed):
            tiles = consumed
        case _:
            tiles = ()
    return (_ACTION_ORDER[ActionType(action.TYPE)], tuple(sort_key(t) for t in tiles), tsumogiri)


def action_from_wire(action: WireAction) -> Action:
    """Parse a client's action into the engine's; a field that does not fit its type raises
    :class:`ProtocolError` with code ``malformed`` (legality is the engine's question, not this one's)."""
    data: dict[str, Any] = {"type": action.type.value}
    if action.type in (ActionType.DISCARD, ActionType.RIICHI) and action.tsumogiri is None:
        # Fields are echoed from legal_actions: a discard without its tsumogiri flag is not a guess.
        raise ProtocolError(
            ErrorCode.MALFORMED, f"bad action: {action.type.value} needs 'tsumogiri' (echo a legal action)"
        )
    if action.tile is not None:
        data["tile"] = action.tile
    if action.tsumogiri is not None:
        data["tsumogiri"] = action.tsumogiri
    if action.consumed is not None:
        data["consumed"] = "".join(action.consumed)
    try:
        return action_from_dict(data)
    except NotationError as exc:
        raise ProtocolError(ErrorCode.MALFORMED, f"bad action: {exc}") from None
