"""Walls: the seeded shuffle, the commit-reveal digest, validation, the layout and record walls."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from server.engine import wall as wall_module
from server.engine.errors import RulesError, WallError
from server.engine.tiles import full_set, is_red, kind, parse_tiles
from server.engine.wall import (
    DEAD_WALL,
    LIVE_TILES,
    WALL_ALGORITHM,
    SealedWall,
    build_wall,
    commitment,
    dealt_hands,
    dora_indicator,
    format_wall,
    live_tile,
    live_tiles_left,
    make_salt,
    make_wall,
    rinshan_tile,
    seal,
    seed_commitment,
    ura_indicator,
    validate_wall,
    verify_wall,
    wall_bytes,
)
from tests.engine.doctests import run_doctests

RED = (1, 1, 1)

# Pinned outputs of "jantaku-shake256-fisher-yates-v1". If one of these changes, the algorithm has
# changed: every recorded match would replay differently. Bump WALL_ALGORITHM instead.
GOLDEN_WALL_SHA256 = "3d8dd06e9dd3f778b7dac9e4c33ba1c24bc3cb2efa0f14cd675461148fa22d54"
GOLDEN_WALL_MPSZ = (
    "8p2m1z95p813m2z3p2z9s3z3m84s8m5s7z8s3m5s314p6z6p7s782m21z973p9m97121s2p5m13z98m43z4p3s5p17z9p76m"
    "6p6s2p0m7p64s6p5m3z61m6z4m8s5z3s5p2m4z11p44s7p6s7m6z9m6s31m4z6m13p9s56z7s84p2s92m3s7z2p44m5z87p1m"
    "2s4m97s4p4z7m23s69p6m2p2z0s5z8s8p5m51s0p1s7z"
)
GOLDEN_SALT_HEX = "50eae40d03c855e4d817697af44a6cfff7b52821b3de762f59e0ca6afe231bc1"


def reference_wall(seed: bytes, hand_index: int, red_fives: tuple[int, int, int]) -> tuple[int, ...]:
    """The algorithm re-implemented from the module docstring alone, as a verifier would."""
    tag = b"jantaku-shake256-fisher-yates-v1/wall\x00"
    stream = hashlib.shake_256(tag + seed + hand_index.to_bytes(8, "big")).digest(8192)
    pos = 0
    tiles = list(full_set(red_fives))
    for i in range(135, 0, -1):
        n = i + 1
        while True:
            x = int.from_bytes(stream[pos : pos + 2], "big")
            pos += 2
            if x < 65536 - 65536 % n:
                break
        j = x % n
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tuple(tiles)


def test_doctests() -> None:
    result = run_doctests(wall_module)
    assert result.attempted > 0
    assert result.failed == 0


# -- the shuffle ---------------------------------------------------------------------------------


def test_algorithm_name_is_versioned() -> None:
    assert WALL_ALGORITHM == "jantaku-shake256-fisher-yates-v1"


def test_golden_wall_is_pinned() -> None:
    wall = make_wall(b"jantaku", 0, RED)
    assert hashlib.sha256(wall_bytes(wall)).hexdigest() == GOLDEN_WALL_SHA256
    assert format_wall(wall) == GOLDEN_WALL_MPSZ
    assert make_salt(b"jantaku", 0).hex() == GOLDEN_SALT_HEX


@pytest.mark.parametrize(
    ("seed", "hand_index", "red_fives"),
    [
        (b"jantaku", 0, (1, 1, 1)),
        (b"", 0, (0, 0, 0)),
        (b"\x00" * 32, 7, (1, 2, 0)),
        (bytes(range(256)), 2**64 - 1, (4, 4, 4)),
    ],
)
def test_matches_the_documented_algorithm(
    seed: bytes, hand_index: int, red_fives: tuple[int, int, int]
) -> None:
    assert make_wall(seed, hand_index, red_fives) == reference_wall(seed, hand_index, red_fives)


def test_same_seed_and_hand_give_the_same_wall() -> None:
    assert make_wall(b"seed", 3, RED) == make_wall(b"seed", 3, RED)
    assert make_salt(b"seed", 3) == make_salt(b"seed", 3)


def test_different_hands_seeds_and_red_fives_differ() -> None:
    walls = {make_wall(b"seed", i, RED) for i in range(20)}
    assert len(walls) == 20
    assert make_wall(b"seed", 0, RED) != make_wall(b"seed2", 0, RED)
    assert make_wall(b"seed", 0, RED) != make_wall(b"seed", 0, (0, 0, 0))


def test_seed_and_hand_index_are_not_ambiguous() -> None:
    # The hand index is a fixed-width suffix, so "seed" + hand 256 != "seed\x01" + hand 0.
    assert make_wall(b"seed", 256, RED) != make_wall(b"seed\x00\x00\x00\x00\x00\x00\x01", 0, RED)


@pytest.mark.parametrize("red_fives", [(0, 0, 0), (1, 1, 1), (1, 2, 0), (4, 4, 4)])
def test_wall_is_a_permutation_of_the_full_set(red_fives: tuple[int, int, int]) -> None:
    for hand_index in range(10):
        wall = make_wall(b"perm", hand_index, red_fives)
        assert len(wall) == 136
        assert Counter(wall) == Counter(full_set(red_fives))
        assert validate_wall(wall, red_fives) == wall
        reds = Counter(kind(t) for t in wall if is_red(t))
        assert (reds[4], reds[13], reds[22]) == red_fives


def test_salt_is_32_bytes_and_differs_from_the_wall_stream() -> None:
    salt = make_salt(b"seed", 0)
    assert len(salt) == 32
    assert salt != make_salt(b"seed", 1)
    assert salt != make_salt(b"seed2", 0)
    # A different domain tag: the salt is not the start of the wall's byte stream.
    wall_stream = hashlib.shake_256(
        b"jantaku-shake256-fisher-yates-v1/wall\x00seed" + (0).to_bytes(8, "big")
    ).digest(32)
    assert salt != wall_stream


def test_bad_seed_or_hand_index_is_refused() -> None:
    with pytest.raises(WallError, match="seed must be bytes"):
        make_wall("text", 0, RED)
    with pytest.raises(WallError, match="hand_index"):
        make_wall(b"s", -1, RED)
    with pytest.raises(WallError, match="hand_index"):
        make_salt(b"s", 2**64)
    with pytest.raises(WallError, match="hand_index"):
        make_wall(b"s", True, RED)
    with pytest.raises(WallError, match="red_fives"):
        make_wall(b"s", 0, (5, 0, 0))


def test_uniform_below_rejects_the_biased_tail() -> None:
    # 65536 % 3 == 1, so 65535 is rejected and the next draw is used.
    stream = iter(bytes([0xFF, 0xFF, 0x00, 0x05]))
    assert wall_module._uniform_below(3, stream) == 5 % 3
    stream = iter(bytes([0xFF, 0xFE]))
    assert wall_module._uniform_below(3, stream) == 0xFFFE % 3


def test_shake_stream_is_the_shake256_output() -> None:
    stream = wall_module._shake_stream(b"msg")
    head = bytes(next(stream) for _ in range(2000))
    assert head == hashlib.shake_256(b"msg").digest(2000)


def test_first_position_is_roughly_uniform() -> None:
    # 3,400 walls, 34 kinds at position 0: 100 expected per kind. df = 33; the 99.99th percentile of
    # chi-square(33) is about 70. The seeds are fixed, so this is deterministic, not flaky.
    walls = [make_wall(b"uniformity", i, RED) for i in range(3400)]
    for position in (0, 67, 135):
        counts = Counter(kind(w[position]) for w in walls)
        chi2 = sum((counts[k] - 100) ** 2 / 100 for k in range(34))
        assert chi2 < 70, (position, chi2)
    # Each of the three red fives (one per suit, so 1/136 each) lands at position 0 about 25 times.
    reds = Counter(w[0] for w in walls if is_red(w[0]))
    assert all(10 <= reds[t] <= 45 for t in (34, 35, 36)), reds


# -- commitments ---------------------------------------------------------------------------------


def test_commitment_verifies_and_detects_tampering() -> None:
    wall = make_wall(b"c", 0, RED)
    salt = make_salt(b"c", 0)
    digest = commitment(salt, wall)
    assert digest == hashlib.sha256(salt + bytes(wall)).hexdigest()
    assert len(digest) == 64
    assert verify_wall(digest, salt, wall)
    assert verify_wall(digest.upper(), salt, wall)
    swapped = (wall[1], wall[0], *wall[2:])
    assert swapped != wall
    assert not verify_wall(digest, salt, swapped)
    assert not verify_wall(digest, make_salt(b"c", 1), wall)
    assert not verify_wall(digest, salt[:-1], wall)
    assert not verify_wall("00" * 32, salt, wall)


def test_verify_wall_never_raises_on_garbage() -> None:
    salt = make_salt(b"c", 0)
    assert not verify_wall("x", salt, (999,))
    assert not verify_wall(None, salt, ())
    assert not verify_wall("x", "salt", ())


def test_wall_bytes_is_one_byte_per_face() -> None:
    assert wall_bytes((0, 36, 5)) == b"\x00\x24\x05"


def test_seed_commitment() -> None:
    assert seed_commitment(b"jantaku") == hashlib.sha256(b"jantaku").hexdigest()
    assert seed_commitment(b"a") != seed_commitment(b"b")


def test_seal_generated_and_injected() -> None:
    sealed = seal(b"s", 4, RED)
    assert isinstance(sealed, SealedWall)
    assert sealed.tiles == make_wall(b"s", 4, RED)
    assert sealed.salt == make_salt(b"s", 4)
    assert verify_wall(sealed.commitment, sealed.salt, sealed.tiles)
    injected = tuple(reversed(full_set(RED)))
    sealed = seal(b"s", 4, RED, injected)
    assert sealed.tiles == injected
    assert verify_wall(sealed.commitment, sealed.salt, injected)
    with pytest.raises(WallError):
        seal(b"s", 4, (0, 0, 0), injected)


# -- validation ----------------------------------------------------------------------------------


def test_validate_wall_wrong_length() -> None:
    with pytest.raises(WallError, match="136 tiles, got 135"):
        validate_wall(full_set(RED)[:-1], RED)
    with pytest.raises(WallError, match="got 137"):
        validate_wall((*full_set(RED), 0), RED)


def test_validate_wall_not_a_face() -> None:
    wall = list(full_set(RED))
    wall[17] = 40
    with pytest.raises(WallError, match="position 17 holds 40"):
        validate_wall(wall, RED)
    wall[17] = True
    with pytest.raises(WallError, match="position 17 holds True"):
        validate_wall(wall, RED)


def test_validate_wall_wrong_multiset_names_the_tiles() -> None:
    wall = list(full_set(RED))
    wall[wall.index(2)] = 0  # a fifth 1m instead of a 3m
    with pytest.raises(WallError, match="too many 1m; missing 3m"):
        validate_wall(wall, RED)
    # Red fives count: a red wall against a no-red ruleset.
    with pytest.raises(WallError, match="too many 0m0p0s; missing 5m5p5s"):
        validate_wall(full_set(RED), (0, 0, 0))


def test_validate_wall_accepts_lists_and_returns_a_tuple() -> None:
    wall = list(make_wall(b"v", 0, RED))
    assert validate_wall(wall, RED) == tuple(wall)


def test_validate_wall_not_a_sequence() -> None:
    with pytest.raises(WallError, match="sequence"):
        validate_wall(5, RED)  # type: ignore[arg-type]


def test_wall_error_is_a_rules_error() -> None:
    assert issubclass(WallError, RulesError)
    assert issubclass(WallError, ValueError)


# -- layout --------------------------------------------------------------------------------------


def test_constants() -> None:
    assert LIVE_TILES == 70
    assert DEAD_WALL == 14
    assert 52 + LIVE_TILES + DEAD_WALL == 136


def test_layout_helpers_read_the_documented_positions() -> None:
    wall = tuple(range(136))  # positions as values, to read the layout directly
    hands = dealt_hands(wall, dealer=2)
    assert hands[2] == tuple(range(0, 13))
    assert hands[3] == tuple(range(13, 26))
    assert hands[0] == tuple(range(26, 39))
    assert hands[1] == tuple(range(39, 52))
    assert [live_tile(wall, i) for i in range(70)] == list(range(52, 122))
    assert [rinshan_tile(wall, i) for i in range(4)] == [122, 123, 124, 125]
    assert [dora_indicator(wall, i) for i in range(5)] == [126, 127, 128, 129, 130]
    assert [ura_indicator(wall, i) for i in range(5)] == [131, 132, 133, 134, 135]


@pytest.mark.parametrize(
    ("reader", "bad"),
    [(live_tile, 70), (live_tile, -1), (rinshan_tile, 4), (dora_indicator, 5), (ura_indicator, 5)],
)
def test_layout_helpers_refuse_out_of_range(reader: object, bad: int) -> None:
    wall = make_wall(b"x", 0, RED)
    with pytest.raises(IndexError):
        reader(wall, bad)  # type: ignore[operator]


def test_dealt_hands_refuses_bad_dealer() -> None:
    with pytest.raises(IndexError):
        dealt_hands(make_wall(b"x", 0, RED), 4)


def test_live_tiles_left_counts_rinshan_draws() -> None:
    assert live_tiles_left(0, 0) == 70
    assert live_tiles_left(69, 1) == 0  # with one kan, the 69th live draw is the haitei
    # the last point at which riichi is possible (docs/rules.md#option-riichi_min_live_tiles)
    assert live_tiles_left(66, 0) == 4


# -- build_wall ----------------------------------------------------------------------------------


def _layout_of(wall: tuple[int, ...], dealer: int, live: int, kans: int, dora: int) -> dict[str, object]:
    return {
        "hands_by_seat": dealt_hands(wall, dealer),
        "dealer": dealer,
        "live_draws": [live_tile(wall, i) for i in range(live)],
        "rinshan_draws": [rinshan_tile(wall, i) for i in range(kans)],
        "dora_indicators": [dora_indicator(wall, i) for i in range(dora)],
        "ura_indicators": [ura_indicator(wall, i) for i in range(dora)],
    }


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_build_wall_round_trip_of_a_complete_record(dealer: int) -> None:
    # Four kans: 66 live draws, 4 rinshan draws, 5 + 5 indicators. The 4 live positions 118..121
    # are never drawn, so no record can know them; build_wall fills them in canonical order.
    shuffled = make_wall(b"record", dealer, RED)
    wall = (*shuffled[:118], *sorted(shuffled[118:122], key=full_set(RED).index), *shuffled[122:])
    layout = _layout_of(wall, dealer, live=66, kans=4, dora=5)
    rebuilt = build_wall(**layout, red_fives=RED)  # type: ignore[arg-type]
    assert rebuilt == wall


def test_build_wall_fills_unknown_positions_in_canonical_order() -> None:
    wall = make_wall(b"partial", 0, RED)
    layout = _layout_of(wall, 1, live=20, kans=1, dora=2)
    rebuilt = build_wall(**layout, red_fives=RED)  # type: ignore[arg-type]
    assert validate_wall(rebuilt, RED) == rebuilt
    assert dealt_hands(rebuilt, 1) == dealt_hands(wall, 1)
    assert rebuilt[52:72] == wall[52:72]
    assert rinshan_tile(rebuilt, 0) == rinshan_tile(wall, 0)
    assert rebuilt[126:128] == wall[126:128]
    assert rebuilt[131:133] == wall[131:133]
    known = {*range(0, 72), 122, 126, 127, 131, 132}
    unknown = [rebuilt[p] for p in range(136) if p not in known]
    remaining = Counter(full_set(RED)) - Counter(rebuilt[p] for p in known)
    assert unknown == sorted(remaining.elements(), key=full_set(RED).index)


def test_build_wall_from_mpsz_hands() -> None:
    hands = [
        parse_tiles(h) for h in ("123456789m1234p", "123456789p1234s", "123456789s1234z", "1112223334445z")
    ]
    wall = build_wall(hands, 0, live_draws=parse_tiles("5z"), red_fives=(0, 0, 0))
    assert dealt_hands(wall, 0) == tuple(hands)
    assert live_tile(wall, 0) == parse_tiles("5z")[0]
    assert validate_wall(wall, (0, 0, 0)) == wall


def test_build_wall_refuses_a_non_sub_multiset() -> None:
    hands = [parse_tiles("1111222233334m")] + [parse_tiles("5555666677778m")] * 3
    with pytest.raises(WallError, match=r"more tiles than the full set.*too many"):
        build_wall(hands, 0, red_fives=RED)


def test_build_wall_refuses_red_fives_the_ruleset_lacks() -> None:
    honors_and_souzu = tuple(range(21, 34))  # 4s..9s and 1z..7z
    hands = [parse_tiles("0m123456789p123s"), honors_and_souzu, honors_and_souzu, honors_and_souzu]
    with pytest.raises(WallError, match="too many 0m"):
        build_wall(hands, 0, red_fives=(0, 0, 0))
    assert validate_wall(build_wall(hands, 0, red_fives=RED), RED)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"dealer": 4}, "dealer"),
        ({"hands_by_seat": [()] * 2}, "four \\(or three\\) hands"),
        ({"hands_by_seat": [tuple(range(13))] * 3 + [tuple(range(12))]}, "seat 3 was dealt 12"),
        ({"rinshan_draws": [0] * 5}, "rinshan"),
        ({"live_draws": [0] * 70, "rinshan_draws": [1]}, "exceed"),
        ({"dora_indicators": [0] * 6}, "dora"),
        ({"ura_indicators": [0] * 6}, "ura"),
        ({"live_draws": [37]}, "not a tile face"),
    ],
)
def test_build_wall_layout_errors(changes: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "hands_by_seat": [tuple(range(21, 34))] * 4,
        "dealer": 0,
        "red_fives": (0, 0, 0),
    }
    build_wall(**args)  # type: ignore[arg-type]  # the unchanged arguments are valid
    args.update(changes)
    with pytest.raises(WallError, match=message):
        build_wall(**args)  # type: ignore[arg-type]
