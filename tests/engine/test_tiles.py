"""Tiles: faces, kinds, mpsz notation, the full set."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.engine import tiles as tiles_module
from server.engine.errors import NotationError, RulesError
from server.engine.tiles import (
    CHUN,
    EAST,
    HAKU,
    HATSU,
    NORTH,
    NUM_FACES,
    NUM_KINDS,
    RED_FIVES,
    SOUTH,
    WEST,
    counts34,
    dora_of_indicator,
    format_tiles,
    full_set,
    is_honor,
    is_red,
    is_terminal_or_honor,
    kind,
    number_of,
    parse_tile,
    parse_tiles,
    sort_key,
    sorted_tiles,
    suit_of,
    tile_name,
)
from tests.engine.doctests import run_doctests

faces = st.integers(min_value=0, max_value=NUM_FACES - 1)


def test_doctests() -> None:
    result = run_doctests(tiles_module)
    assert result.attempted > 0
    assert result.failed == 0


# -- faces and kinds -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "face"),
    [
        ("1m", 0),
        ("9m", 8),
        ("1p", 9),
        ("5p", 13),
        ("9s", 26),
        ("1z", EAST),
        ("2z", SOUTH),
        ("3z", WEST),
        ("4z", NORTH),
        ("5z", HAKU),
        ("6z", HATSU),
        ("7z", CHUN),
        ("0m", 34),
        ("0p", 35),
        ("0s", 36),
    ],
)
def test_tile_names(name: str, face: int) -> None:
    assert parse_tile(name) == face
    assert tile_name(face) == name


def test_red_fives_are_their_suits_five() -> None:
    assert parse_tiles("0m0p0s") == RED_FIVES
    assert [kind(t) for t in RED_FIVES] == list(parse_tiles("5m5p5s"))
    assert all(is_red(t) for t in RED_FIVES)
    assert not any(is_red(t) for t in range(NUM_KINDS))


def test_suit_number_and_classes() -> None:
    assert [suit_of(k) for k in (0, 8, 9, 17, 18, 26, 27, 33)] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [number_of(k) for k in (0, 4, 8, 9, 26, 27, 33)] == [1, 5, 9, 1, 9, 1, 7]
    assert is_honor(EAST) and is_honor(CHUN) and not is_honor(26)
    yaochu = parse_tiles("19m19p19s1234567z")
    assert {k for k in range(NUM_KINDS) if is_terminal_or_honor(k)} == set(yaochu)


@pytest.mark.parametrize(
    ("indicator", "dora"),
    [
        *[("1m", "2m"), ("8m", "9m"), ("9m", "1m"), ("9p", "1p"), ("9s", "1s"), ("5s", "6s")],
        *[("1z", "2z"), ("3z", "4z"), ("4z", "1z"), ("5z", "6z"), ("6z", "7z"), ("7z", "5z")],
    ],
)
def test_dora_of_indicator_wraps_within_its_group(indicator: str, dora: str) -> None:
    assert dora_of_indicator(parse_tile(indicator)) == parse_tile(dora)


def test_sort_puts_the_red_five_after_the_plain_fives() -> None:
    assert format_tiles(sorted_tiles(parse_tiles("0m5m4m6m5m"))) == "45506m"
    assert sort_key(parse_tile("0p")) > sort_key(parse_tile("5p"))
    assert sort_key(parse_tile("0p")) < sort_key(parse_tile("6p"))


def test_counts34_forgets_redness() -> None:
    counts = counts34(parse_tiles("055m1z"))
    assert counts[4] == 3
    assert counts[EAST] == 1
    assert sum(counts) == 4
    assert len(counts) == NUM_KINDS


# -- notation ------------------------------------------------------------------------------------


def test_parse_keeps_written_order_and_ignores_whitespace() -> None:
    assert parse_tiles("123m406p77z") == (0, 1, 2, 12, 35, 14, 33, 33)
    assert parse_tiles(" 1 2m\t3p ") == (0, 1, 11)
    assert parse_tiles("") == ()
    assert parse_tiles("1m1m") == (0, 0)


def test_format_groups_consecutive_tiles_of_one_suit() -> None:
    assert format_tiles((0, 1, 35)) == "12m0p"
    assert format_tiles(parse_tiles("1m2p3m")) == "1m2p3m"
    assert format_tiles(()) == ""
    assert format_tiles(RED_FIVES) == "0m0p0s"


@given(st.lists(faces, max_size=40))
def test_format_then_parse_round_trips(tiles: list[int]) -> None:
    assert parse_tiles(format_tiles(tiles)) == tuple(tiles)


@given(st.lists(faces, min_size=1, max_size=20))
def test_parse_of_a_formatted_string_formats_identically(tiles: list[int]) -> None:
    text = format_tiles(tiles)
    assert format_tiles(parse_tiles(text)) == text


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("12x", ["'x'", "position 2", "'12x'"]),
        ("m", ["'m'", "position 0", "no digits"]),
        ("123m45", ["'123m45'", "no suit letter"]),
        ("8z", ["honor digit 8", "position 0", "'8z'"]),
        ("12m0z", ["honor digit 0", "position 3", "'12m0z'"]),
        ("1M", ["'M'", "position 1"]),
        ("５m", ["'５'", "position 0"]),
    ],
)
def test_notation_errors_name_the_input_and_position(text: str, fragments: list[str]) -> None:
    with pytest.raises(NotationError) as info:
        parse_tiles(text)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_notation_error_is_a_value_error() -> None:
    assert issubclass(NotationError, RulesError)
    with pytest.raises(ValueError, match="must be a string"):
        parse_tiles(123)


def test_parse_tile_needs_exactly_one() -> None:
    with pytest.raises(NotationError, match="exactly one tile, got 2 in '12m'"):
        parse_tile("12m")
    with pytest.raises(NotationError, match="got 0"):
        parse_tile("")


@pytest.mark.parametrize("bad", [-1, 37, 100])
def test_tile_name_refuses_non_faces(bad: int) -> None:
    with pytest.raises(NotationError, match=str(bad)):
        tile_name(bad)
    with pytest.raises(NotationError):
        format_tiles([0, bad])


# -- the full set --------------------------------------------------------------------------------


@pytest.mark.parametrize("red_fives", [(0, 0, 0), (1, 1, 1), (1, 2, 0), (4, 4, 4)])
def test_full_set_counts(red_fives: tuple[int, int, int]) -> None:
    tiles = full_set(red_fives)
    assert len(tiles) == 136
    assert counts34(tiles) == [4] * NUM_KINDS
    counts = Counter(tiles)
    assert tuple(counts[t] for t in RED_FIVES) == red_fives
    assert tuple(counts[kind(t)] for t in RED_FIVES) == tuple(4 - n for n in red_fives)


def test_full_set_is_in_canonical_order() -> None:
    tiles = full_set((1, 1, 1))
    assert list(tiles) == sorted(tiles, key=lambda t: (kind(t), 0 if is_red(t) else 1))
    assert format_tiles(tiles[:20]) == "11112222333344440555m"
    assert full_set() == tiles


@pytest.mark.parametrize("bad", [(5, 0, 0), (-1, 0, 0), (1, 1), (1, 1, 1, 1)])
def test_full_set_refuses_bad_red_counts(bad: tuple[int, ...]) -> None:
    with pytest.raises(NotationError, match="red_fives"):
        full_set(bad)
