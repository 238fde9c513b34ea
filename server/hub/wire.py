"""Conversion between engine values and the wire messages of :mod:`client_protocol`.

The engine speaks tile faces (ints) and frozen dataclasses; the wire speaks mpsz strings and msgspec
structs. Redaction is not done here: :mod:`server.engine.views` replaces secret tiles with ``None``
before an event reaches :func:`event_to_wire`, which maps every ``None`` to JSON ``null``.

>>> from server.engine.actions import Discard
>>> action_to_wire(Discard(35, tsumogiri=False))
Action(type=<ActionType.DISCARD: 'discard'>, tile='0p', tsumogiri=False, consumed=None)
>>> action_from_wire(action_to_wire(Discard(35)))
Discard(tile=35, tsumogiri=False)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, assert_never

from client_protocol import events as wire
from client_protocol.errors import ErrorCode, ProtocolError
from client_protocol.messages import Action as WireAction
from client_protocol.messages import ActionType
from server.engine import events as ev
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
from server.engine.melds import Meld
from server.engine.tiles import Tile, sort_key, tile_name

_ACTION_ORDER = {action_type: i for i, action_type in enumerate(ActionType)}


def tile_to_wire(tile: Tile) -> str:
    return tile_name(tile)


def tiles_to_wire(tiles: Iterable[Tile]) -> tuple[str, ...]:
    return tuple(tile_name(t) for t in tiles)


def _optional_tile(tile: Tile | None) -> str | None:
    return None if tile is None else tile_name(tile)


def _hidden_hands(hands: Sequence[tuple[Tile, ...] | None]) -> tuple[tuple[str, ...] | None, ...]:
    return tuple(None if hand is None else tiles_to_wire(hand) for hand in hands)


def meld_to_wire(meld: Meld) -> wire.Meld:
    return wire.Meld(
        type=wire.MeldType(meld.type.value),
        tiles=tiles_to_wire(meld.tiles),
        called=_optional_tile(meld.called),
        from_seat=meld.from_seat,
        added=_optional_tile(meld.added),
    )


def event_to_wire(event: ev.Event) -> wire.Event:
    """The wire form of one (already redacted) engine event."""
    match event:
        case ev.MatchStarted():
            return wire.MatchStarted(
                ruleset_json=event.ruleset_json,
                ruleset_hash=event.ruleset_hash,
                seed_commitment=event.seed_commitment,
                engine_version=event.engine_version,
                wall_algorithm=event.wall_algorithm,
                scores=event.scores,
            )
        case ev.RoundStarted():
            return wire.RoundStarted(
                hand_index=event.hand_index,
                round_wind=event.round_wind,
                kyoku=event.kyoku,
                honba=event.honba,
                riichi_sticks=event.riichi_sticks,
                dealer=event.dealer,
                scores=event.scores,
                dora_indicator=tile_name(event.dora_indicator),
                wall_commitment=event.wall_commitment,
                hands=_hidden_hands(event.hands),
            )
        case ev.TileDrawn():
            return wire.TileDrawn(seat=event.seat, tile=_optional_tile(event.tile), rinshan=event.rinshan)
        case ev.TileDiscarded():
            return wire.TileDiscarded(
                seat=event.seat, tile=tile_name(event.tile), tsumogiri=event.tsumogiri, riichi=event.riichi
            )
        case ev.RiichiAccepted():
            return wire.RiichiAccepted(
                seat=event.seat, scores=event.scores, riichi_sticks=event.riichi_sticks
            )
        case ev.MeldCalled():
            return wire.MeldCalled(
                seat=event.seat,
                meld_type=wire.MeldType(event.type.value),
                meld=meld_to_wire(event.meld),
                tile=_optional_tile(event.tile),
                consumed=tiles_to_wire(event.consumed),
            )
        case ev.DoraRevealed():
            return wire.DoraRevealed(indicator=tile_name(event.indicator))
        case ev.HandWon():
            return wire.HandWon(
                seat=event.seat,
                from_seat=event.from_seat,
                win_tile=tile_name(event.win_tile),
                hand=tiles_to_wire(event.hand),
                melds=tuple(meld_to_wire(m) for m in event.melds),
                yaku=tuple(wire.Yaku(name=y.name, han=y.han) for y in event.yaku),
                han=event.han,
                fu=event.fu,
                points=event.points,
                limit=event.limit,
                yakuman=event.yakuman,
                dora_indicators=tiles_to_wire(event.dora_indicators),
                ura_indicators=tiles_to_wire(event.ura_indicators),
                pao_seat=event.pao_seat,
                deltas=event.deltas,
                scores=event.scores,
            )
        case ev.HandDrawn():
            return wire.HandDrawn(
                reason=wire.DrawReason(event.reason.value),
                tenpai=event.tenpai,
                hands=_hidden_hands(event.hands),
                nagashi=event.nagashi,
                deltas=event.deltas,
                scores=event.scores,
            )
        case ev.WallRevealed():
            return wire.WallRevealed(
                salt=event.salt, wall=tiles_to_wire(event.wall), wall_commitment=event.wall_commitment
            )
        case ev.RoundEnded():
            return wire.RoundEnded(scores=event.scores, riichi_sticks=event.riichi_sticks)
        case ev.MatchEnded():
            return wire.MatchEnded(
                scores=event.scores, ranks=event.ranks, final_points=event.final_points, seed=event.seed
            )
        case _:
            assert_never(event)


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
