"""What a seat may decide: the action vocabulary (imperatives).

Actions carry tile *faces* (see :mod:`server.engine.tiles`), never physical positions, so two plain
``5p`` in a hand give one ``Discard(5p)`` action; ``tsumogiri`` says whether the discarded tile is
the one just drawn (it matters for records and for what the other players see).

Every action has a JSON form ``{"type": "discard", "tile": "0p", "tsumogiri": false}`` with tiles in
mpsz notation; :func:`action_from_dict` parses it with precise errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.engine.errors import NotationError
from server.engine.tiles import NUM_FACES, Tile, format_tiles, parse_tile, parse_tiles, tile_name

# Every action spells out ``__eq__`` and ``__hash__`` rather than letting ``dataclass`` generate them:
# the generated ones are interpreted Python even in the compiled build, and a turn hashes a dozen
# actions into its legal set. Same semantics and the same hash values as the generated methods
# (equal only to the same class with equal fields; the hash of the tuple of the fields), so sets of
# actions keep their iteration order.
_EMPTY_HASH = hash(())


@dataclass(frozen=True, slots=True)
class Discard:
    tile: Tile
    tsumogiri: bool = False

    @property
    def TYPE(self) -> str:  # noqa: N802 - the action's wire name, read as ``action.TYPE``
        return "discard"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Discard:
            return NotImplemented
        return self.tile == other.tile and self.tsumogiri == other.tsumogiri

    def __hash__(self) -> int:
        return hash(
            (
                self.tile,
                self.tsumogiri,
            )
        )


@dataclass(frozen=True, slots=True)
class Riichi:
    """Declare riichi and discard ``tile`` in one decision."""

    tile: Tile
    tsumogiri: bool = False

    @property
    def TYPE(self) -> str:  # noqa: N802 - the action's wire name, read as ``action.TYPE``
        return "riichi"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Riichi:
            return NotImplemented
        return self.tile == other.tile and self.tsumogiri == other.tsumogiri

    def __hash__(self) -> int:
        return hash(
            (
                self.tile,
                self.tsumogiri,
            )
        )


@dataclass(frozen=True, slots=True)
class Tsumo:
    @property
    def TYPE(self) -> str:  # noqa: N802 - the action's wire name, read as ``action.TYPE``
        return "tsumo"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Tsumo:
            return NotImplemented
        return True

    def __hash__(self) -> int:
        return _EMPTY_HASH


@dataclass(frozen=True, slots=True)
class Ron:
    @property
    def TYPE(self) -> str:  # noqa: N802 - the action's wire name, read as ``action.TYPE``
        return "ron"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Ron:
            return NotImplemented
        return True

    def __hash__(self) -> int:
        return _EMPTY_HASH


@dataclass(frozen=True, slots=True)
class Pass:
    @property
    def TYPE(self) -> str:  # noqa: N802 - the action's wire name, read as ``action.TYPE``
        return "pass"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Pass:
            return NotImplemented
        return True

    def __hash__(self) -> int:
        return _EMPTY_HASH


@dataclass(frozen=True, slots=True)
class Chi:
    """Call the last discard into a sequence with the two ``consumed`` tiles from the hand."""

    consumed: tuple[Tile, Tile]

    @property
    def TYPE(self) -> str:  # noqa: N802 - the action's wire name, read as ``action.TYPE``
        return "chi"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Chi:
            return NotImplemented
        return self.consumed == other.consumed

    def __hash__(self) -> int:
        return hash((self.consumed,))


@dataclass(frozen=True, slots=True)
class Pon:
    consumed: tuple[Tile, Tile]

    @property
    def TYPE(self) -> str:  # noqa: N802 - the action's wire name, read as ``action.TYPE``
        return "pon"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Pon:
            return NotImplemented
        return self.consumed == other.consumed

    def __hash__(self) -> int:
        return hash((self.consumed,))


@dataclass(frozen=True, slots=True)
class Daiminkan:
    consumed: tuple[Tile, Tile, Tile]

    @property
    def TYPE(self) -> str:  # noqa: N802 - the action's wire name, read as ``action.TYPE``
        return "daiminkan"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Daiminkan:
            return NotImplemented
        return self.consumed == other.consumed

    def __hash__(self) -> int:
        return hash((self.consumed,))


@dataclass(frozen=True, slots=True)
class Ankan:
    consumed: tuple[Tile, Tile, Tile, Tile]

    @property
    def TYPE(self) -> str:  # noqa: N802 - the action's wire name, read as ``action.TYPE``
        return "ankan"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Ankan:
            return NotImplemented
        return self.consumed == other.consumed

    def __hash__(self) -> int:
        return hash((self.consumed,))


@dataclass(frozen=True, slots=True)
class Kakan:
    """Add ``tile`` to an existing pon of the same kind."""

    tile: Tile

    @property
    def TYPE(self) -> str:  # noqa: N802 - the action's wire name, read as ``action.TYPE``
        return "kakan"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Kakan:
            return NotImplemented
        return self.tile == other.tile

    def __hash__(self) -> int:
        return hash((self.tile,))


@dataclass(frozen=True, slots=True)
class KyuushuKyuuhai:
    """Abort the hand with nine or more kinds of terminals and honors on the first draw."""

    @property
    def TYPE(self) -> str:  # noqa: N802 - the action's wire name, read as ``action.TYPE``
        return "kyuushu_kyuuhai"

    def __eq__(self, other: object) -> bool:
        if type(other) is not KyuushuKyuuhai:
            return NotImplemented
        return True

    def __hash__(self) -> int:
        return _EMPTY_HASH


@dataclass(frozen=True, slots=True)
class Nukidora:
    """Set a north tile from the hand aside as a bonus dora and draw a replacement (three seats,
    ``Ruleset.north_bonus``; docs/rules.md#north-bonus)."""

    @property
    def TYPE(self) -> str:  # noqa: N802 - the action's wire name, read as ``action.TYPE``
        return "nukidora"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Nukidora:
            return NotImplemented
        return True

    def __hash__(self) -> int:
        return _EMPTY_HASH


Action = (
    Discard | Riichi | Tsumo | Ron | Pass | Chi | Pon | Daiminkan | Ankan | Kakan | KyuushuKyuuhai | Nukidora
)

# Each action's wire name (``TYPE``) is a property rather than a ``ClassVar``: mypyc takes a class
# variable of a dataclass for a field (tests/engine/test_actions.py keeps these names in step).
ACTION_TYPES: dict[str, type[Action]] = {
    "discard": Discard,
    "riichi": Riichi,
    "tsumo": Tsumo,
    "ron": Ron,
    "pass": Pass,
    "chi": Chi,
    "pon": Pon,
    "daiminkan": Daiminkan,
    "ankan": Ankan,
    "kakan": Kakan,
    "kyuushu_kyuuhai": KyuushuKyuuhai,
    "nukidora": Nukidora,
}


# Interned instances of the actions a turn offers again and again (the dozen discards of every turn,
# the answers of every window): options hand these out instead of building new ones each step.
# Actions are immutable values compared by their fields, so sharing them changes nothing.
DISCARDS: tuple[tuple[Discard, Discard], ...] = tuple(
    (Discard(t, False), Discard(t, True)) for t in range(NUM_FACES)
)
"""``DISCARDS[tile][tsumogiri]``."""
RIICHIS: tuple[tuple[Riichi, Riichi], ...] = tuple(
    (Riichi(t, False), Riichi(t, True)) for t in range(NUM_FACES)
)
"""``RIICHIS[tile][tsumogiri]``."""
TSUMO = Tsumo()
RON = Ron()
PASS = Pass()
KYUUSHU_KYUUHAI = KyuushuKyuuhai()
NUKIDORA = Nukidora()


def action_to_dict(action: Action) -> dict[str, Any]:
    """The JSON form of an action, tiles in mpsz notation."""
    out: dict[str, Any] = {"type": action.TYPE}
    match action:
        case Discard(tile, tsumogiri) | Riichi(tile, tsumogiri):
            out["tile"] = tile_name(tile)
            out["tsumogiri"] = tsumogiri
        case Kakan(tile):
            out["tile"] = tile_name(tile)
        case Chi(consumed) | Pon(consumed) | Daiminkan(consumed) | Ankan(consumed):
            out["consumed"] = format_tiles(consumed)
        case Tsumo() | Ron() | Pass() | KyuushuKyuuhai() | Nukidora():
            pass
    return out


def action_from_dict(data: Any) -> Action:
    """Parse the JSON form of an action; raises :class:`NotationError` with the reason."""
    if not isinstance(data, dict):
        raise NotationError(f"an action must be an object, got {type(data).__name__}")
    raw_type = data.get("type")
    cls = ACTION_TYPES.get(raw_type) if isinstance(raw_type, str) else None
    if cls is None:
        raise NotationError(f"unknown action type {raw_type!r}; expected one of {sorted(ACTION_TYPES)}")
    kind_ = str(raw_type)  # a key of ACTION_TYPES
    allowed = {"type"}
    result: Action
    if cls in (Discard, Riichi):
        allowed |= {"tile", "tsumogiri"}
        tsumogiri = data.get("tsumogiri", False)
        if not isinstance(tsumogiri, bool):
            raise NotationError(f"{kind_}: 'tsumogiri' must be a boolean, got {tsumogiri!r}")
        tile = _tile_field(data, kind_)
        result = Discard(tile, tsumogiri) if cls is Discard else Riichi(tile, tsumogiri)
    elif cls is Kakan:
        allowed.add("tile")
        result = Kakan(_tile_field(data, kind_))
    elif cls in (Chi, Pon, Daiminkan, Ankan):
        allowed.add("consumed")
        raw = data.get("consumed")
        if not isinstance(raw, str):
            raise NotationError(f"{kind_}: 'consumed' must be an mpsz string, got {raw!r}")
        tiles = parse_tiles(raw)
        need = {Chi: 2, Pon: 2, Daiminkan: 3, Ankan: 4}[cls]
        if len(tiles) != need:
            raise NotationError(f"{kind_}: 'consumed' needs {need} tiles, got {raw!r}")
        result = cls(tuple(tiles))  # type: ignore[arg-type]
    else:
        result = cls()  # type: ignore[call-arg]
    extra = set(data) - allowed
    if extra:
        raise NotationError(f"{kind_}: unexpected field(s) {sorted(extra)}")
    return result


def _tile_field(data: dict[str, Any], kind_: str) -> Tile:
    raw = data.get("tile")
    if not isinstance(raw, str):
        raise NotationError(f"{kind_}: 'tile' must be an mpsz tile like '5m', got {raw!r}")
    return parse_tile(raw)
