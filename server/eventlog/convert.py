"""Engine events <-> the wire vocabulary (:mod:`client_protocol.events`), both directions.

The engine speaks tile faces (ints) and frozen dataclasses; the wire speaks mpsz strings and msgspec
structs. Redaction is not done here: :mod:`server.engine.views` replaces secret tiles with ``None``
before an event reaches :func:`event_to_wire`, which maps every ``None`` to JSON ``null``.

This is the one place where the two vocabularies meet: the hub sends :func:`event_to_wire` to
clients, and the stored log (:mod:`server.eventlog.codec`, format 1) is the JSON of the same structs.

>>> from server.engine.events import TileDiscarded
>>> event_to_wire(TileDiscarded(seat=1, tile=35, tsumogiri=False, riichi=True))
TileDiscarded(seat=1, tile='0p', tsumogiri=False, riichi=True)
>>> event_from_wire(event_to_wire(TileDiscarded(seat=1, tile=35, tsumogiri=False, riichi=True)))
TileDiscarded(seat=1, tile=35, tsumogiri=False, riichi=True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import assert_never

from client_protocol import events as wire
from server.engine import events as ev
from server.engine.errors import NotationError
from server.engine.melds import Meld, MeldType
from server.engine.tiles import NUM_FACES, Tile, tile_name

# Every step the hub stores converts each of its events: a table lookup instead of tile_name's
# arithmetic per tile. The engine only ever makes faces 0..NUM_FACES-1.
TILE_NAMES: tuple[str, ...] = tuple(tile_name(t) for t in range(NUM_FACES))
_TILE_OF: dict[str, Tile] = {name: t for t, name in enumerate(TILE_NAMES)}


def tile_to_wire(tile: Tile) -> str:
    return TILE_NAMES[tile]


def tiles_to_wire(tiles: Iterable[Tile]) -> tuple[str, ...]:
    names = TILE_NAMES
    return tuple(names[t] for t in tiles)


def tile_from_wire(name: str) -> Tile:
    """The face of an mpsz tile name; :class:`NotationError` for anything else."""
    try:
        return _TILE_OF[name]
    except (KeyError, TypeError):
        raise NotationError(f"not a tile: {name!r}") from None


def tiles_from_wire(names: Iterable[str]) -> tuple[Tile, ...]:
    return tuple(tile_from_wire(n) for n in names)


def _optional_tile(tile: Tile | None) -> str | None:
    return None if tile is None else TILE_NAMES[tile]


def _optional_face(name: str | None) -> Tile | None:
    return None if name is None else tile_from_wire(name)


def _hidden_hands(hands: Sequence[tuple[Tile, ...] | None]) -> tuple[tuple[str, ...] | None, ...]:
    return tuple(None if hand is None else tiles_to_wire(hand) for hand in hands)


def _hands_from_wire(hands: Sequence[tuple[str, ...] | None]) -> tuple[tuple[Tile, ...] | None, ...]:
    return tuple(None if hand is None else tiles_from_wire(hand) for hand in hands)


def meld_to_wire(meld: Meld) -> wire.Meld:
    return wire.Meld(
        type=wire.MeldType(meld.type.value),
        tiles=tiles_to_wire(meld.tiles),
        called=_optional_tile(meld.called),
        from_seat=meld.from_seat,
        added=_optional_tile(meld.added),
    )


def meld_from_wire(meld: wire.Meld) -> Meld:
    return Meld(
        type=MeldType(meld.type.value),
        tiles=tiles_from_wire(meld.tiles),
        called=_optional_face(meld.called),
        from_seat=meld.from_seat,
        added=_optional_face(meld.added),
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
                dora_indicator=TILE_NAMES[event.dora_indicator],
                wall_commitment=event.wall_commitment,
                hands=_hidden_hands(event.hands),
            )
        case ev.TileDrawn():
            return wire.TileDrawn(seat=event.seat, tile=_optional_tile(event.tile), rinshan=event.rinshan)
        case ev.TileDiscarded():
            return wire.TileDiscarded(
                seat=event.seat, tile=TILE_NAMES[event.tile], tsumogiri=event.tsumogiri, riichi=event.riichi
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
            return wire.DoraRevealed(indicator=TILE_NAMES[event.indicator])
        case ev.HandWon():
            return wire.HandWon(
                seat=event.seat,
                from_seat=event.from_seat,
                win_tile=TILE_NAMES[event.win_tile],
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


def event_from_wire(e: wire.Event) -> ev.Event:
    """The engine event of one wire event (raises :class:`NotationError` for a tile that is not one)."""
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
                dora_indicator=tile_from_wire(e.dora_indicator),
                wall_commitment=e.wall_commitment,
                hands=_hands_from_wire(e.hands),
            )
        case wire.TileDrawn():
            return ev.TileDrawn(seat=e.seat, tile=_optional_face(e.tile), rinshan=e.rinshan)
        case wire.TileDiscarded():
            return ev.TileDiscarded(
                seat=e.seat, tile=tile_from_wire(e.tile), tsumogiri=e.tsumogiri, riichi=e.riichi
            )
        case wire.RiichiAccepted():
            return ev.RiichiAccepted(seat=e.seat, scores=tuple(e.scores), riichi_sticks=e.riichi_sticks)
        case wire.MeldCalled():
            return ev.MeldCalled(
                seat=e.seat,
                type=MeldType(e.meld_type.value),
                meld=meld_from_wire(e.meld),
                tile=_optional_face(e.tile),
                consumed=tiles_from_wire(e.consumed),
            )
        case wire.DoraRevealed():
            return ev.DoraRevealed(indicator=tile_from_wire(e.indicator))
        case wire.HandWon():
            return ev.HandWon(
                seat=e.seat,
                from_seat=e.from_seat,
                win_tile=tile_from_wire(e.win_tile),
                hand=tiles_from_wire(e.hand),
                melds=tuple(meld_from_wire(m) for m in e.melds),
                yaku=tuple(ev.YakuScore(name=y.name, han=y.han) for y in e.yaku),
                han=e.han,
                fu=e.fu,
                points=e.points,
                limit=e.limit,
                yakuman=e.yakuman,
                dora_indicators=tiles_from_wire(e.dora_indicators),
                ura_indicators=tiles_from_wire(e.ura_indicators),
                pao_seat=e.pao_seat,
                deltas=tuple(e.deltas),
                scores=tuple(e.scores),
            )
        case wire.HandDrawn():
            return ev.HandDrawn(
                reason=ev.DrawReason(e.reason.value),
                tenpai=tuple(e.tenpai),
                hands=_hands_from_wire(e.hands),
                nagashi=tuple(e.nagashi),
                deltas=tuple(e.deltas),
                scores=tuple(e.scores),
            )
        case wire.WallRevealed():
            return ev.WallRevealed(
                salt=e.salt, wall=tiles_from_wire(e.wall), wall_commitment=e.wall_commitment
            )
        case wire.RoundEnded():
            return ev.RoundEnded(scores=tuple(e.scores), riichi_sticks=e.riichi_sticks)
        case wire.MatchEnded():
            return ev.MatchEnded(
                scores=tuple(e.scores), ranks=tuple(e.ranks), final_points=tuple(e.final_points), seed=e.seed
            )
        case _:
            assert_never(e)
