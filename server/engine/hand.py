"""Hand analysis over 34-kind counts: shanten, agari, waits, decompositions, kan during riichi.

Every function takes the *concealed* tiles of one hand as 34 counts (see :func:`tiles.counts34`).
Called melds are already removed, so a hand with ``m`` melds holds ``13 - 3m`` tiles between turns
(``3k+1``) and ``14 - 3m`` after drawing (``3k+2``); the regular form then needs ``k = total // 3``
sets and a pair. Seven pairs (chiitoitsu) and thirteen orphans (kokushi) exist only for closed hands
of 13 or 14 tiles.

>>> from server.engine.tiles import counts34, parse_tiles
>>> shanten(counts34(parse_tiles("123m456p789s1122z")))
0
>>> sorted(waits(counts34(parse_tiles("1112345678999m"))))
[0, 1, 2, 3, 4, 5, 6, 7, 8]

How shanten is computed: :mod:`server.engine.overlap` (gain vectors per suit, combined).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from server.engine.errors import RulesError
from server.engine.overlap import (
    RANK_WEIGHTS,
    honor_code,
    join_codes,
    joined_overlap,
    regular_shanten,
    suit_code,
    suit_code_of_key,
    suit_key,
)
from server.engine.rules import KanDuringRiichi
from server.engine.tiles import NUM_KINDS, TERMINALS_AND_HONORS, format_tiles

__all__ = [
    "Decomposition",
    "HandForm",
    "Mentsu",
    "count_terminal_honor_kinds",
    "decompositions",
    "discards_keeping_tenpai",
    "is_agari",
    "is_kokushi_tenpai_on",
    "is_tenpai",
    "riichi_ankan_allowed",
    "shanten",
    "shanten_after_discards",
    "shanten_chiitoitsu",
    "shanten_kokushi",
    "shanten_regular",
    "tenpai_for_draw",
    "waits",
]

AGARI = -1
"""The shanten of a complete hand."""

_KOKUSHI_KINDS: tuple[int, ...] = tuple(sorted(TERMINALS_AND_HONORS))


# Whole hands are not cached: a drawn 14-tile hand is new almost every time (over 90 % misses in
# the engine benchmark), so hashing and storing its counts cost more than they save. The per-suit
# steps below them are cached (suits recur), and so are the waits of a concealed hand
# (``options.hand_waits``, asked of the same hands again and again). Every cache is bounded so that
# a long-running process's share stays small (docs/benchmarks.md, "The engine's caches").
_CACHE_LIMIT = 1 << 13
CACHE_BOUNDS: dict[str, int] = {"_COMPLETIONS": _CACHE_LIMIT}
"""The bound of each plain-dict cache of this module (read by ``server.hub.stats.engine_caches``)."""


def _probe() -> None:
    """A function that has Python bytecode only when this module is not compiled."""


_NATIVE = not hasattr(_probe, "__code__")


# --------------------------------------------------------------------------------------------------
# Public values


class HandForm(StrEnum):
    REGULAR = "regular"  # sets and one pair
    CHIITOITSU = "chiitoitsu"  # seven distinct pairs
    KOKUSHI = "kokushi"  # the thirteen terminal and honor kinds, one of them twice


class Mentsu(NamedTuple):
    """One set of a decomposition: a triplet of ``kind`` or the sequence starting at ``kind``."""

    kind: int
    is_triplet: bool

    @property
    def kinds(self) -> tuple[int, int, int]:
        k = self.kind
        return (k, k, k) if self.is_triplet else (k, k + 1, k + 2)

    def __str__(self) -> str:
        return format_tiles(self.kinds)


@dataclass(frozen=True, slots=True)
class Decomposition:
    """One reading of a complete hand.

    * ``REGULAR``: ``sets`` (sorted) and the ``pair`` kind; ``pairs`` is empty.
    * ``CHIITOITSU``: the seven ``pairs`` (sorted); no sets, ``pair`` is ``None``.
    * ``KOKUSHI``: ``pair`` is the kind held twice; no sets, no ``pairs``.
    """

    form: HandForm
    sets: tuple[Mentsu, ...] = ()
    pair: int | None = None
    pairs: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.form is HandForm.REGULAR:
            assert self.pair is not None
            return " ".join([*(str(m) for m in self.sets), format_tiles((self.pair, self.pair))])
        if self.form is HandForm.CHIITOITSU:
            return " ".join(format_tiles((k, k)) for k in self.pairs)
        assert self.pair is not None
        return format_tiles(sorted((*_KOKUSHI_KINDS, self.pair)))


# --------------------------------------------------------------------------------------------------
# Validation


def _total(counts: tuple[int, ...], name: str) -> int:
    """Check 34 counts of 0..4 and return their total (at most 14, never a multiple of 3)."""
    # Compiled, the usual case in one typed pass (min, max and sum compare generic objects);
    # anything unusual goes through the full check below, which decides and words the error.
    # Pure Python keeps the builtins (faster there than a loop).
    items: tuple[object, ...] = counts
    if _NATIVE and len(items) == NUM_KINDS:
        total = 0
        for c in items:
            if type(c) is not int or c < 0 or c > 4:
                break
            total += c
        else:
            if total <= 14 and total % 3:
                return total
    return _checked_total(counts, name)


def _checked_total(counts: tuple[int, ...], name: str) -> int:
    if len(counts) != NUM_KINDS or min(counts) < 0 or max(counts) > 4:
        raise RulesError(f"{name}: expected 34 kind counts of 0..4, got {counts!r}")
    total = sum(counts)
    if type(total) is not int or total > 14 or total % 3 == 0:
        raise RulesError(f"{name}: a hand holds 3k+1 or 3k+2 tiles (at most 14), got {total}: {counts!r}")
    return total


def _require(total: int, residue: int, name: str, counts: tuple[int, ...]) -> None:
    if total % 3 != residue:
        raise RulesError(f"{name}: needs a 3k+{residue} hand, got {total} tiles: {counts!r}")


def _shanten_regular(counts: tuple[int, ...]) -> int:
    return regular_shanten(counts, _total(counts, "shanten_regular"))


def _shanten_chiitoitsu(counts: tuple[int, ...]) -> int:
    # Seven *distinct* pairs (docs/rules.md#hand-shapes): four of a kind is one pair and a useless
    # tile, not two pairs.
    kinds = NUM_KINDS - counts.count(0)
    pairs = kinds - counts.count(1)
    if pairs >= 7:
        return AGARI
    return 6 - pairs + (7 - kinds if kinds < 7 else 0)


_kokushi_counts = itemgetter(*_KOKUSHI_KINDS)


def _shanten_kokushi(counts: tuple[int, ...]) -> int:
    held: tuple[int, ...] = _kokushi_counts(counts)
    return 13 - (13 - held.count(0)) - (1 if max(held) >= 2 else 0)


def _shanten(counts: tuple[int, ...]) -> int:
    # The hot path of bots: the counts themselves are checked suit by suit in regular_shanten's caches.
    if len(counts) != NUM_KINDS:
        raise RulesError(f"shanten: expected 34 kind counts, got {len(counts)}: {counts!r}")
    total = sum(counts)
    if total > 14 or total % 3 == 0:
        raise RulesError(f"shanten: a hand holds 3k+1 or 3k+2 tiles (at most 14), got {total}: {counts!r}")
    best = regular_shanten(counts, total)
    if total >= 13 and best > AGARI:
        best = min(best, _shanten_chiitoitsu(counts), _shanten_kokushi(counts))
    return best


def shanten(counts: Sequence[int]) -> int:
    """The fewest tile exchanges to tenpai: the minimum of the regular, chiitoitsu and kokushi forms.

    ``-1`` is a complete hand (3k+2 tiles), ``0`` tenpai. Chiitoitsu and kokushi count only for 13
    or 14 concealed tiles (closed hands). No form ever relies on a fifth copy of a kind.
    """
    return _shanten(tuple(counts))


def shanten_regular(counts: Sequence[int]) -> int:
    """Shanten of the regular form alone: ``total // 3`` sets and a pair."""
    return _shanten_regular(tuple(counts))


def shanten_after_discards(counts14: Sequence[int]) -> dict[int, int]:
    """The shanten left by discarding one tile of each held kind, as ``{kind: shanten}``.

    Equal to calling :func:`shanten` on each 3k+1 hand, but one call per turn: only the suit of
    the discard changes, so the other suits are looked up once. Made for shanten-greedy bots.
    """
    t = tuple(counts14)
    total = _total(t, "shanten_after_discards")
    _require(total, 2, "shanten_after_discards", t)
    k = total // 3
    codes = (suit_code(t[0:9]), suit_code(t[9:18]), suit_code(t[18:27]), honor_code(t[27:34]))
    keys = (suit_key(t[0:9]), suit_key(t[9:18]), suit_key(t[18:27]))
    # The three untouched parts joined once per part (the join is an exact max-plus convolution:
    # any order gives the same vector), then one entry of one join per discarded kind.
    low = join_codes(codes[0], codes[1])
    high = join_codes(codes[2], codes[3])
    rests = (
        join_codes(codes[1], high),
        join_codes(codes[0], high),
        join_codes(low, codes[3]),
        join_codes(low, codes[2]),
    )
    closed = total == 14
    kinds = NUM_KINDS - t.count(0)
    pairs = kinds - t.count(1)
    held_orphans: tuple[int, ...] = _kokushi_counts(t)
    orphans = 13 - held_orphans.count(0)
    doubled = sum(1 for c in held_orphans if c >= 2)
    out: dict[int, int] = {}
    for kind in range(NUM_KINDS):
        c = t[kind]
        if not c:
            continue
        if kind < 27:
            part = kind // 9
            code = suit_code_of_key(keys[part] - RANK_WEIGHTS[kind - 9 * part])
        else:
            part = 3
            code = honor_code((*t[27:kind], c - 1, *t[kind + 1 : 34]))
        overlap = joined_overlap(code, rests[part], k)
        best = 3 * k + 1 - overlap
        if closed:
            # The same counts as _shanten_chiitoitsu / _shanten_kokushi, minus one tile of kind.
            kinds_after = kinds - (c == 1)
            pairs_after = pairs - (c == 2)
            chiitoitsu = 6 - pairs_after + (7 - kinds_after if kinds_after < 7 else 0)
            if kind in TERMINALS_AND_HONORS:
                kokushi = 13 - (orphans - (c == 1)) - (1 if doubled - (c == 2) > 0 else 0)
            else:
                kokushi = 13 - orphans - (1 if doubled else 0)
            best = min(best, chiitoitsu, kokushi)
        out[kind] = best
    return out


def _closed_total(counts: tuple[int, ...], name: str) -> None:
    total = _total(counts, name)
    if total not in (13, 14):
        raise RulesError(f"{name}: only a closed hand of 13 or 14 tiles has this form, got {total}")


def shanten_chiitoitsu(counts: Sequence[int]) -> int:
    """Shanten of seven distinct pairs (13 or 14 tiles)."""
    t = tuple(counts)
    _closed_total(t, "shanten_chiitoitsu")
    return _shanten_chiitoitsu(t)


def shanten_kokushi(counts: Sequence[int]) -> int:
    """Shanten of thirteen orphans (13 or 14 tiles)."""
    t = tuple(counts)
    _closed_total(t, "shanten_kokushi")
    return _shanten_kokushi(t)


# --------------------------------------------------------------------------------------------------
# Agari and waits


def _complete_suit(ranks: tuple[int, ...], with_pair: bool) -> bool:
    """Do these tiles of one suit split exactly into sets (and one pair if ``with_pair``)?"""
    n = sum(ranks)
    if n % 3 != (2 if with_pair else 0):
        return False
    return (suit_code(ranks) >> (4 * (2 * (n // 3) + with_pair))) & 15 == n


def _complete_honors(counts: tuple[int, ...], with_pair: bool) -> bool:
    pairs = 0
    for c in counts[27:]:
        if c == 2:
            pairs += 1
        elif c in {1, 4}:
            return False
    return pairs == (1 if with_pair else 0)


def _is_regular_agari(counts: tuple[int, ...]) -> bool:
    pair_part = -1
    parts = (counts[0:9], counts[9:18], counts[18:27])
    for i, ranks in enumerate(parts):
        r = sum(ranks) % 3
        if r == 1:
            return False
        if r == 2:
            if pair_part >= 0:
                return False
            pair_part = i
    honors = sum(counts[27:]) % 3
    if honors == 1 or (honors == 2 and pair_part >= 0):
        return False
    if honors == 2:
        pair_part = 3
    if pair_part < 0:
        return False
    for i, ranks in enumerate(parts):
        if not _complete_suit(ranks, i == pair_part):
            return False
    return _complete_honors(counts, pair_part == 3)


def _is_chiitoitsu(counts: tuple[int, ...]) -> bool:
    return sum(1 for c in counts if c == 2) == 7


def _is_kokushi(counts: tuple[int, ...]) -> bool:
    return sum(counts[k] for k in _KOKUSHI_KINDS) == 14 and all(counts[k] for k in _KOKUSHI_KINDS)


def _is_agari(counts: tuple[int, ...]) -> bool:
    total = _total(counts, "is_agari")
    _require(total, 2, "is_agari", counts)
    if _is_regular_agari(counts):
        return True
    return total == 14 and (_is_chiitoitsu(counts) or _is_kokushi(counts))


def is_agari(counts: Sequence[int]) -> bool:
    """Do these 3k+2 concealed tiles form a complete hand (regular, chiitoitsu or kokushi)?"""
    return _is_agari(tuple(counts))


def _regular_waits(counts: tuple[int, ...]) -> set[int]:
    """Kinds that complete the regular form of a 3k+1 hand.

    Adding one tile changes one suit's size by one, so the other suits must already be complete.
    The suit sizes mod 3 say where the tile can go: a single suit of size 3n+1 (it becomes the pair
    suit), or one of two suits of size 3n+2 (it becomes sets; the other keeps the pair).
    """
    sizes = [sum(counts[0:9]) % 3, sum(counts[9:18]) % 3, sum(counts[18:27]) % 3, sum(counts[27:]) % 3]
    ones = [i for i in range(4) if sizes[i] == 1]
    twos = [i for i in range(4) if sizes[i] == 2]
    if len(ones) == 1 and not twos:
        candidates = [(ones[0], -1)]
    elif len(twos) == 2 and not ones:
        candidates = [(twos[0], twos[1]), (twos[1], twos[0])]
    else:
        return set()
    out: set[int] = set()
    for part, pair_part in candidates:
        # Every other part must already be complete, the pair part with the pair.
        if not all(_part_complete(counts, i, i == pair_part) for i in range(4) if i != part):
            continue
        base = part * 9
        with_pair = pair_part < 0
        if part < 3:
            for r in _suit_completions(counts[base : base + 9], with_pair):
                out.add(base + r)
            continue
        for k in range(27, 34):
            # A lone new honor completes nothing, and a fifth copy does not exist.
            if counts[k] in (1, 2):
                after = list(counts)
                after[k] += 1
                if _complete_honors(tuple(after), with_pair):
                    out.add(k)
    return out


_COMPLETIONS: dict[tuple[tuple[int, ...], bool], tuple[int, ...]] = {}


def _suit_completions(ranks: tuple[int, ...], with_pair: bool) -> tuple[int, ...]:
    """The ranks whose one more tile makes this suit exactly sets (and the pair if ``with_pair``),
    never a fifth copy; cached per suit (suits recur far more often than whole hands)."""
    key = (ranks, with_pair)
    got = _COMPLETIONS.get(key)
    if got is None:
        found = []
        work = list(ranks)
        for r in range(9):
            if work[r] >= 4:
                continue
            work[r] += 1
            if _complete_suit(tuple(work), with_pair):
                found.append(r)
            work[r] -= 1
        got = tuple(found)
        if len(_COMPLETIONS) >= _CACHE_LIMIT:
            _COMPLETIONS.clear()
        _COMPLETIONS[key] = got
    return got


def _part_complete(counts: tuple[int, ...], part: int, with_pair: bool) -> bool:
    if part == 3:
        return _complete_honors(counts, with_pair)
    return _complete_suit(counts[part * 9 : part * 9 + 9], with_pair)


def _chiitoitsu_wait(counts: tuple[int, ...]) -> int | None:
    """The single of six distinct pairs and one single (13 tiles), else ``None``.

    Three or four of a kind never wait here: the pairs must be distinct (docs/rules.md#hand-shapes).
    """
    single = None
    pairs = 0
    for k, c in enumerate(counts):
        if c == 2:
            pairs += 1
        elif c == 1 and single is None:
            single = k
        elif c:
            return None
    return single if pairs == 6 else None


def _kokushi_waits(counts: tuple[int, ...]) -> frozenset[int]:
    """Kokushi waits of 13 tiles: all thirteen kinds if each is held once, else the one missing."""
    if sum(counts[k] for k in _KOKUSHI_KINDS) != 13:
        return frozenset()
    missing = [k for k in _KOKUSHI_KINDS if not counts[k]]
    if not missing:
        return frozenset(_KOKUSHI_KINDS)
    if len(missing) == 1 and all(counts[k] <= 2 for k in _KOKUSHI_KINDS):
        return frozenset(missing)
    return frozenset()


def _waits(counts: tuple[int, ...]) -> frozenset[int]:
    total = _total(counts, "waits")
    _require(total, 1, "waits", counts)
    out = _regular_waits(counts)
    if total == 13:
        single = _chiitoitsu_wait(counts)
        if single is not None:
            out.add(single)
        out |= _kokushi_waits(counts)
    return frozenset(out)


def waits(counts: Sequence[int]) -> frozenset[int]:
    """Kinds that would complete these 3k+1 tiles (in any form); empty if the hand is not tenpai.

    Whether copies of a wait are still live is not considered, except that a kind already held
    four times cannot be a wait: its fifth copy does not exist.
    """
    return _waits(tuple(counts))


def is_tenpai(counts: Sequence[int]) -> bool:
    """Is this 3k+1 hand one tile from complete (at least one wait that exists)?"""
    return bool(_waits(tuple(counts)))


def tenpai_for_draw(counts: Sequence[int], held: Sequence[int]) -> bool:
    """Formal tenpai at an exhaustive draw: a wait of which the player does not hold all four copies.

    ``held`` counts the player's own tiles that can empty a wait: the concealed ones, and the
    melded ones too where the ruleset says so (``Ruleset.karaten``). A hand waiting only on a kind
    whose four copies are all held waits on nothing (docs/rules.md#karaten).
    """
    t = tuple(counts)
    h = tuple(held)
    if len(h) != NUM_KINDS or any(
        not counts_k <= held_k <= 4 for counts_k, held_k in zip(t, h, strict=False)
    ):
        raise RulesError(f"tenpai_for_draw: held must be 34 counts >= the hand's, got {h!r} for {t!r}")
    return any(h[k] < 4 for k in _waits(t))


def discards_keeping_tenpai(counts14: Sequence[int]) -> frozenset[int]:
    """Kinds whose discard leaves these 3k+2 tiles tenpai (the riichi discards, docs/rules.md#riichi)."""
    t = tuple(counts14)
    total = _total(t, "discards_keeping_tenpai")
    _require(total, 2, "discards_keeping_tenpai", t)
    if _shanten(t) > 0:
        return frozenset()
    out = []
    after = list(t)
    for k in range(NUM_KINDS):
        if t[k]:
            after[k] -= 1
            if _waits(tuple(after)):
                out.append(k)
            after[k] += 1
    return frozenset(out)


def is_kokushi_tenpai_on(counts13: Sequence[int], kind: int) -> bool:
    """Is this 13-tile hand a kokushi waiting on ``kind``? (Only kokushi may rob a closed kan, 001.)"""
    t = tuple(counts13)
    total = _total(t, "is_kokushi_tenpai_on")
    if not 0 <= kind < NUM_KINDS:
        raise RulesError(f"is_kokushi_tenpai_on: not a tile kind: {kind!r}")
    return total == 13 and kind in _kokushi_waits(t)


def count_terminal_honor_kinds(counts: Sequence[int]) -> int:
    """How many distinct terminal and honor kinds the hand holds (nine or more: kyuushu kyuuhai)."""
    if len(counts) != NUM_KINDS:
        raise RulesError(f"count_terminal_honor_kinds: expected 34 kind counts, got {len(counts)}")
    return sum(1 for k in _KOKUSHI_KINDS if counts[k])


# --------------------------------------------------------------------------------------------------
# Decompositions


@lru_cache(maxsize=1 << 8)  # strict kan during riichi only: a few readings per riichi hand
def _decompositions(counts: tuple[int, ...]) -> tuple[Decomposition, ...]:
    total = _total(counts, "decompositions")
    _require(total, 2, "decompositions", counts)
    found: set[tuple[int, tuple[Mentsu, ...]]] = set()
    work = list(counts)
    sets: list[Mentsu] = []

    def walk(k: int, pair: int) -> None:
        # The lowest remaining tile is the pair, a triplet, or the start of a sequence.
        while k < NUM_KINDS and not work[k]:
            k += 1
        if k == NUM_KINDS:
            if pair >= 0:
                found.add((pair, tuple(sorted(sets))))
            return
        if pair < 0 and work[k] >= 2:
            work[k] -= 2
            walk(k, k)
            work[k] += 2
        if work[k] >= 3:
            work[k] -= 3
            sets.append(Mentsu(k, True))
            walk(k, pair)
            sets.pop()
            work[k] += 3
        if k < 27 and k % 9 <= 6 and work[k + 1] and work[k + 2]:
            work[k] -= 1
            work[k + 1] -= 1
            work[k + 2] -= 1
            sets.append(Mentsu(k, False))
            walk(k, pair)
            sets.pop()
            work[k] += 1
            work[k + 1] += 1
            work[k + 2] += 1

    walk(0, -1)
    out = [Decomposition(HandForm.REGULAR, sets=s, pair=p) for p, s in sorted(found)]
    if total == 14 and _is_chiitoitsu(counts):
        pairs = tuple(k for k in range(NUM_KINDS) if counts[k] == 2)
        out.append(Decomposition(HandForm.CHIITOITSU, pairs=pairs))
    if total == 14 and _is_kokushi(counts):
        doubled = next(k for k in _KOKUSHI_KINDS if counts[k] == 2)
        out.append(Decomposition(HandForm.KOKUSHI, pair=doubled))
    return tuple(out)


def decompositions(counts: Sequence[int]) -> tuple[Decomposition, ...]:
    """Every reading of a complete 3k+2 hand: regular splits first, then chiitoitsu, then kokushi.

    Empty if the hand is not complete. A hand can be both regular and chiitoitsu (ryanpeikou);
    scoring picks the reading worth most.
    """
    return _decompositions(tuple(counts))


# --------------------------------------------------------------------------------------------------
# Kan during riichi


def riichi_ankan_allowed(
    counts_before_draw: Sequence[int], drawn_kind: int, mode: KanDuringRiichi | str
) -> bool:
    """May a riichi hand that draws a fourth ``drawn_kind`` declare a closed kan of it?

    ``counts_before_draw`` is the locked tenpai hand (3k+1 tiles) holding three ``drawn_kind``.
    ``mode`` is a :class:`~server.engine.rules.KanDuringRiichi` (or its string, checked):

    * ``never``: no kan after riichi.
    * ``waits``: the waits must not change (docs/rules.md#kan-during-riichi). After the kan the
      four tiles are gone, so the hand must wait on exactly the same kinds without them; a drawn
      tile that wins the hand is a wait the kan would give up, so it can never be kanned.
    * ``strict``: also, for every winning tile, every reading of the complete hand uses the three
      tiles as a triplet, never in sequences or as the pair (docs/rules.md#kan-during-riichi:
      3444m778899s333z cannot kan 4m; three consecutive triplets in one suit, which read as three
      identical sequences, cannot).
    """
    before = tuple(counts_before_draw)
    total = _total(before, "riichi_ankan_allowed")
    _require(total, 1, "riichi_ankan_allowed", before)
    if not 0 <= drawn_kind < NUM_KINDS:
        raise RulesError(f"riichi_ankan_allowed: not a tile kind: {drawn_kind!r}")
    try:
        rule = KanDuringRiichi(mode)
    except ValueError:
        raise RulesError(f"riichi_ankan_allowed: unknown mode {mode!r}") from None
    if rule is KanDuringRiichi.NEVER or before[drawn_kind] != 3:
        return False
    waits_before = _waits(before)
    if not waits_before:
        return False
    after = list(before)
    after[drawn_kind] = 0
    # All four copies of drawn_kind are in the kan, so it cannot be waited on afterwards.
    if _waits(tuple(after)) - {drawn_kind} != waits_before:
        return False
    if rule is KanDuringRiichi.WAITS:
        return True
    triplet = Mentsu(drawn_kind, True)
    complete = list(before)
    for w in waits_before:
        complete[w] += 1
        readings = _decompositions(tuple(complete))
        complete[w] -= 1
        if any(d.form is not HandForm.REGULAR or triplet not in d.sets for d in readings):
            return False
    return True
