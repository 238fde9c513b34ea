"""The three-player (sanma) ranking tables (docs/ranking.md, "Three-player rooms"): the points of
each placement per room and rank, promotion and demotion, the R change over three seats, and that
a match of the wrong seat count is refused."""

from __future__ import annotations

import pytest

from server.domain.ranked import Board, board_of_room, rated_match
from server.ranking import (
    CURRENT,
    CURRENT_SANMA,
    TABLES,
    Length,
    Standing,
    dan_after,
    rate_match,
    tables_of_room,
)
from server.ranking.ledger import Ledger, NotRateableError, RatedMatch, check_rateable

T = CURRENT_SANMA
E, S = Length.EAST, Length.EAST_SOUTH


def idx(key: str) -> int:
    return T.rank_index(key)


def test_the_sanma_tables() -> None:
    assert (T.version, T.seats, T.preset) == ("tenhou-3p-2", 3, "tenhou-sanma")
    assert [r.key for r in T.rooms] == [
        "sanma-open", "sanma-upper", "sanma-expert", "sanma-phoenix", "sanma-ladder",
    ]  # fmt: skip
    assert [T.room(k).awards(E) for k in ("sanma-open", "sanma-upper", "sanma-expert", "sanma-phoenix")] == [
        (30, 0), (50, 0), (70, 0), (90, 0),
    ]  # fmt: skip
    assert [T.room(k).awards(S) for k in ("sanma-open", "sanma-upper", "sanma-expert", "sanma-phoenix")] == [
        (45, 0), (75, 0), (105, 0), (135, 0),
    ]  # fmt: skip
    assert T.room("sanma-ladder").awards(E) == (30, 0) and T.room("sanma-ladder").awards(S) == (45, 0)
    # Ranks, bases, targets and the last place's loss are the four-player ones.
    assert [(r.key, r.base, r.target, r.last(E), r.last(S)) for r in T.ranks] == [
        (r.key, r.base, r.target, r.last(E), r.last(S)) for r in CURRENT.ranks
    ]
    assert (T.room("sanma-expert").min_rank, T.room("sanma-expert").min_rating) == (idx("4d"), 1800.0)
    assert (T.room("sanma-phoenix").min_rank, T.room("sanma-phoenix").min_rating) == (idx("7d"), 2000.0)
    assert T.room("sanma-upper").min_rank == idx("1k")
    assert T.rating.base == (30.0, 0.0, -30.0) and T.rating.divisor == 40.0


@pytest.mark.parametrize(
    ("room", "length", "first"),
    [
        ("sanma-open", E, 30),
        ("sanma-open", S, 45),
        ("sanma-upper", E, 50),
        ("sanma-upper", S, 75),
        ("sanma-expert", E, 70),
        ("sanma-expert", S, 105),
        ("sanma-phoenix", E, 90),
        ("sanma-phoenix", S, 135),
    ],
)
def test_points_per_placement_room_and_rank(room: str, length: Length, first: int) -> None:
    r = T.room(room)
    s = Standing(rank=idx("7d"), points=1550)
    assert dan_after(s, 1, r, length, T).points == 1550 + first
    assert dan_after(s, 2, r, length, T).points == 1550, "a sanma second is worth nothing"
    for rank, last_e, last_s in (("3k", 0, 0), ("2k", -10, -15), ("1d", -30, -45), ("7d", -90, -135)):
        start = T.ranks[idx(rank)].base + 50
        s = Standing(rank=idx(rank), points=start)
        assert dan_after(s, 3, r, length, T).points == start + (last_e if length is E else last_s)
    with pytest.raises(ValueError):
        dan_after(Standing(), 4, r, length, T)  # there is no fourth place of three


def test_promotion_and_demotion() -> None:
    open_ = T.room("sanma-open")
    assert dan_after(Standing(), 1, open_, E, T) == Standing(rank=idx("9k"))  # 30 >= 20
    s = dan_after(Standing(rank=idx("1k"), points=80), 1, open_, E, T)
    assert (s.rank, s.points) == (idx("1d"), 200)
    s = dan_after(Standing(rank=idx("1d"), points=20), 3, open_, E, T)  # -30: below zero
    assert (s.rank, s.points) == (idx("1k"), 0)
    s = dan_after(Standing(rank=idx("3k"), points=0), 3, open_, S, T)  # no loss below 2 kyu
    assert (s.rank, s.points) == (idx("3k"), 0)


def test_r_changes_over_three_seats() -> None:
    before = (Standing(rating=1600.0), Standing(rating=1500.0), Standing(rating=1400.0, games=500))
    changes = rate_match(before, (3, 1, 2), T.room("sanma-open"), E, T)
    # average 1500; adj 1.0 for a first game, 0.2 after 400 games
    assert [c.rating_delta for c in changes] == pytest.approx(
        [1.0 * (-30 + (1500 - 1600) / 40), 1.0 * (30 + 0), 0.2 * (0 + (1500 - 1400) / 40)]
    )
    assert [c.after.placements for c in changes] == [(0, 0, 1, 0), (1, 0, 0, 0), (0, 1, 0, 0)]
    with pytest.raises(ValueError):
        rate_match((*before, Standing()), (1, 2, 3, 4), T.room("sanma-open"), E, T)


def test_rooms_name_their_tables_and_boards() -> None:
    assert tables_of_room("sanma-upper") is T and tables_of_room("upper") is CURRENT
    assert [board_of_room(r) for r in ("open", "ladder", "sanma-open", "sanma-ladder")] == [
        Board.RANKED, Board.LADDER, Board.SANMA, Board.SANMA_LADDER,
    ]  # fmt: skip
    with pytest.raises(KeyError):
        tables_of_room("sanma-nowhere")


def _rated(
    accounts: tuple[str, ...] = ("a", "b", "c"),
    placements: tuple[int, ...] = (1, 2, 3),
    *,
    source: str = "ranked:sanma-open:east",
    version: str | None = None,
) -> RatedMatch | None:
    return rated_match(
        "m", source=source, aborted=False, accounts=accounts, placements=placements, table_version=version
    )


def test_a_sanma_match_needs_three_seats() -> None:
    m = _rated(placements=(2, 3, 1))
    assert m is not None and (m.board, m.table_version) == ("sanma", "tenhou-3p-2")
    assert [c.placement for c in Ledger().rate(m)] == [2, 3, 1]
    four = RatedMatch("m", "sanma-open", "sanma", E, ("a", "b", "c", "d"), (1, 2, 3, 4), T.version)
    with pytest.raises(NotRateableError):
        check_rateable(four)
    for accounts, placements in ((("a", "b", "c", "d"), (1, 2, 3, 4)), (("a", "a", "b"), (1, 2, 3))):
        assert _rated(accounts, placements) is None
    assert _rated(source="ranked:open:east") is None  # three seats in a four-player room


def test_a_match_rated_with_the_first_sanma_tables_keeps_their_figures() -> None:
    """``tenhou-3p-1`` (unsourced awards) stays beside ``tenhou-3p-2``: a match stored with it is
    rated (and rebuilt) with its own figures, a new match with the current ones."""
    old = TABLES["tenhou-3p-1"]
    assert old is not T and T is TABLES["tenhou-3p-2"]
    assert [old.room(k).awards(E) for k in ("sanma-open", "sanma-phoenix")] == [(25, 0), (70, 0)]
    assert [old.room(k).awards(S) for k in ("sanma-open", "sanma-phoenix")] == [(35, 0), (105, 0)]
    for version, first in (("tenhou-3p-1", 25), ("tenhou-3p-2", 30)):
        m = RatedMatch("m", "sanma-open", "sanma", E, ("a", "b", "c"), (1, 2, 3), version)
        ledger = Ledger({key: Standing(rank=idx("5k")) for key in Ledger.keys(m)})
        winner = ledger.rate(m)[0]
        assert (winner.after.rank, winner.points_delta) == (idx("5k"), first), version
    stored = _rated(version="tenhou-3p-1")
    assert stored is not None and stored.table_version == "tenhou-3p-1"


def test_east_south_awards_are_one_and_a_half_times_the_east_ones() -> None:
    for room in T.rooms:
        east, second_east = room.awards(E)
        east_south, second_east_south = room.awards(S)
        assert (east_south, second_east, second_east_south) == (east * 3 // 2, 0, 0), room.key
