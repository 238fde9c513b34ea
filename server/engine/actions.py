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


@dataclass(frozen=True, slots=True)
class ActionForm:
    """What one kind of action carries besides its ``type``: the one description its JSON form
    (:func:`action_to_dict`, :func:`action_from_dict`: what the event log stores) and its wire form
    (``server.hub.wire``) are both read from, so a new action is one entry of :data:`ACTION_FORMS`.

    The fields are, in this order (the order of the constructor's arguments and of the JSON keys):
    ``tile`` (one tile), ``tsumogiri`` (a flag that defaults to False) and ``consumed`` (that many
    tiles from the hand; 0: no such field)."""

    cls: type[Action]
    tile: bool = False
    tsumogiri: bool = False
    consumed: int = 0

    def make(self, tile: Tile | None, tsumogiri: bool | None, consumed: tuple[Tile, ...] | None) -> Action:
        """The action of these fields (each given exactly when the form has it)."""
        args: list[object] = []
        if self.tile:
            args.append(tile)
        if self.tsumogiri:
            args.append(tsumogiri)
        if self.consumed:
            args.append(consumed)
        return self.cls(*args)  # type: ignore[arg-type]


# By wire name (``TYPE``), in the order prompts list them. Each action's ``TYPE`` is a property rather
# than a ``ClassVar``: mypyc takes a class variable of a dataclass for a field
# (tests/engine/test_actions.py keeps these names in step).
ACTION_FORMS: dict[str, ActionForm] = {
    "discard": ActionForm(Discard, tile=True, tsumogiri=True),
    "riichi": ActionForm(Riichi, tile=True, tsumogiri=True),
    "tsumo": ActionForm(Tsumo),
    "ron": ActionForm(Ron),
    "pass": ActionForm(Pass),
    "chi": ActionForm(Chi, consumed=2),
    "pon": ActionForm(Pon, consumed=2),
    "daiminkan": ActionForm(Daiminkan, consumed=3),
    "ankan": ActionForm(Ankan, consumed=4),
    "kakan": ActionForm(Kakan, tile=True),
    "kyuushu_kyuuhai": ActionForm(KyuushuKyuuhai),
    "nukidora": ActionForm(Nukidora),
}
ACTION_TYPES: dict[str, type[Action]] = {name: form.cls for name, form in ACTION_FORMS.items()}


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
    name = action.TYPE
    form = ACTION_FORMS[name]
    out: dict[str, Any] = {"type": name}
    if form.tile:
        out["tile"] = tile_name(getattr(action, "tile"))  # noqa: B009 - the form says it has one
    if form.tsumogiri:
        out["tsumogiri"] = getattr(action, "tsumogiri")  # noqa: B009
    if form.consumed:
        out["consumed"] = format_tiles(getattr(action, "consumed"))  # noqa: B009
    return out


def action_from_dict(data: Any) -> Action:
    """Parse the JSON form of an action; raises :class:`NotationError` with the reason."""
    if not isinstance(data, dict):
        raise NotationError(f"an action must be an object, got {type(data).__name__}")
    raw_type = data.get("type")
    form = ACTION_FORMS.get(raw_type) if isinstance(raw_type, str) else None
    if form is None:
        raise NotationError(f"unknown action type {raw_type!r}; expected one of {sorted(ACTION_FORMS)}")
    kind_ = str(raw_type)  # a key of ACTION_FORMS
    allowed = {"type"}
    tile: Tile | None = None
    tsumogiri: bool | None = None
    consumed: tuple[Tile, ...] | None = None
    if form.tsumogiri:
        allowed.add("tsumogiri")
        flag: Any = data.get("tsumogiri", False)  # untyped until checked (compiled: typed locals are)
        if not isinstance(flag, bool):
            raise NotationError(f"{kind_}: 'tsumogiri' must be a boolean, got {flag!r}")
        tsumogiri = flag
    if form.tile:
        allowed.add("tile")
        tile = _tile_field(data, kind_)
    if form.consumed:
        allowed.add("consumed")
        raw = data.get("consumed")
        if not isinstance(raw, str):
            raise NotationError(f"{kind_}: 'consumed' must be an mpsz string, got {raw!r}")
        consumed = tuple(parse_tiles(raw))
        if len(consumed) != form.consumed:
            raise NotationError(f"{kind_}: 'consumed' needs {form.consumed} tiles, got {raw!r}")
    extra = set(data) - allowed
    if extra:
        raise NotationError(f"{kind_}: unexpected field(s) {sorted(extra)}")
    return form.make(tile, tsumogiri, consumed)


def _tile_field(data: dict[str, Any], kind_: str) -> Tile:
    raw = data.get("tile")
    if not isinstance(raw, str):
        raise NotationError(f"{kind_}: 'tile' must be an mpsz tile like '5m', got {raw!r}")
    return parse_tile(raw)
