"""Seeded, verifiable walls: one shuffle per hand, a commitment before play, the reveal after it.

The algorithm (``WALL_ALGORITHM = "jantaku-shake256-fisher-yates-v1"``)
=======================================================================

It is our own, written down here so that anyone can re-implement it and check a revealed wall.
Python's ``random.shuffle`` is not used: its output is not promised to stay the same across Python
versions, and a record must replay identically forever.

1. Start from :func:`server.engine.tiles.full_set` (``red_fives``): the 136 faces in canonical order.
2. The message is ``WALL_TAG || seed || hand_index`` where ``WALL_TAG`` is the ASCII bytes
   ``"jantaku-shake256-fisher-yates-v1/wall"`` followed by one zero byte, ``seed`` is the match seed
   as given and ``hand_index`` is the 0-based hand number as 8 bytes, unsigned big-endian. The byte
   stream is SHAKE-256 of that message, read from its first output byte on.
3. Fisher–Yates: for ``i`` from 135 down to 1, draw ``j`` uniform in ``0..i`` and swap positions
   ``i`` and ``j``.
4. A draw uniform in ``0..n-1`` reads the next two stream bytes as an unsigned big-endian ``x``. If
   ``x >= 65536 - 65536 % n`` it is rejected and the next two bytes are read; otherwise the result
   is ``x % n``. Rejection keeps every result equally likely (no modulo bias).

The salt of a hand is the first 32 bytes of SHAKE-256 of ``SALT_TAG || seed || hand_index``, with
``SALT_TAG`` = ``"jantaku-shake256-fisher-yates-v1/salt"`` and a zero byte. The commitment published
when the hand starts is ``sha256(salt || bytes(wall)).hexdigest()``, one byte per face. At the end
of the hand salt and wall are revealed (``WallRevealed``); anyone recomputes the digest with
:func:`verify_wall`. At the end of the match the seed is revealed too and must hash to the
:func:`seed_commitment` published at the start, and every wall must equal :func:`make_wall` of it.

The layout
==========

The round state machine reads the wall only through this layout::

    index      0..51    dealt: seat (dealer + i) % 4 receives wall[13*i : 13*i + 13], i = 0..3
    index     52..121   live draws, in order: wall[52], wall[53], ...
    index    122..125   rinshan (replacement) draws after kans, in order
    index         126   the first dora indicator
    index    127..130   kan dora indicators, in order
    index         131   the first ura dora indicator
    index    132..135   kan ura indicators (ura i lies under dora indicator i)

Three seats (108 tiles: ``full_set(red_fives, 3)`` has no 2m..8m) use the same algorithm and the
same shape (:class:`Layout`, told by the wall's length): 39 dealt, 55 live draws from index 39, the
first four replacement draws at 94..97, dora indicators from 98, ura indicators from 103. A fifth
to eighth replacement draw (kans and norths set aside together) is taken from the far end of the
live wall, backwards (:func:`replacement_position`).

The dead wall is ``wall[122:136]`` and always counts 14 tiles: each rinshan draw shortens the live
wall by one instead, so ``LIVE_TILES - kans`` live draws are available and the haitei tile is the
last of them. (The physical game moves the last live tile to the dead wall; the count is the same.)

>>> wall = make_wall(b"example seed", 0, (1, 1, 1))
>>> sorted(wall) == sorted(full_set((1, 1, 1)))
True
>>> verify_wall(commitment(make_salt(b"example seed", 0), wall), make_salt(b"example seed", 0), wall)
True
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from server.engine.errors import NotationError, WallError
from server.engine.tiles import NUM_FACES, Tile, format_tiles, full_set

WALL_ALGORITHM = "jantaku-shake256-fisher-yates-v1"
WALL_TAG = WALL_ALGORITHM.encode("ascii") + b"/wall\x00"
SALT_TAG = WALL_ALGORITHM.encode("ascii") + b"/salt\x00"
SALT_BYTES = 32

WALL_TILES = 136
DEAD_WALL = 14
HAND_TILES = 13
DEALT_TILES = 4 * HAND_TILES  # 52
LIVE_START = DEALT_TILES  # 52
LIVE_TILES = WALL_TILES - DEALT_TILES - DEAD_WALL  # 70
RINSHAN_START = WALL_TILES - DEAD_WALL  # 122
RINSHAN_TILES = 4  # at most four kans per hand take a replacement draw (suukaikan)
DORA_START = RINSHAN_START + RINSHAN_TILES  # 126
URA_START = DORA_START + 1 + RINSHAN_TILES  # 131
INDICATORS = 1 + RINSHAN_TILES  # the first indicator plus one per kan
MAX_REPLACEMENTS = 8  # three seats: four kans and four norths each take a replacement draw


@dataclass(frozen=True, slots=True)
class Layout:
    """Where each part of a wall lies, for a wall of ``tiles`` faces dealt to ``seats`` seats.

    Four seats: the constants above. Three seats: 108 faces, 39 dealt, 55 live, the same 14-tile
    dead wall (4 rinshan, 5 dora and 5 ura indicators). A replacement draw beyond the fourth (three
    seats only: kans and norths together) is taken from the far end of the live wall, which that
    draw shortens like any other replacement (see :func:`replacement_position`).
    """

    seats: int
    tiles: int
    dealt: int
    live_tiles: int
    rinshan_start: int
    dora_start: int
    ura_start: int

    @property
    def live_start(self) -> int:
        return self.dealt


def _layout(seats: int, tiles: int) -> Layout:
    dealt = seats * HAND_TILES
    rinshan = tiles - DEAD_WALL
    return Layout(
        seats,
        tiles,
        dealt,
        tiles - dealt - DEAD_WALL,
        rinshan,
        rinshan + RINSHAN_TILES,
        rinshan + RINSHAN_TILES + INDICATORS,
    )


LAYOUTS: dict[int, Layout] = {136: _layout(4, 136), 108: _layout(3, 108)}
"""The layout of a wall by its length."""
_SEAT_LAYOUTS: dict[int, Layout] = {lay.seats: lay for lay in LAYOUTS.values()}


def layout_for(seats: int) -> Layout:
    """The layout of a ``seats``-seat wall (3 or 4)."""
    try:
        return _SEAT_LAYOUTS[seats]
    except KeyError:
        raise WallError(f"a wall is for 3 or 4 seats, got {seats!r}") from None


def layout_of(wall: Sequence[Tile]) -> Layout:
    """The layout of a wall, from its length (136: four seats, 108: three)."""
    try:
        return LAYOUTS[len(wall)]
    except KeyError:
        raise WallError(f"a wall has 136 or 108 tiles, got {len(wall)}") from None


def replacement_position(lay: Layout, i: int) -> int:
    """The wall position of the ``i``-th replacement draw of a hand (0-based): the rinshan tiles
    first, then (three seats) the far end of the live wall, backwards."""
    if i < RINSHAN_TILES:
        return lay.rinshan_start + i
    return lay.live_start + lay.live_tiles - 1 - (i - RINSHAN_TILES)


Wall = tuple[Tile, ...]
"""136 faces laid out as described in the module docstring."""

_HAND_INDEX_BYTES = 8
_SAMPLE_BYTES = 2
_SAMPLE_RANGE = 1 << (8 * _SAMPLE_BYTES)


@dataclass(frozen=True, slots=True)
class SealedWall:
    """A hand's wall with its salt and the commitment published before any tile is seen."""

    tiles: Wall
    salt: bytes
    commitment: str


def _message(tag: bytes, seed: object, hand_index: object) -> bytes:
    if not isinstance(seed, bytes):
        raise WallError(f"the seed must be bytes, got {type(seed).__name__}")
    if isinstance(hand_index, bool) or not isinstance(hand_index, int):
        raise WallError(f"hand_index must be an int, got {hand_index!r}")
    if not 0 <= hand_index < 1 << (8 * _HAND_INDEX_BYTES):
        raise WallError(f"hand_index must be 0 <= hand_index < 2**64, got {hand_index}")
    return tag + seed + hand_index.to_bytes(_HAND_INDEX_BYTES, "big")


def _shake_stream(message: bytes) -> Iterator[int]:
    """The SHAKE-256 output of ``message`` as an endless byte iterator.

    ``hashlib`` can only return a prefix of a given length, and a longer prefix starts with the
    shorter one, so the stream is read in doubling prefixes.
    """
    size = 512
    offset = 0
    while True:
        block = hashlib.shake_256(message).digest(size)
        yield from block[offset:]
        offset = size
        size *= 2


def _uniform_below(n: int, stream: Iterator[int]) -> int:
    """An integer uniform in ``0..n-1`` by rejection sampling two-byte big-endian draws."""
    limit = _SAMPLE_RANGE - _SAMPLE_RANGE % n
    while True:
        x = 0
        for _ in range(_SAMPLE_BYTES):
            x = (x << 8) | next(stream)
        if x < limit:
            return x % n


def _full_set(red_fives: Sequence[int], seats: int = 4) -> Wall:
    try:
        return full_set(red_fives, seats)
    except NotationError as exc:
        raise WallError(str(exc)) from None


def make_wall(seed: object, hand_index: object, red_fives: tuple[int, int, int], seats: int = 4) -> Wall:
    """The wall of hand ``hand_index`` of a match seeded with ``seed`` (see the module docstring).

    ``seed`` must be bytes and ``hand_index`` an int (else :class:`WallError`); they are typed
    ``object`` so that the compiled engine checks them itself rather than raising ``TypeError``.
    """
    tiles = list(_full_set(red_fives, seats))
    stream = _shake_stream(_message(WALL_TAG, seed, hand_index))
    for i in range(len(tiles) - 1, 0, -1):
        j = _uniform_below(i + 1, stream)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tuple(tiles)


def make_salt(seed: object, hand_index: object) -> bytes:
    """The 32-byte salt of a hand's commitment; secret until the hand ends, derived from the seed."""
    return hashlib.shake_256(_message(SALT_TAG, seed, hand_index)).digest(SALT_BYTES)


def wall_bytes(wall: Sequence[Tile]) -> bytes:
    """One byte per face, in wall order: the committed representation of a wall."""
    return bytes(wall)


def commitment(salt: bytes, wall: Sequence[Tile]) -> str:
    """``sha256(salt || wall_bytes(wall))`` as lowercase hex, published when the hand starts."""
    return hashlib.sha256(salt + wall_bytes(wall)).hexdigest()


def verify_wall(commitment_hex: object, salt: object, wall: Sequence[Tile]) -> bool:
    """Whether a revealed salt and wall match the published commitment; never raises."""
    if not isinstance(commitment_hex, str) or not isinstance(salt, bytes):
        return False
    try:
        return commitment(salt, wall) == commitment_hex.lower()
    except (TypeError, ValueError, AttributeError):
        return False


def seed_commitment(seed: bytes) -> str:
    """``sha256(seed)`` as hex: published when the match starts, checked when the seed is revealed.

    The seed must be unguessable (the hub draws 32 random bytes); a short seed could be found from
    this digest by trying candidates.
    """
    return hashlib.sha256(seed).hexdigest()


def seal(
    seed: bytes, hand_index: int, red_fives: tuple[int, int, int], wall: Wall | None = None, seats: int = 4
) -> SealedWall:
    """The hand's wall (``wall`` if injected, validated; else :func:`make_wall`), salt and commitment."""
    tiles = (
        make_wall(seed, hand_index, red_fives, seats)
        if wall is None
        else validate_wall(wall, red_fives, seats)
    )
    salt = make_salt(seed, hand_index)
    return SealedWall(tiles, salt, commitment(salt, tiles))


def validate_wall(wall: Sequence[object], red_fives: Sequence[int], seats: int = 4) -> Wall:
    """Return ``wall`` as a tuple if it is exactly a permutation of ``full_set(red_fives, seats)``.

    Raises :class:`WallError` naming the first problem: the length, a value that is not a face, or
    the tiles there are too many and too few of.
    """
    expected = _full_set(red_fives, seats)
    try:
        length = len(wall)
    except TypeError:
        raise WallError(f"a wall must be a sequence of tiles, got {type(wall).__name__}") from None
    if length != len(expected):
        raise WallError(f"a wall has {len(expected)} tiles, got {length}")
    faces: list[Tile] = []
    for pos, tile in enumerate(wall):  # each an object: a bool must not pass for an int
        if isinstance(tile, bool) or not isinstance(tile, int) or not 0 <= tile < NUM_FACES:
            raise WallError(f"wall position {pos} holds {tile!r}, which is not a tile face 0..36")
        faces.append(tile)
    _check_multiset(Counter(faces), Counter(expected), red_fives, exact=True)
    return tuple(faces)


def _check_multiset(
    given: Counter[int], available: Counter[int], red_fives: Sequence[int], *, exact: bool
) -> None:
    surplus = sorted((given - available).elements())
    missing = sorted((available - given).elements()) if exact else []
    if surplus or missing:
        parts = []
        if surplus:
            parts.append(f"too many {format_tiles(surplus)}")
        if missing:
            parts.append(f"missing {format_tiles(missing)}")
        what = "not a permutation of" if exact else "more tiles than"
        raise WallError(f"wall is {what} the full set with red fives {tuple(red_fives)}: {'; '.join(parts)}")


# -- reading the layout -------------------------------------------------------------------------


def _at(wall: Sequence[Tile], start: int, count: int, i: int, what: str) -> Tile:
    if not 0 <= i < count:
        raise IndexError(f"{what} index must be 0..{count - 1}, got {i}")
    return wall[start + i]


def dealt_hands(wall: Sequence[Tile], dealer: int) -> tuple[tuple[Tile, ...], ...]:
    """The 13-tile starting hands (four, or three for a 108-tile wall), indexed by seat: seat
    (dealer + i) % seats gets block i."""
    n = layout_of(wall).seats
    if not 0 <= dealer < n:
        raise IndexError(f"dealer must be a seat 0..{n - 1}, got {dealer}")
    hands: list[tuple[Tile, ...]] = [()] * n
    for i in range(n):
        hands[(dealer + i) % n] = tuple(wall[HAND_TILES * i : HAND_TILES * (i + 1)])
    return tuple(hands)


def live_tile(wall: Sequence[Tile], i: int) -> Tile:
    """The ``i``-th live draw (0-based). Only ``live_tiles - replacements`` of them are ever drawn."""
    lay = layout_of(wall)
    return _at(wall, lay.live_start, lay.live_tiles, i, "live draw")


def rinshan_tile(wall: Sequence[Tile], i: int) -> Tile:
    """The replacement draw after the ``i``-th kan (or north, three seats) of the hand (0-based)."""
    lay = layout_of(wall)
    most = RINSHAN_TILES if lay.seats == 4 else MAX_REPLACEMENTS
    if not 0 <= i < most:
        raise IndexError(f"rinshan draw index must be 0..{most - 1}, got {i}")
    return wall[replacement_position(lay, i)]


def dora_indicator(wall: Sequence[Tile], i: int) -> Tile:
    """Dora indicator ``i``: 0 is flipped at the start, 1..4 after each kan."""
    return _at(wall, layout_of(wall).dora_start, INDICATORS, i, "dora indicator")


def ura_indicator(wall: Sequence[Tile], i: int) -> Tile:
    """The ura dora indicator under dora indicator ``i``."""
    return _at(wall, layout_of(wall).ura_start, INDICATORS, i, "ura indicator")


def dora_indicators(wall: Sequence[Tile], count: int) -> tuple[Tile, ...]:
    """The first ``count`` dora indicators: the one turned at the start, then one per kan."""
    start = len(wall) - DEAD_WALL + RINSHAN_TILES
    return tuple(wall[start : start + count])


def ura_indicators(wall: Sequence[Tile], count: int) -> tuple[Tile, ...]:
    """The ura indicators under the first ``count`` dora indicators."""
    start = len(wall) - INDICATORS
    return tuple(wall[start : start + count])


def live_tiles_left(live_draws: int, kans: int, seats: int = 4) -> int:
    """Live-wall tiles still to draw after ``live_draws`` live draws and ``kans`` replacement draws.

    0 means the last draw was the haitei tile. Riichi needs at least 4
    (docs/rules.md#option-riichi_min_live_tiles, ``Ruleset.riichi_min_live_tiles``).
    """
    return layout_for(seats).live_tiles - live_draws - kans


# -- building a wall from a record --------------------------------------------------------------


def build_wall(
    hands_by_seat: Sequence[Sequence[Tile]],
    dealer: int,
    *,
    live_draws: Sequence[Tile] = (),
    rinshan_draws: Sequence[Tile] = (),
    dora_indicators: Sequence[Tile] = (),
    ura_indicators: Sequence[Tile] = (),
    red_fives: Sequence[int],
) -> Wall:
    """A wall that deals and draws exactly the given tiles, for replaying an external game record.

    The tile sequences are keyword-only so that dora and ura lists cannot be swapped by position.
    Known tiles are placed at their layout positions; every other position is filled with the
    remaining tiles of ``full_set(red_fives)`` in canonical order. Raises :class:`WallError` when the
    given tiles are not a sub-multiset of the full set or do not fit the layout.
    """
    n = len(hands_by_seat)
    if n not in (3, 4):
        raise WallError(f"hands_by_seat needs four (or three) hands, got {n}")
    if not 0 <= dealer < n:
        raise WallError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
    lay = layout_for(n)
    for seat, hand in enumerate(hands_by_seat):
        if len(hand) != HAND_TILES:
            raise WallError(f"seat {seat} was dealt {len(hand)} tiles, expected {HAND_TILES}")
    most = RINSHAN_TILES if n == 4 else MAX_REPLACEMENTS
    if len(rinshan_draws) > most:
        raise WallError(f"at most {most} rinshan draws, got {len(rinshan_draws)}")
    if len(live_draws) > lay.live_tiles - len(rinshan_draws):
        raise WallError(
            f"{len(live_draws)} live draws and {len(rinshan_draws)} rinshan draws exceed the "
            f"{lay.live_tiles} draws of a hand"
        )
    for name, indicators in (("dora", dora_indicators), ("ura", ura_indicators)):
        if len(indicators) > INDICATORS:
            raise WallError(f"at most {INDICATORS} {name} indicators, got {len(indicators)}")

    placed: dict[int, Tile] = {}
    for i in range(n):
        for k, tile in enumerate(hands_by_seat[(dealer + i) % n]):
            placed[HAND_TILES * i + k] = tile
    for k, tile in enumerate(live_draws):
        placed[lay.live_start + k] = tile
    for k, tile in enumerate(rinshan_draws):
        placed[replacement_position(lay, k)] = tile
    for start, tiles in ((lay.dora_start, dora_indicators), (lay.ura_start, ura_indicators)):
        for k, tile in enumerate(tiles):
            placed[start + k] = tile
    for pos, tile in placed.items():
        if isinstance(tile, bool) or not isinstance(tile, int) or not 0 <= tile < NUM_FACES:
            raise WallError(f"tile {tile!r} for wall position {pos} is not a tile face 0..36")

    full = _full_set(red_fives, n)
    given = Counter(placed.values())
    _check_multiset(given, Counter(full), red_fives, exact=False)
    remaining = Counter(full) - given
    rest: list[Tile] = []
    for tile in full:  # canonical order
        if remaining[tile]:
            remaining[tile] -= 1
            rest.append(tile)
    fill = iter(rest)
    return tuple(placed[pos] if pos in placed else next(fill) for pos in range(lay.tiles))


def format_wall(wall: Sequence[Tile]) -> str:
    """The wall in mpsz notation, in wall order (``format_tiles`` of the faces)."""
    return format_tiles(wall)
