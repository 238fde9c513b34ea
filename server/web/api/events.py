"""Stored events back into engine events: the inverse of :func:`server.hub.wire.event_to_wire`.

The step log keeps every event as the JSON of its wire form (:mod:`client_protocol.events`, every
tile present). The exports of :mod:`server.records` take engine events, so a stored match is decoded
here: JSON → wire struct (validated by msgspec) → engine event. Nothing is replayed and no seed is
needed, so an aborted match exports as well as a finished one, whatever engine wrote it.

>>> from server.engine.events import TileDiscarded
>>> event_from_json({"type": "tile_discarded", "seat": 1, "tile": "0p", "tsumogiri": False, "riichi": True})
TileDiscarded(seat=1, tile=35, tsumogiri=False, riichi=True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, assert_never

import msgspec

from client_protocol import events as wire
from server.engine import events as ev
from server.engine.errors import NotationError
from server.engine.melds import Meld, MeldType
from server.engine.tiles import Tile, parse_tile


class StoredEventError(ValueError):
    """A stored event that is not a valid (omniscient) wire event."""


def _tile(name: str) -> Tile:
    return parse_tile(name)


def _tiles(names: Iterable[str]) -> tuple[Tile, ...]:
    return tuple(parse_tile(n) for n in names)


def _opt_tile(name: str | None) -> Tile | None:
    return None if name is None else parse_tile(name)


def _hands(hands: Sequence[tuple[str, ...] | None]) -> tuple[tuple[Tile, ...] | None, ...]:
    return tuple(None if h is None else _tiles(h) for h in hands)


def _meld(m: wire.Meld) -> Meld:
    return Meld(
        type=MeldType(m.type.value),
        tiles=_tiles(m.tiles),
        called=_opt_tile(m.called),
        from_seat=m.from_seat,
        added=_opt_tile(m.added),
    )


def _from_wire(e: wire.Event) -> ev.Event:
    match e:
        case wire.MatchStarted():
            return ev.MatchStarted(
                ruleset_json=e.ruleset_json,
                ruleset_hash=e.ruleset_hash,
                seed_commitment=e.seed_commitment,
                engine_version=e.engine_version,
                wall_algorithm=e.wall_algorithm,
                scores=tuple(e.scores),
            )
        case wire.RoundStarted():
            return ev.RoundStarted(
                hand_index=e.hand_index,
                round_wind=e.round_wind,
                kyoku=e.kyoku,
                honba=e.honba,
                riichi_sticks=e.riichi_sticks,
                dealer=e.dealer,
                scores=tuple(e.scores),
                dora_indicator=_tile(e.dora_indicator),
                wall_commitment=e.wall_commitment,
                hands=_hands(e.hands),
            )
        case wire.TileDrawn():
            return ev.TileDrawn(seat=e.seat, tile=_opt_tile(e.tile), rinshan=e.rinshan)
        case wire.TileDiscarded():
            return ev.TileDiscarded(seat=e.seat, tile=_tile(e.tile), tsumogiri=e.tsumogiri, riichi=e.riichi)
        case wire.RiichiAccepted():
            return ev.RiichiAccepted(seat=e.seat, scores=tuple(e.scores), riichi_sticks=e.riichi_sticks)
        case wire.MeldCalled():
            return ev.MeldCalled(
                seat=e.seat,
                type=MeldType(e.meld_type.value),
                meld=_meld(e.meld),
                tile=_opt_tile(e.tile),
                consumed=_tiles(e.consumed),
            )
        case wire.DoraRevealed():
            return ev.DoraRevealed(indicator=_tile(e.indicator))
        case wire.HandWon():
            return ev.HandWon(
                seat=e.seat,
                from_seat=e.from_seat,
                win_tile=_tile(e.win_tile),
                hand=_tiles(e.hand),
                melds=tuple(_meld(m) for m in e.melds),
                yaku=tuple(ev.YakuScore(name=y.name, han=y.han) for y in e.yaku),
                han=e.han,
                fu=e.fu,
                points=e.points,
                limit=e.limit,
                yakuman=e.yakuman,
                dora_indicators=_tiles(e.dora_indicators),
                ura_indicators=_tiles(e.ura_indicators),
                pao_seat=e.pao_seat,
                deltas=tuple(e.deltas),
                scores=tuple(e.scores),
            )
        case wire.HandDrawn():
            return ev.HandDrawn(
                reason=ev.DrawReason(e.reason.value),
                tenpai=tuple(e.tenpai),
                hands=_hands(e.hands),
                nagashi=tuple(e.nagashi),
                deltas=tuple(e.deltas),
                scores=tuple(e.scores),
            )
        case wire.WallRevealed():
            return ev.WallRevealed(salt=e.salt, wall=_tiles(e.wall), wall_commitment=e.wall_commitment)
        case wire.RoundEnded():
            return ev.RoundEnded(scores=tuple(e.scores), riichi_sticks=e.riichi_sticks)
        case wire.MatchEnded():
            return ev.MatchEnded(
                scores=tuple(e.scores), ranks=tuple(e.ranks), final_points=tuple(e.final_points), seed=e.seed
            )
        case _:
            assert_never(e)


def event_from_json(data: Any) -> ev.Event:
    """One stored event (a JSON object of the wire vocabulary) as an engine event.

    Raises :class:`StoredEventError` when it is not one."""
    try:
        decoded: wire.Event = msgspec.convert(data, wire.Event)
        return _from_wire(decoded)
    except (msgspec.ValidationError, NotationError, ValueError) as exc:
        kind = data.get("type") if isinstance(data, dict) else type(data).__name__
        raise StoredEventError(f"stored event {kind!r} is not a valid wire event: {exc}") from None


def events_from_json(items: Iterable[Any]) -> list[ev.Event]:
    return [event_from_json(item) for item in items]
