"""How far a hand is from complete: the best *overlap* of a hand with any complete hand, by suit.

Used by :mod:`server.engine.hand` (shanten, agari and waits); everything here takes the ranks of
one suit, or the seven honor counts, and is cached.

Shanten is ``d - 1`` where ``d`` is the fewest tiles that must still be drawn to complete the hand:
``d = (3k + 2) - overlap``, with ``overlap`` the most hand tiles that some complete hand shares with
it. A complete target hand is ``k`` sets and one pair in which no kind appears more than four times
(a fifth copy does not exist). The overlap splits by suit: each suit gets a *gain vector* -- the
best overlap of at most ``s`` sets and ``p`` pairs placed in that suit -- and the suits are combined
with a small max-plus convolution. Sets and pairs placed where the hand has nothing cost nothing to
describe (they overlap zero tiles), so "at most" is enough.

Without the four-copy limit the best overlap is the classic ``2k - 2*sets - partial sets - pair``
count, and it depends only on the shape of each cluster of tiles (tiles three or more ranks apart
never share a set). That count is exact for every cluster that holds no kind four times (checked
exhaustively); a cluster that does gets an exact dynamic programme over its ranks that never asks
for a fifth copy (so ``1111m`` cannot also wait for a pair of 1m). Honors cannot form sequences, so
each honor kind is counted on its own, again without fifth copies. The results agree with the
``mahjong`` package on dealt hands and satisfy the defining recurrence on hands full of quads (see
the tests).

Results are cached (``functools.lru_cache`` per cluster shape, plain int-keyed dicts per suit and
per join of two parts; the honors need no cache: their gain vector depends on how many kinds are
held once, twice and three or four times, a 512-slot table, 120 of them possible, built at import).
The caches are bounded and hold only results of pure functions, so they never change what a
function returns. Their bounds keep the whole process's share small and quickly full (~16 MiB for
all the engine's caches, reached in the first minutes of a busy hub: docs/benchmarks.md, "The
engine's caches"), since a process runs for days and every entry it keeps is RSS.
"""

from __future__ import annotations

from functools import lru_cache

from server.engine.errors import RulesError

# A gain vector holds 10 ints, index ``2 * s + p`` for s = 0..4 sets and p = 0..1 pairs: the most hand
# tiles of one suit that at most s sets and p pairs can cover. Vectors are monotone in s and in p.
_Vec = tuple[int, ...]
_ZERO: _Vec = (0,) * 10
_MAX_SETS = 4


# --------------------------------------------------------------------------------------------------
# Gain vectors


def _relax(best: list[int], v: _Vec, gain: int, ds: int, dp: int) -> None:
    """best[s][p] = max(best[s][p], gain + v[s - ds][p - dp]) for every s >= ds, p >= dp."""
    for s in range(ds, _MAX_SETS + 1):
        row = 2 * (s - ds) - dp
        for p in range(dp, 2):
            g = gain + v[row + p]
            best[2 * s + p] = max(best[2 * s + p], g)


def _combine(a: _Vec, b: _Vec) -> _Vec:
    """The gain vector of two independent parts (max-plus convolution over sets and the pair)."""
    out = [0] * 10
    for s in range(_MAX_SETS + 1):
        best0 = 0
        best1 = 0
        for s1 in range(s + 1):
            i = 2 * s1
            j = 2 * (s - s1)
            x = a[i] + b[j]
            best0 = max(best0, x)
            y = a[i] + b[j + 1]
            z = a[i + 1] + b[j]
            best1 = max(best1, y)
            best1 = max(best1, z)
        out[2 * s] = best0
        out[2 * s + 1] = best1 if best1 > best0 else best0
    return tuple(out)


def _strip(shape: tuple[int, ...]) -> tuple[int, ...]:
    lo = 0
    hi = len(shape)
    while lo < hi and not shape[lo]:
        lo += 1
    while hi > lo and not shape[hi - 1]:
        hi -= 1
    return shape[lo:hi]


@lru_cache(maxsize=1 << 13)
def _cluster_vec(shape: tuple[int, ...]) -> _Vec:
    """Gains of one suited cluster, ignoring the four-copy limit.

    ``shape`` holds counts of consecutive ranks with no zeros at either end. The lowest tile either
    stays unused or belongs to a block starting at its rank: a set (triplet, sequence), a partial
    set (two of a triplet, two of a sequence), the pair, part of the pair, or a lone tile that a set
    will be built around. Where the cluster lies in the suit does not matter: any two tiles at most
    two ranks apart belong to some real sequence (12 to 123, 89 to 789, 13 to 123).
    """
    if not shape:
        return _ZERO
    best = [0] * 10
    h0 = shape[0]
    n = len(shape)
    one = _strip((h0 - 1, *shape[1:]))
    v = _cluster_vec(one)
    _relax(best, v, 0, 0, 0)  # the tile is not used
    _relax(best, v, 1, 1, 0)  # a lone tile that a set will grow around
    _relax(best, v, 1, 0, 1)  # a lone tile waiting to be paired
    if h0 >= 2:
        v = _cluster_vec(_strip((h0 - 2, *shape[1:])))
        _relax(best, v, 2, 1, 0)  # two of a triplet
        _relax(best, v, 2, 0, 1)  # the pair
    if h0 >= 3:
        _relax(best, _cluster_vec(_strip((h0 - 3, *shape[1:]))), 3, 1, 0)  # a triplet
    if n >= 2 and shape[1]:
        v = _cluster_vec(_strip((h0 - 1, shape[1] - 1, *shape[2:])))
        _relax(best, v, 2, 1, 0)  # two adjacent ranks of a sequence
        if n >= 3 and shape[2]:
            v = _cluster_vec(_strip((h0 - 1, shape[1] - 1, shape[2] - 1, *shape[3:])))
            _relax(best, v, 3, 1, 0)  # a sequence
    if n >= 3 and shape[2]:
        v = _cluster_vec(_strip((h0 - 1, shape[1], shape[2] - 1, *shape[3:])))
        _relax(best, v, 2, 1, 0)  # the two ends of a sequence
    return tuple(best)


def _rank_choices(pending: int, held: bool, paired: bool, can_start: bool) -> tuple[tuple[int, ...], ...]:
    """What the exact programme may place at one rank: (new sequences, new sets, new pair, copies).

    ``pending`` sequences from the two ranks before already need a copy here. Triplets and the pair
    go only where the hand has tiles (elsewhere they would cover nothing), new sequences only where
    they could cover something, and no rank is asked for more than four copies.
    """
    out = []
    for n in range(5 if can_start else 1):
        for t in (0, 1) if held else (0,):
            for r in (0, 1) if held and not paired else (0,):
                copies = pending + n + 3 * t + 2 * r
                if copies <= 4:
                    out.append((n, n + t, r, copies))
    return tuple(out)


# Indexed by ((held * 2 + can_start) * 5 + pending) * 2 + paired.
_RANK_CHOICES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    _rank_choices(pending, held, paired, can_start)
    for held in (False, True)
    for can_start in (False, True)
    for pending in range(5)
    for paired in (False, True)
)


@lru_cache(maxsize=1 << 11)
def _exact_cluster_vec(ranks: tuple[int, ...]) -> _Vec:
    """Gains of a cluster that holds some kind four times, never asking for a fifth copy.

    ``ranks`` is the cluster with the empty ranks around it that a sequence could still reach (up
    to two on each side, fewer at the ends of the suit), so sequences may start anywhere from the
    first rank to the third-last. A dynamic programme over the ranks: the state is (sequences started
    one rank back, two ranks back, sets so far, pairs so far); each rank chooses new sequences, a
    triplet and the pair, keeps the copies of that rank in the target at most four, and gains the
    hand tiles the target covers there. Sets and pairs on empty ranks gain nothing, so they are left
    to "at most".
    """
    last_start = len(ranks) - 3
    padded = (*ranks, 0, 0)
    states: dict[tuple[int, int, int, int], int] = {(0, 0, 0, 0): 0}
    for i, h in enumerate(ranks):
        can_start = i <= last_start and bool(h or padded[i + 1] or padded[i + 2])
        base = ((h > 0) * 2 + can_start) * 10
        nxt: dict[tuple[int, int, int, int], int] = {}
        for (c1, c2, s, q), v in states.items():
            room = _MAX_SETS - s
            for n, new_sets, new_pair, target in _RANK_CHOICES[base + (c1 + c2) * 2 + q]:
                if new_sets > room:
                    continue
                g = v + (target if target < h else h)
                key = (n, c1, s + new_sets, q + new_pair)
                if nxt.get(key, -1) < g:
                    nxt[key] = g
        states = nxt
    best = [0] * 10
    for (_, _, s, q), v in states.items():
        best[2 * s + q] = max(best[2 * s + q], v)
    for s in range(_MAX_SETS + 1):  # "at most s sets, at most p pairs"
        for p in range(2):
            i = 2 * s + p
            if s:
                best[i] = max(best[i], best[i - 2])
            if p:
                best[i] = max(best[i], best[i - 1])
    return tuple(best)


def _check_part(ranks: tuple[int, ...], size: int) -> None:
    if len(ranks) != size or not all(type(c) is int and 0 <= c <= 4 for c in ranks):
        raise RulesError(f"every count must be an int 0..4, got {ranks!r} in one suit")


def suit_vec(ranks: tuple[int, ...]) -> _Vec:
    """Gains of one suit: the max-plus combination of its clusters.

    A cluster is a run of tiles with gaps of at most one empty rank. Tiles of different clusters are
    three or more ranks apart, so no set covers both, and an empty rank is never asked for more than
    four copies (that would take five sets through it), so clusters are independent even under the
    four-copy limit. A cluster without four of a kind never needs a fifth copy. Both claims were
    checked exhaustively: for every suit of at most 14 tiles this equals the exact programme run
    over all nine ranks. Not cached itself: :func:`suit_code` caches its packed form.
    """
    return _unpack(_suit_code_uncached(ranks))


def _suit_code_uncached(ranks: tuple[int, ...]) -> int:
    """:func:`suit_vec` packed, its clusters joined by :func:`join_codes` (cached on the ints)."""
    _check_part(ranks, 9)
    code = 0  # _pack(_ZERO)
    start = -1
    end = -1
    for i, c in enumerate(ranks):
        if not c:
            continue
        if start >= 0 and i - end > 2:
            code = join_codes(code, _pack(_cluster_in_suit(ranks, start, end)))
            start = i
        elif start < 0:
            start = i
        end = i
    if start >= 0:
        code = join_codes(code, _pack(_cluster_in_suit(ranks, start, end)))
    return code


def _cluster_in_suit(ranks: tuple[int, ...], start: int, end: int) -> _Vec:
    cluster = ranks[start : end + 1]
    if 4 in cluster:
        return _exact_cluster_vec(ranks[max(start - 2, 0) : end + 3])
    return _cluster_vec(cluster)


# One honor kind held c times: a triplet covers up to three, the pair up to two, never both (that
# would need five copies).
_HONOR_VECS: tuple[_Vec, ...] = (
    _ZERO,
    (0, 1, 1, 1, 1, 1, 1, 1, 1, 1),
    (0, 2, 2, 2, 2, 2, 2, 2, 2, 2),
    (0, 2, 3, 3, 3, 3, 3, 3, 3, 3),
    (0, 2, 3, 3, 3, 3, 3, 3, 3, 3),
)


def _honor_vec(honors: tuple[int, ...]) -> _Vec:
    """Gains of the seven honor kinds held ``honors[i]`` times each."""
    vec = _ZERO
    for c in sorted(honors):
        if c:
            vec = _combine(vec, _HONOR_VECS[c])
    return vec


def _honor_index(ones: int, twos: int, more: int) -> int:
    return ones + 8 * twos + 64 * more


# --------------------------------------------------------------------------------------------------
# Shanten
#
# The per-hand step packs each gain vector into one int (4 bits per entry; entries are at most 14)
# so that the caches that join suits are keyed by small ints, which hash far faster than tuples.
# There are only a few dozen distinct suit vectors in practice, so these caches stay small.


def _pack(vec: _Vec) -> int:
    code = 0
    for i, g in enumerate(vec):
        code |= g << (4 * i)
    return code


def _unpack(code: int) -> _Vec:
    return tuple((code >> (4 * i)) & 15 for i in range(10))


# The per-hand caches are plain dicts (one lookup; no LRU bookkeeping), cleared when full: they are
# asked several times per step, and clearing only costs recomputation.
_JOINED_KEPT = 1 << 14
_JOINED: dict[int, int] = {}

# The honors' code by (kinds held once, twice, three or four times): three and four copies gain the
# same (_HONOR_VECS), and the max-plus join does not depend on the order of the kinds.
_HONOR_TABLE: tuple[int, ...] = tuple(
    _pack(_honor_vec((1,) * ones + (2,) * twos + (3,) * more + (0,) * (7 - ones - twos - more)))
    if ones + twos + more <= 7
    else -1
    for more in range(8)
    for twos in range(8)
    for ones in range(8)
)


def suit_code(ranks: tuple[int, ...]) -> int:
    """:func:`suit_vec` packed into one int, cached on the suit's key (:func:`suit_key`)."""
    # Counts outside 0..4 would alias a real suit's key, so every call checks them (the tuple caches
    # this replaced checked on a miss only, since a bad tuple was never stored).
    if len(ranks) != 9:
        _check_part(ranks, 9)
    if _NATIVE:
        for c in ranks:
            if c < 0 or c > 4:
                _check_part(ranks, 9)
    elif min(ranks) < 0 or max(ranks) > 4:
        _check_part(ranks, 9)
    key = suit_key(ranks)
    if type(key) is not int:
        _check_part(ranks, 9)
    return suit_code_of_key(key)


def honor_code(honors: tuple[int, ...]) -> int:
    """The seven honor kinds' gain vector packed into one int: a table lookup, no cache."""
    ones = honors.count(1)
    twos = honors.count(2)
    more = honors.count(3) + honors.count(4)
    if len(honors) != 7 or honors.count(0) + ones + twos + more != 7:
        _check_part(honors, 7)  # raises: a count that is not an int 0..4
    return _HONOR_TABLE[_honor_index(ones, twos, more)]


def join_codes(a: int, b: int) -> int:
    key = (a << 40) | b  # a code holds ten 4-bit entries: 40 bits
    code = _JOINED.get(key)
    if code is None:
        code = _pack(_combine(_unpack(a), _unpack(b)))
        if len(_JOINED) >= _JOINED_KEPT:
            _JOINED.clear()
        _JOINED[key] = code
    return code


def regular_shanten(counts: tuple[int, ...], total: int) -> int:
    k = total // 3
    a = join_codes(suit_code(counts[0:9]), suit_code(counts[9:18]))
    b = join_codes(suit_code(counts[18:27]), honor_code(counts[27:34]))
    # The best overlap of k sets and the pair, split any way between (m, p) and (s, z).
    return 3 * k + 1 - joined_overlap(a, b, k)


# --------------------------------------------------------------------------------------------------
# Int-keyed suit codes and one entry of a join (the greedy bots' inner loop, hand.shanten_after_discards)


def _probe() -> None:
    """A function that has Python bytecode only when this module is not compiled."""


_NATIVE = not hasattr(_probe, "__code__")

RANK_WEIGHTS: tuple[int, ...] = tuple(5**r for r in range(9))
"""A suit's ranks as one int: ``sum(count[r] * 5**r)``; one tile less of rank r is ``key - 5**r``."""
_SUIT_CODE_BY_KEY: dict[int, int] = {}
_SUIT_KEYS_KEPT = 1 << 15

CACHE_BOUNDS: dict[str, int] = {"_JOINED": _JOINED_KEPT, "_SUIT_CODE_BY_KEY": _SUIT_KEYS_KEPT}
"""The bound of each plain-dict cache of this module (read by ``server.hub.stats.engine_caches``)."""


def suit_key(ranks: tuple[int, ...]) -> int:
    """A suit's nine counts as one int (``sum(count[r] * 5**r)``); counts must be 0..4."""
    return (
        ranks[0]
        + 5 * ranks[1]
        + 25 * ranks[2]
        + 125 * ranks[3]
        + 625 * ranks[4]
        + 3125 * ranks[5]
        + 15625 * ranks[6]
        + 78125 * ranks[7]
        + 390625 * ranks[8]
    )


def suit_code_of_key(key: int) -> int:
    """``suit_code`` of the ranks ``key`` stands for, cached on the int (a plain dict: no tuple to
    build and hash, no LRU bookkeeping; cleared when full, which only costs recomputation)."""
    code = _SUIT_CODE_BY_KEY.get(key)
    if code is None:
        ranks = []
        rest = key
        for _ in range(9):
            ranks.append(rest % 5)
            rest //= 5
        code = _suit_code_uncached(tuple(ranks))
        if len(_SUIT_CODE_BY_KEY) >= _SUIT_KEYS_KEPT:
            _SUIT_CODE_BY_KEY.clear()
        _SUIT_CODE_BY_KEY[key] = code
    return code


def joined_overlap(a: int, b: int, sets: int) -> int:
    """``(join_codes(a, b) >> 4 * (2 * sets + 1)) & 15`` without building the whole join: the best
    overlap of ``sets`` sets and the pair split between the two parts (the same max as _combine).
    Compiled, a few native int operations; pure Python looks the whole join up instead (cached,
    cheaper there than this loop)."""
    if not _NATIVE:
        return (join_codes(a, b) >> (4 * (2 * sets + 1))) & 15
    best0 = 0
    best1 = 0
    for s1 in range(sets + 1):
        i = 8 * s1
        j = 8 * (sets - s1)
        a0 = (a >> i) & 15
        a1 = (a >> (i + 4)) & 15
        b0 = (b >> j) & 15
        b1 = (b >> (j + 4)) & 15
        best0 = max(best0, a0 + b0)
        best1 = max(best1, a0 + b1)
        best1 = max(best1, a1 + b0)
    return best1 if best1 > best0 else best0
