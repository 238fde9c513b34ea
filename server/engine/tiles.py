"""Tiles and mpsz notation.

A tile *face* is an ``int`` from 0 to 36:

* 0-8   ``1m``-``9m`` (characters / manzu)
* 9-17  ``1p``-``9p`` (circles / pinzu)
* 18-26 ``1s``-``9s`` (bamboo / souzu)
* 27-33 ``1z``-``7z``: east, south, west, north, haku (white), hatsu (green), chun (red)
* 34-36 ``0m``, ``0p``, ``0s``: the red fives

The *kind* of a face (0-33) forgets redness; analysis works on 34-kind counts. The 136 physical tiles
of a match are four faces of each kind, with as many of each suit's fives red as the ruleset says.

>>> parse_tiles("123m406p77z")
(0, 1, 2, 12, 35, 14, 33, 33)
>>> format_tiles(parse_tiles("123m406p77z"))
'123m406p77z'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from server.engine.errors import NotationError

Tile = int
"""A tile face, 0..36 (see the module docstring)."""

NUM_KINDS = 34
NUM_FACES = 37
RED_FIVES: tuple[Tile, Tile, Tile] = (34, 35, 36)
FIVE_KINDS: tuple[int, int, int] = (4, 13, 22)
SUITS = "mpsz"
EAST, SOUTH, WEST, NORTH, HAKU, HATSU, CHUN = 27, 28, 29, 30, 31, 32, 33
WINDS: tuple[int, int, int, int] = (EAST, SOUTH, WEST, NORTH)
DRAGONS: tuple[int, int, int] = (HAKU, HATSU, CHUN)
TERMINALS_AND_HONORS: frozenset[int] = frozenset({0, 8, 9, 17, 18, 26, *range(27, 34)})

_KIND_OF: tuple[int, ...] = (*range(NUM_KINDS), *FIVE_KINDS)


def kind(tile: Tile) -> int:
    """The 34-kind of a face: red fives map to their plain five."""
    return _KIND_OF[tile]


def is_red(tile: Tile) -> bool:
    return tile >= NUM_KINDS


def suit_of(kind_: int) -> int:
    """0 = m, 1 = p, 2 = s, 3 = z (honors)."""
    return kind_ // 9 if kind_ < 27 else 3


def number_of(kind_: int) -> int:
    """1..9 for suited kinds, 1..7 for honors."""
    return kind_ % 9 + 1 if kind_ < 27 else kind_ - 26


def is_honor(kind_: int) -> bool:
    return kind_ >= 27


def is_terminal_or_honor(kind_: int) -> bool:
    return kind_ in TERMINALS_AND_HONORS


def dora_of_indicator(indicator_kind: int) -> int:
    """The dora kind that an indicator of ``indicator_kind`` points at (9→1, N→E, chun→haku)."""
    if indicator_kind < 27:
        return indicator_kind - 8 if indicator_kind % 9 == 8 else indicator_kind + 1
    if indicator_kind < 31:
        return 27 if indicator_kind == 30 else indicator_kind + 1
    return 31 if indicator_kind == 33 else indicator_kind + 1


def tile_name(tile: Tile) -> str:
    """The two-character mpsz name of one face, e.g. ``"0p"`` for the red five of circles."""
    if not 0 <= tile < NUM_FACES:
        raise NotationError(f"not a tile face: {tile!r}")
    if tile >= NUM_KINDS:
        return "0" + SUITS[tile - NUM_KINDS]
    return f"{number_of(tile)}{SUITS[suit_of(tile)]}"


def parse_tile(text: str) -> Tile:
    """Parse exactly one tile, e.g. ``"5m"``, ``"0s"`` or ``"7z"``."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise NotationError(f"expected exactly one tile, got {len(tiles)} in {text!r}")
    return tiles[0]


def parse_tiles(text: object) -> tuple[Tile, ...]:
    """Parse mpsz notation (``"123m406p77z"``) into faces, in the order written.

    Digits are collected until a suit letter closes them; ``0`` is the red five of its suit. Honors
    are ``1z``..``7z``. Whitespace is ignored.
    """
    if not isinstance(text, str):
        raise NotationError(f"tile notation must be a string, got {type(text).__name__}")
    out: list[Tile] = []
    pending: list[tuple[int, int]] = []  # (digit, position)
    for pos, ch in enumerate(text):
        if ch.isspace():
            continue
        if "0" <= ch <= "9":
            pending.append((ord(ch) - 48, pos))
            continue
        suit = SUITS.find(ch)
        if suit < 0:
            raise NotationError(f"unexpected character {ch!r} at position {pos} in {text!r}")
        if not pending:
            raise NotationError(f"suit letter {ch!r} at position {pos} has no digits in {text!r}")
        for digit, dpos in pending:
            out.append(_face(digit, suit, text, dpos))
        pending.clear()
    if pending:
        raise NotationError(f"digits at the end of {text!r} have no suit letter")
    return tuple(out)


def _face(digit: int, suit: int, text: str, pos: int) -> Tile:
    if suit == 3:
        if not 1 <= digit <= 7:
            raise NotationError(f"honor digit {digit} at position {pos} in {text!r} is not 1..7")
        return 26 + digit
    if digit == 0:
        return RED_FIVES[suit]
    return suit * 9 + digit - 1


def format_tiles(tiles: Iterable[Tile]) -> str:
    """Format faces as mpsz, grouping consecutive tiles of one suit: ``(0, 1, 35)`` → ``"12m0p"``."""
    parts: list[str] = []
    digits: list[str] = []
    current = ""
    for tile in tiles:
        name = tile_name(tile)
        if name[1] != current and digits:
            parts.append("".join(digits) + current)
            digits = []
        current = name[1]
        digits.append(name[0])
    if digits:
        parts.append("".join(digits) + current)
    return "".join(parts)


def sort_key(tile: Tile) -> tuple[int, int]:
    """Sort order for display: by kind, a red five just after its plain fives."""
    return (kind(tile), 1 if is_red(tile) else 0)


def sorted_tiles(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    return tuple(sorted(tiles, key=sort_key))


def counts34(tiles: Iterable[Tile]) -> list[int]:
    """34-kind counts of some faces."""
    counts = [0] * NUM_KINDS
    for tile in tiles:
        counts[_KIND_OF[tile]] += 1
    return counts


SANMA_REMOVED: frozenset[int] = frozenset(range(1, 8))
"""The kinds a three-player set leaves out: 2m..8m (docs/rules.md#three-player-mahjong)."""


def kinds_in_play(seats: int = 4) -> tuple[int, ...]:
    """The 34 kinds, or the 27 of a three-player set (no 2m..8m)."""
    if seats == 4:
        return tuple(range(NUM_KINDS))
    return tuple(k for k in range(NUM_KINDS) if k not in SANMA_REMOVED)


def full_set(red_fives: Sequence[int] = (1, 1, 1), seats: int = 4) -> tuple[Tile, ...]:
    """The physical tiles as faces, in canonical order, with ``red_fives[s]`` red fives in suit s:
    136 for four seats, 108 for three (2m..8m removed, so no red five of characters)."""
    if len(red_fives) != 3 or any(not 0 <= n <= 4 for n in red_fives):
        raise NotationError(f"red_fives must be three counts 0..4, got {tuple(red_fives)!r}")
    if seats not in (3, 4):
        raise NotationError(f"a set is for 3 or 4 seats, got {seats!r}")
    if seats == 3 and red_fives[0]:
        raise NotationError(f"a three-player set has no 5m, so no red 5m: red_fives {tuple(red_fives)!r}")
    out: list[Tile] = []
    for k in kinds_in_play(seats):
        if k in FIVE_KINDS:
            reds = red_fives[FIVE_KINDS.index(k)]
            out.extend([RED_FIVES[FIVE_KINDS.index(k)]] * reds + [k] * (4 - reds))
        else:
            out.extend([k] * 4)
    return tuple(out)
