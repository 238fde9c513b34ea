"""Legal options: what a seat may do on its turn, and who may answer a discard or a kan.

These functions only read state; :mod:`server.engine.match` stores their results in the
state's window so ``legal_actions`` is a lookup and ``apply`` validates against the same set.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product

from server.engine import hand as analysis
from server.engine.actions import (
    DISCARDS,
    KYUUSHU_KYUUHAI,
    NUKIDORA,
    PASS,
    RIICHIS,
    RON,
    TSUMO,
    Action,
    Ankan,
    Chi,
    Daiminkan,
    Kakan,
    Pon,
)
from server.engine.melds import MeldType
from server.engine.rules import KanDuringRiichi, Karaten, Kuikae, Ruleset
from server.engine.scoring import HandValue, WinContext, evaluate_win
from server.engine.state import HandState, Player
from server.engine.tiles import NORTH, NUM_FACES, NUM_KINDS, WINDS, Tile, kind, sort_key, suit_of
from server.engine.wall import dora_indicators, ura_indicators

MAX_KANS = 4  # a fifth kan is impossible


def counts_of(tiles: Iterable[Tile]) -> tuple[int, ...]:
    if isinstance(tiles, tuple):
        return _counts_of_tuple(tiles)
    counts = [0] * NUM_KINDS
    for t in tiles:
        counts[kind(t)] += 1
    return tuple(counts)


# The two per-hand caches below are bounded (cleared when full) at twice what a busy hub needs:
# at 1,000 tables about 4,000 concealed hands are live and asked again on every discard, and a new
# hand is stored per action, so a cache of 8,192 is refilled every few seconds of such load and
# never grows past ~3 MiB (docs/benchmarks.md, "The engine's caches").
_HANDS_KEPT = 1 << 13
CACHE_BOUNDS: dict[str, int] = {"_COUNTS_CACHE": _HANDS_KEPT, "_WAITS_CACHE": _HANDS_KEPT}
"""The bound of each plain-dict cache of this module (read by ``server.hub.stats.engine_caches``)."""
_COUNTS_CACHE: dict[tuple[Tile, ...], tuple[int, ...]] = {}


def _counts_of_tuple(tiles: tuple[Tile, ...]) -> tuple[int, ...]:
    """Concealed hands between turns recur many times (options, furiten, waits): memoized in a
    plain dict (cheaper than ``lru_cache``; cleared when full). A hand just drawn (3k+2 tiles) is
    new almost every time: counted, not stored."""
    got = _COUNTS_CACHE.get(tiles) if len(tiles) % 3 != 2 else None
    if got is None:
        counts = [0] * NUM_KINDS
        for t in tiles:
            counts[kind(t)] += 1
        got = tuple(counts)
        if len(tiles) % 3 == 2:
            return got
        if len(_COUNTS_CACHE) >= _HANDS_KEPT:
            _COUNTS_CACHE.clear()
        _COUNTS_CACHE[tiles] = got
    return got


_WAITS_CACHE: dict[tuple[Tile, ...], frozenset[int]] = {}
_NO_WAITS: frozenset[int] = frozenset()


def hand_waits(hand: tuple[Tile, ...]) -> frozenset[int]:
    """``analysis.waits(counts_of(hand))`` of a 3k+1 concealed hand, memoized on the hand itself:
    every discard asks it of the three other seats (calls, furiten), whose hands did not change."""
    got = _WAITS_CACHE.get(hand)
    if got is None:
        got = analysis.waits(counts_of(hand))
        if not got:
            got = _NO_WAITS  # most hands wait on nothing: one shared empty set, not one per entry
        if len(_WAITS_CACHE) >= _HANDS_KEPT:
            _WAITS_CACHE.clear()
        _WAITS_CACHE[hand] = got
    return got


def held_counts(player: Player) -> tuple[int, ...]:
    """Counts of every tile the player owns: concealed and melded."""
    return counts_of([*player.hand, *(t for m in player.melds for t in m.tiles)])


def own_counts(player: Player, ruleset: Ruleset) -> tuple[int, ...]:
    """The player's own copies of each kind that can empty a wait (karaten, docs/rules.md#karaten):
    the concealed tiles, and the melded ones too under ``Karaten.CONCEALED_AND_MELDS``."""
    if ruleset.karaten is Karaten.CONCEALED:
        return counts_of(player.hand)
    return held_counts(player)


def remove_one(tiles: tuple[Tile, ...], tile: Tile) -> tuple[Tile, ...]:
    i = tiles.index(tile)
    return tiles[:i] + tiles[i + 1 :]


def remove_all(tiles: tuple[Tile, ...], taken: Iterable[Tile]) -> tuple[Tile, ...]:
    out = list(tiles)
    for t in taken:
        out.remove(t)
    return tuple(out)


# sort_key as one int per face (kind, then a red five after its plain fives): same order.
_ORDER: tuple[int, ...] = tuple(2 * kind(t) + (1 if t >= NUM_KINDS else 0) for t in range(NUM_FACES))


def insert_sorted(tiles: tuple[Tile, ...], tile: Tile) -> tuple[Tile, ...]:
    """``tiles`` with ``tile`` added, sorted by ``sort_key`` (stable: after its equals). A concealed
    hand is already sorted, so the tile is slotted in; any other input is sorted whole."""
    order = _ORDER
    key = order[tile]
    pos = -1
    prev = -1
    for i, t in enumerate(tiles):
        o = order[t]
        if o < prev:
            return tuple(sorted((*tiles, tile), key=sort_key))
        prev = o
        if pos < 0 and o > key:
            pos = i
    if pos < 0:
        return (*tiles, tile)
    return (*tiles[:pos], tile, *tiles[pos:])


def is_furiten(player: Player) -> bool:
    if player.furiten_temp or player.furiten_riichi:
        return True
    return bool(hand_waits(player.hand) & player.discarded_kinds)


def seat_wind(seat: int, dealer: int, seats: int = 4) -> int:
    return WINDS[(seat - dealer) % seats]


def win_context(
    h: HandState, ruleset: Ruleset, seat: int, tile: Tile, *, tsumo: bool, chankan: bool = False
) -> WinContext:
    """Everything the scorer needs about a win of ``seat`` on ``tile``."""
    p = h.players[seat]
    concealed = p.hand if tsumo else insert_sorted(p.hand, tile)
    first_turn = h.no_calls and not p.river
    last_tile = h.live_remaining == 0
    kan_ura = ruleset.kan_ura
    n_ind = h.dora_revealed
    return WinContext(
        concealed=concealed,
        melds=p.melds,
        win_tile=tile,
        is_tsumo=tsumo,
        seat_wind=seat_wind(seat, h.dealer, len(h.players)),
        round_wind=WINDS[h.round_wind],
        is_dealer=seat == h.dealer,
        riichi=p.riichi,
        double_riichi=p.double_riichi,
        ippatsu=p.ippatsu,
        rinshan=tsumo and h.rinshan,
        chankan=chankan,
        haitei=tsumo and last_tile and not h.rinshan,
        houtei=not tsumo and not chankan and last_tile,
        tenhou=tsumo and first_turn and not h.rinshan and seat == h.dealer,
        chiihou=tsumo and first_turn and not h.rinshan and seat != h.dealer,
        renhou=not tsumo and first_turn and seat != h.dealer,
        dora_indicators=dora_indicators(h.wall, n_ind),
        ura_indicators=ura_indicators(h.wall, n_ind if kan_ura else 1) if p.riichi else (),
        norths=p.norths,
    )


def evaluate(
    h: HandState, ruleset: Ruleset, seat: int, tile: Tile, *, tsumo: bool, chankan: bool = False
) -> HandValue | None:
    return evaluate_win(win_context(h, ruleset, seat, tile, tsumo=tsumo, chankan=chankan), ruleset)


def turn_options(h: HandState, ruleset: Ruleset, seat: int, score: int) -> frozenset[Action]:
    p = h.players[seat]
    opts: set[Action] = set()
    drawn = p.drawn
    if h.after_call:
        for t in set(p.hand):
            if kind(t) not in p.kuikae:
                opts.add(DISCARDS[t][0])
        return frozenset(opts)
    counts = counts_of(p.hand)
    # Discards (riichi locks the hand: tsumogiri only, docs/rules.md#riichi).
    if drawn is not None:
        opts.add(DISCARDS[drawn][1])
    if not p.riichi:
        rest = remove_one(p.hand, drawn) if drawn is not None else p.hand
        for t in set(rest):
            opts.add(DISCARDS[t][0])
    # Tsumo: a complete hand with a yaku (furiten hands may still win by tsumo, docs/rules.md#furiten).
    if drawn is not None and analysis.is_agari(counts) and evaluate(h, ruleset, seat, drawn, tsumo=True):
        opts.add(TSUMO)
    remaining = h.live_remaining
    # Riichi: closed, enough points, enough live tiles, and a discard that leaves (formal) tenpai.
    if (
        not p.riichi
        and p.closed
        and drawn is not None
        and score >= ruleset.riichi_min_points
        and remaining >= ruleset.riichi_min_live_tiles
        and analysis.shanten(counts) <= 0  # cheap (cached) filter before trying every discard
    ):
        # Riichi needs a hand that would count as tenpai at an exhaustive draw: no noten riichi.
        held = own_counts(p, ruleset)
        for k in analysis.discards_keeping_tenpai(counts):
            after = list(counts)
            after[k] -= 1
            held_after = list(held)
            held_after[k] -= 1
            if not analysis.tenpai_for_draw(after, held_after):
                continue
            for t in set(p.hand):
                if kind(t) != k:
                    continue
                if t == drawn:
                    opts.add(RIICHIS[t][1])
                if t != drawn or p.hand.count(t) > 1:
                    opts.add(RIICHIS[t][0])
    # Kans: never a fifth, never once the live wall is empty (no rinshan for the last tile).
    if drawn is not None and len(h.kans) < MAX_KANS and remaining > 0:
        for k in range(NUM_KINDS):
            if counts[k] != 4:
                continue
            if p.riichi:
                if kind(drawn) != k or ruleset.kan_during_riichi is KanDuringRiichi.NEVER:
                    continue
                before = list(counts)
                before[k] -= 1
                if not analysis.riichi_ankan_allowed(before, k, ruleset.kan_during_riichi):
                    continue
            faces = sorted((t for t in p.hand if kind(t) == k), key=sort_key)
            opts.add(Ankan((faces[0], faces[1], faces[2], faces[3])))
        for m in p.melds:
            if m.type is MeldType.PON:
                for t in p.hand:
                    if kind(t) == m.kind:
                        opts.add(Kakan(t))
    # North as a bonus tile (three seats): set aside for a replacement draw, which must exist; in
    # riichi only the north just drawn, which leaves the locked hand as it was
    # (docs/rules.md#north-bonus).
    if (
        drawn is not None
        and counts[NORTH]
        and remaining > 0
        and (not p.riichi or drawn == NORTH)
        and ruleset.north_bonus
    ):
        opts.add(NUKIDORA)
    # Kyuushu kyuuhai: own first draw, no call yet this hand, nine kinds of terminals/honors.
    if (
        ruleset.abort_kyuushu_kyuuhai
        and h.no_calls
        and not p.river
        and not h.rinshan
        and analysis.count_terminal_honor_kinds(counts) >= 9
    ):
        opts.add(KYUUSHU_KYUUHAI)
    return frozenset(opts)


def kuikae_kinds(ruleset: Ruleset, called: Tile, consumed: tuple[Tile, ...], is_chi: bool) -> frozenset[int]:
    """Kinds the caller may not discard right after the call (swap-calling, kuikae)."""
    if ruleset.kuikae is Kuikae.NONE:
        return frozenset()
    k = kind(called)
    out = {k}
    if is_chi and ruleset.kuikae is Kuikae.FULL:
        a, b = sorted(kind(t) for t in consumed)
        # Called tile at one end of the sequence: the tile beyond the other end is forbidden too.
        if k < a and b + 1 < 27 and suit_of(b + 1) == suit_of(k):
            out.add(b + 1)
        elif k > b and a - 1 >= 0 and suit_of(a - 1) == suit_of(k):
            out.add(a - 1)
    return frozenset(out)


def _can_discard_after(hand: tuple[Tile, ...], consumed: tuple[Tile, ...], forbidden: frozenset[int]) -> bool:
    rest = remove_all(hand, consumed)
    return any(kind(t) not in forbidden for t in rest)


def _face_pairs(hand: tuple[Tile, ...], k1: int, k2: int) -> set[tuple[Tile, Tile]]:
    faces1 = {t for t in hand if kind(t) == k1}
    if k1 == k2:
        out: set[tuple[Tile, Tile]] = set()
        tiles = sorted((t for t in hand if kind(t) == k1), key=sort_key)
        for i in range(len(tiles)):
            for j in range(i + 1, len(tiles)):
                out.add((tiles[i], tiles[j]))
        return out
    faces2 = {t for t in hand if kind(t) == k2}
    return {(a, b) for a, b in product(faces1, faces2)}


def call_options(h: HandState, ruleset: Ruleset, seat: int, tile: Tile, discarder: int) -> frozenset[Action]:
    """Answers ``seat`` may give to ``discarder``'s discard of ``tile`` (empty: nothing to decide)."""
    p = h.players[seat]
    opts: set[Action] = set()
    k = kind(tile)
    counts = counts_of(p.hand)
    if (
        k in hand_waits(p.hand)
        and not is_furiten(p)
        and evaluate(h, ruleset, seat, tile, tsumo=False) is not None
    ):
        opts.add(RON)
    # No calls on the last discard (houtei), none by a riichi hand.
    if h.live_remaining > 0 and not p.riichi:
        if counts[k] >= 2:
            for pair in _face_pairs(p.hand, k, k):
                if _can_discard_after(p.hand, pair, kuikae_kinds(ruleset, tile, pair, False)):
                    opts.add(Pon(pair))
        if counts[k] == 3 and len(h.kans) < MAX_KANS:
            faces = sorted((t for t in p.hand if kind(t) == k), key=sort_key)
            opts.add(Daiminkan((faces[0], faces[1], faces[2])))
        if seat == (discarder + 1) % len(h.players) and k < 27 and ruleset.chi:
            n = k % 9
            for da, db in ((-2, -1), (-1, 1), (1, 2)):
                if not (0 <= n + da <= 8 and 0 <= n + db <= 8):
                    continue
                if not (counts[k + da] and counts[k + db]):
                    continue  # no such pair in the hand (checked on the counts, before any set)
                for a, b in _face_pairs(p.hand, k + da, k + db):
                    pair = (a, b) if sort_key(a) <= sort_key(b) else (b, a)
                    if _can_discard_after(p.hand, pair, kuikae_kinds(ruleset, tile, pair, True)):
                        opts.add(Chi(pair))
    if opts:
        opts.add(PASS)
    return frozenset(opts)


def chankan_options(
    h: HandState, ruleset: Ruleset, seat: int, tile: Tile, *, closed_kan: bool
) -> frozenset[Action]:
    """May ``seat`` rob this kan? Added kan: any win; closed kan: only kokushi, if enabled
    (docs/rules.md#chankan)."""
    p = h.players[seat]
    counts = counts_of(p.hand)
    k = kind(tile)
    if k not in hand_waits(p.hand) or is_furiten(p):
        return frozenset()
    if closed_kan and not (ruleset.chankan_ankan_kokushi and analysis.is_kokushi_tenpai_on(counts, k)):
        return frozenset()
    if evaluate(h, ruleset, seat, tile, tsumo=False, chankan=True) is None:
        return frozenset()
    return frozenset({RON, PASS})


def north_options(h: HandState, ruleset: Ruleset, seat: int) -> frozenset[Action]:
    """May ``seat`` win on the north just set aside (``Ruleset.north_ron``)? Like a robbed kan, but
    worth no chankan (docs/rules.md#north-bonus)."""
    if not ruleset.north_ron:
        return frozenset()
    p = h.players[seat]
    if NORTH not in hand_waits(p.hand) or is_furiten(p):
        return frozenset()
    if evaluate(h, ruleset, seat, NORTH, tsumo=False) is None:
        return frozenset()
    return frozenset({RON, PASS})
