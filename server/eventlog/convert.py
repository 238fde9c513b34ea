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

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, get_args

import msgspec

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


# -- events: one table, both directions ---------------------------------------------------------------
#
# An event converts field by field: the wire struct's fields, in its order, each from the engine
# event's field of the same name (unless an entry renames it) and through a pair of functions (to the
# wire, from the wire) when the two vocabularies spell the value differently. A field no entry names
# is the same value on both sides (a sequence comes back from the wire as a tuple, as the engine
# keeps it). A new event is one line of EVENT_CODECS.


@dataclass(frozen=True, slots=True)
class Spelling:
    """How a value is spelled on the wire and back (None: as it is)."""

    to_wire: Callable[[Any], Any] | None
    from_wire: Callable[[Any], Any] | None


@dataclass(frozen=True, slots=True)
class Renamed:
    """A wire field whose engine field has another name (and maybe another spelling)."""

    engine: str
    spelling: Spelling


def _meld_type_to_wire(t: MeldType) -> wire.MeldType:
    return wire.MeldType(t.value)


def _meld_type_from_wire(t: wire.MeldType) -> MeldType:
    return MeldType(t.value)


def _draw_reason_to_wire(r: ev.DrawReason) -> wire.DrawReason:
    return wire.DrawReason(r.value)


def _draw_reason_from_wire(r: wire.DrawReason) -> ev.DrawReason:
    return ev.DrawReason(r.value)


def _melds_to_wire(melds: Iterable[Meld]) -> tuple[wire.Meld, ...]:
    return tuple(meld_to_wire(m) for m in melds)


def _melds_from_wire(melds: Iterable[wire.Meld]) -> tuple[Meld, ...]:
    return tuple(meld_from_wire(m) for m in melds)


def _yaku_to_wire(yaku: Iterable[ev.YakuScore]) -> tuple[wire.Yaku, ...]:
    return tuple(wire.Yaku(name=y.name, han=y.han) for y in yaku)


def _yaku_from_wire(yaku: Iterable[wire.Yaku]) -> tuple[ev.YakuScore, ...]:
    return tuple(ev.YakuScore(name=y.name, han=y.han) for y in yaku)


TILE = Spelling(TILE_NAMES.__getitem__, tile_from_wire)
OPTIONAL_TILE = Spelling(_optional_tile, _optional_face)
TILES = Spelling(tiles_to_wire, tiles_from_wire)
HIDDEN_HANDS = Spelling(_hidden_hands, _hands_from_wire)
MELD = Spelling(meld_to_wire, meld_from_wire)
MELDS = Spelling(_melds_to_wire, _melds_from_wire)
YAKU = Spelling(_yaku_to_wire, _yaku_from_wire)
MELD_TYPE = Spelling(_meld_type_to_wire, _meld_type_from_wire)
DRAW_REASON = Spelling(_draw_reason_to_wire, _draw_reason_from_wire)
_SAME = Spelling(None, None)
_SEQUENCE = Spelling(None, tuple)  # a sequence the engine keeps as a tuple


class EventCodec:
    """One kind of event: its engine class, its wire struct, and each field's name and spelling
    (keyword arguments: wire field name = :class:`Spelling` or :class:`Renamed`).

    :meth:`to_wire` and :meth:`from_wire` are compiled from the table once, at import, into the
    plain constructor call a hand-written converter would be (``Wire(seat=e.seat, tile=f(e.tile),
    ...)``): every step the hub stores converts each of its events, and a loop over the fields per
    event cost three times as much."""

    __slots__ = ("engine", "from_wire", "tag", "to_wire", "wire")

    def __init__(
        self, engine: type[ev.Event], wire_struct: type[wire.Event], **fields: Spelling | Renamed
    ) -> None:
        self.engine = engine
        self.wire = wire_struct
        self.tag = str(wire_struct.__struct_config__.tag)
        pairs: list[tuple[str, str, Spelling]] = []  # (wire field, engine field, spelling)
        for info in msgspec.inspect.type_info(wire_struct).fields:  # type: ignore[attr-defined]
            entry = fields.pop(info.name, None)
            name, spelling = info.name, None
            if isinstance(entry, Renamed):
                name, spelling = entry.engine, entry.spelling
            elif entry is not None:
                spelling = entry
            if spelling is None:
                spelling = _SEQUENCE if _is_sequence(info.type) else _SAME
            pairs.append((info.name, name, spelling))
        assert not fields, f"{engine.__name__}: no wire field {sorted(fields)}"
        mismatch = {f.name for f in dataclasses.fields(engine)} ^ {e for _, e, _ in pairs}
        assert not mismatch, f"{engine.__name__}: fields {sorted(mismatch)} do not match the wire's"
        self.to_wire: Callable[[ev.Event], wire.Event] = _converter(
            wire_struct, [(w, e, s.to_wire) for w, e, s in pairs]
        )
        self.from_wire: Callable[[wire.Event], ev.Event] = _converter(
            engine, [(e, w, s.from_wire) for w, e, s in pairs]
        )


def _converter(
    target: Callable[..., Any], fields: Sequence[tuple[str, str, Callable[[Any], Any] | None]]
) -> Callable[[Any], Any]:
    """``lambda e: target(out=f(e.in), ...)`` for ``fields`` = ``(out, in, f or None)``, as code."""
    namespace: dict[str, Any] = {"target": target}
    args = []
    for i, (out, name, f) in enumerate(fields):
        if f is None:
            args.append(f"{out}=e.{name}")
        else:
            namespace[f"f{i}"] = f
            args.append(f"{out}=f{i}(e.{name})")
    exec(f"def convert(e):\n    return target({', '.join(args)})\n", namespace)
    convert: Callable[[Any], Any] = namespace["convert"]
    return convert


def _is_sequence(t: Any) -> bool:
    while isinstance(t, msgspec.inspect.Metadata):
        t = t.type
    return isinstance(t, msgspec.inspect.VarTupleType | msgspec.inspect.TupleType | msgspec.inspect.ListType)


EVENT_CODECS: tuple[EventCodec, ...] = (
    EventCodec(ev.MatchStarted, wire.MatchStarted),
    EventCodec(ev.RoundStarted, wire.RoundStarted, dora_indicator=TILE, hands=HIDDEN_HANDS),
    EventCodec(ev.TileDrawn, wire.TileDrawn, tile=OPTIONAL_TILE),
    EventCodec(ev.TileDiscarded, wire.TileDiscarded, tile=TILE),
    EventCodec(ev.RiichiAccepted, wire.RiichiAccepted),
    EventCodec(
        ev.MeldCalled,
        wire.MeldCalled,
        meld_type=Renamed("type", MELD_TYPE),
        meld=MELD,
        tile=OPTIONAL_TILE,
        consumed=TILES,
    ),
    EventCodec(ev.NorthDeclared, wire.NorthDeclared, tile=TILE),
    EventCodec(ev.DoraRevealed, wire.DoraRevealed, indicator=TILE),
    EventCodec(
        ev.HandWon,
        wire.HandWon,
        win_tile=TILE,
        hand=TILES,
        melds=MELDS,
        yaku=YAKU,
        dora_indicators=TILES,
        ura_indicators=TILES,
    ),
    EventCodec(ev.HandDrawn, wire.HandDrawn, reason=DRAW_REASON, hands=HIDDEN_HANDS),
    EventCodec(ev.WallRevealed, wire.WallRevealed, wall=TILES),
    EventCodec(ev.RoundEnded, wire.RoundEnded),
    EventCodec(ev.MatchEnded, wire.MatchEnded),
)
"""Every event, in the order of the vocabularies (``tests/eventlog`` checks both are covered)."""

_TO_WIRE: dict[type[ev.Event], Callable[[ev.Event], wire.Event]] = {c.engine: c.to_wire for c in EVENT_CODECS}
_FROM_WIRE: dict[type[wire.Event], Callable[[wire.Event], ev.Event]] = {
    c.wire: c.from_wire for c in EVENT_CODECS
}
assert set(_FROM_WIRE) == set(wire.EVENT_TYPES), "every wire event has its codec"
assert set(_TO_WIRE) == set(get_args(ev.Event)), "every engine event has its codec"


def event_to_wire(event: ev.Event) -> wire.Event:
    """The wire form of one (already redacted) engine event."""
    return _TO_WIRE[type(event)](event)


def event_from_wire(e: wire.Event) -> ev.Event:
    """The engine event of one wire event (raises :class:`NotationError` for a tile that is not one)."""
    return _FROM_WIRE[type(e)](e)
