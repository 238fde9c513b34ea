"""Hand analysis against independent oracles, on seeded random hands.

* the ``mahjong`` package's ``Shanten`` and ``Agari`` (a reference implementation, tests only);
* brute-force definitions: waits by trying every kind, tenpai discards by trying every discard;
* the defining recurrence of shanten on hands full of quads, where a fifth copy is the trap:
  a hand is tenpai iff it has a wait, and otherwise one exchange (discard a tile, draw any tile that
  still exists) can lower its shanten by one but never by more.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from mahjong.agari import Agari
from mahjong.shanten import Shanten

from server.engine import hand, overlap
from server.engine.hand import HandForm, Mentsu

WALL = [k for k in range(34) for _ in range(4)]
SIZES = (1, 2, 4, 5, 7, 8, 10, 11, 13, 14)


def drawn_hand(rng: random.Random, size: int) -> list[int]:
    """Counts of ``size`` tiles drawn from a shuffled set of 136, like a real deal."""
    counts = [0] * 34
    for kind_ in rng.sample(WALL, size):
        counts[kind_] += 1
    return counts


def crowded_hand(rng: random.Random, size: int) -> list[int]:
    """Counts of ``size`` tiles from only a few kinds: triplets and quads everywhere."""
    counts = [0] * 34
    pool = rng.sample(range(34), rng.randint((size + 3) // 4, 7))  # enough kinds for size tiles
    while sum(counts) < size:
        kind_ = rng.choice(pool)
        if counts[kind_] < 4:
            counts[kind_] += 1
    return counts


def one_suit_complete_hand(rng: random.Random, sets: int) -> list[int] | None:
    """A complete hand of ``sets`` sets and a pair, mostly in one suit (many readings)."""
    counts = [0] * 34
    suit = rng.randrange(3) * 9
    for _ in range(sets):
        if rng.random() < 0.4:
            counts[suit + rng.randrange(9)] += 3
        else:
            start = suit + rng.randrange(7)
            for d in range(3):
                counts[start + d] += 1
    counts[rng.choice([suit + rng.randrange(9), rng.randrange(34)])] += 2
    return counts if max(counts) <= 4 else None


def tenpai_hands(rng: random.Random, n: int) -> Iterator[list[int]]:
    """Complete hands with one tile removed: tenpai by construction."""
    made = 0
    while made < n:
        full = one_suit_complete_hand(rng, rng.randint(1, 4))
        if full is None:
            continue
        tile = rng.choice([k for k in range(34) if full[k]])
        full[tile] -= 1
        made += 1
        yield full


def brute_waits(counts: list[int]) -> frozenset[int]:
    out = []
    for kind_ in range(34):
        if counts[kind_] < 4:
            counts[kind_] += 1
            if hand.is_agari(counts):
                out.append(kind_)
            counts[kind_] -= 1
    return frozenset(out)


# --------------------------------------------------------------------------------------------------


def test_shanten_matches_the_mahjong_package_on_dealt_hands() -> None:
    rng = random.Random(20240601)
    for _ in range(4000):
        counts = drawn_hand(rng, rng.choice(SIZES))
        assert hand.shanten(counts) == Shanten.calculate_shanten(counts), counts


def test_each_form_matches_the_mahjong_package_on_closed_hands() -> None:
    rng = random.Random(7)
    for _ in range(1500):
        counts = drawn_hand(rng, rng.choice((13, 14)))
        assert hand.shanten_regular(counts) == Shanten.calculate_shanten_for_regular_hand(counts), counts
        assert hand.shanten_chiitoitsu(counts) == Shanten.calculate_shanten_for_chiitoitsu_hand(counts)
        assert hand.shanten_kokushi(counts) == Shanten.calculate_shanten_for_kokushi_hand(counts)


def test_shanten_matches_the_mahjong_package_near_tenpai() -> None:
    # Dealt hands are rarely close to complete; tenpai hands minus or plus a tile are.
    rng = random.Random(11)
    for counts in tenpai_hands(rng, 1500):
        assert hand.shanten(counts) == Shanten.calculate_shanten(counts) == 0, counts
        kind_ = rng.randrange(34)
        if counts[kind_] < 4:
            counts[kind_] += 1
            assert hand.shanten(counts) == Shanten.calculate_shanten(counts), counts


@pytest.mark.slow
def test_is_agari_matches_the_mahjong_package() -> None:
    rng = random.Random(5)
    agari = Agari()
    for counts in tenpai_hands(rng, 400):
        for kind_ in range(34):
            if counts[kind_] < 4:
                counts[kind_] += 1
                assert hand.is_agari(counts) == agari.is_agari(counts), counts
                assert (hand.shanten(counts) == -1) == hand.is_agari(counts)
                counts[kind_] -= 1


def test_waits_equal_brute_force() -> None:
    rng = random.Random(3)
    hands = [*tenpai_hands(rng, 400), *(crowded_hand(rng, rng.choice((1, 4, 7, 10, 13))) for _ in range(400))]
    hands += [drawn_hand(rng, 13) for _ in range(200)]
    for counts in hands:
        w = hand.waits(counts)
        assert w == brute_waits(counts), counts
        assert hand.is_tenpai(counts) == bool(w) == (hand.shanten(counts) == 0), counts


def test_shanten_recurrence_on_crowded_hands() -> None:
    """The definition itself, where a fifth copy of a kind is the usual mistake."""
    rng = random.Random(17)
    for _ in range(200):
        counts = crowded_hand(rng, rng.choice((4, 7, 10, 13)))
        s = hand.shanten(counts)
        assert (s == 0) == bool(brute_waits(counts)), counts
        if s <= 0:
            continue
        best = s
        for out in range(34):
            if not counts[out]:
                continue
            counts[out] -= 1
            for into in range(34):
                if into != out and counts[into] < 4:
                    counts[into] += 1
                    after = hand.shanten(counts)
                    counts[into] -= 1
                    assert after >= s - 1, counts
                    best = min(best, after)
            counts[out] += 1
        assert best == s - 1, counts


def test_fourteen_tile_shanten_is_the_best_discard() -> None:
    rng = random.Random(23)
    for _ in range(300):
        counts = crowded_hand(rng, 14) if rng.random() < 0.5 else drawn_hand(rng, 14)
        if hand.is_agari(counts):
            continue
        best = 99
        for out in range(34):
            if counts[out]:
                counts[out] -= 1
                best = min(best, hand.shanten(counts))
                counts[out] += 1
        assert hand.shanten(counts) == best, counts


def test_shanten_after_discards_equals_shanten_of_each_discard() -> None:
    rng = random.Random(43)
    hands = [drawn_hand(rng, rng.choice((2, 5, 8, 11, 14))) for _ in range(600)]
    hands += [crowded_hand(rng, rng.choice((2, 5, 8, 11, 14))) for _ in range(300)]
    for counts in hands:
        expected = {}
        for out in range(34):
            if counts[out]:
                counts[out] -= 1
                expected[out] = hand.shanten(counts)
                counts[out] += 1
        assert hand.shanten_after_discards(counts) == expected, counts


@pytest.mark.slow
def test_discards_keeping_tenpai_equal_brute_force() -> None:
    rng = random.Random(29)
    for counts in tenpai_hands(rng, 200):
        counts[rng.randrange(27)] += 1
        if max(counts) > 4:
            continue
        expected = set()
        for out in range(34):
            if counts[out]:
                counts[out] -= 1
                if brute_waits(counts):
                    expected.add(out)
                counts[out] += 1
        assert hand.discards_keeping_tenpai(counts) == expected, counts


def test_decompositions_rebuild_the_hand() -> None:
    rng = random.Random(31)
    for counts in tenpai_hands(rng, 400):
        for kind_ in hand.waits(counts):
            counts[kind_] += 1
            readings = hand.decompositions(counts)
            assert readings, counts
            assert len(set(readings)) == len(readings)
            for d in readings:
                rebuilt = [0] * 34
                if d.form is HandForm.REGULAR:
                    assert d.pair is not None
                    rebuilt[d.pair] += 2
                    for m in d.sets:
                        for t in m.kinds:
                            rebuilt[t] += 1
                    assert list(d.sets) == sorted(d.sets)
                    assert all(m.is_triplet or (m.kind < 27 and m.kind % 9 <= 6) for m in d.sets)
                elif d.form is HandForm.CHIITOITSU:
                    for t in d.pairs:
                        rebuilt[t] += 2
                else:
                    assert d.pair is not None
                    for t in (0, 8, 9, 17, 18, 26, *range(27, 34)):
                        rebuilt[t] += 1
                    rebuilt[d.pair] += 1
                assert rebuilt == counts, (d, counts)
            counts[kind_] -= 1


@pytest.mark.slow
def test_riichi_kan_modes_against_their_definitions() -> None:
    rng = random.Random(37)
    checked = 0
    for counts in tenpai_hands(rng, 600):
        if sum(counts) < 4:
            continue
        for kind_ in range(34):
            if counts[kind_] != 3:
                continue
            checked += 1
            before = brute_waits(counts)
            after = list(counts)
            after[kind_] = 0
            same = before == brute_waits(after) - {kind_}
            assert hand.riichi_ankan_allowed(counts, kind_, "waits") == same, counts
            strict = same
            for w in before:
                counts[w] += 1
                strict = strict and all(Mentsu(kind_, True) in d.sets for d in hand.decompositions(counts))
                counts[w] -= 1
            assert hand.riichi_ankan_allowed(counts, kind_, "strict") == strict, counts
            assert not hand.riichi_ankan_allowed(counts, kind_, "never")
    assert checked > 100


def test_free_cluster_gains_equal_the_exact_programme_without_quads() -> None:
    """The claim that lets most suits skip the exact programme.

    Checked exhaustively once (every suit of at most 14 tiles, counts 0..4: the cluster split and
    the free count equal the exact programme over all nine ranks); a sample here.
    """
    rng = random.Random(41)
    for _ in range(800):
        ranks = [0] * 9
        for _ in range(rng.randint(1, 14)):
            r = rng.randrange(9)
            if ranks[r] < 3:
                ranks[r] += 1
        t = tuple(ranks)
        assert overlap.suit_vec(t) == overlap._exact_cluster_vec.__wrapped__(t), t
