"""Golden values of the ranking tables: promotion, demotion, no loss below 2 kyu, the adj ramp."""

from __future__ import annotations

import pytest

from server.ranking import (
    CURRENT,
    Length,
    Standing,
    adjustment,
    dan_after,
    may_enter,
    rate_match,
    rating_change,
)

T = CURRENT
OPEN = T.room("open")
UPPER = T.room("upper")
EXPERT = T.room("expert")


def idx(key: str) -> int:
    return T.rank_index(key)


def test_the_table_is_tenhous() -> None:
    assert [r.key for r in T.ranks] == [
        "new", "9k", "8k", "7k", "6k", "5k", "4k", "3k", "2k", "1k",
        "1d", "2d", "3d", "4d", "5d", "6d", "7d", "8d", "9d", "10d", "tenhoui",
    ]  # fmt: skip
    assert [(r.base, r.target) for r in T.ranks[10:20]] == [(200 * n, 400 * n) for n in range(1, 11)]
    assert [T.ranks[idx(k)].target for k in ("new", "9k", "6k", "5k", "4k", "3k", "1k")] == [
        20, 20, 40, 60, 80, 100, 100,
    ]  # fmt: skip
    assert [T.ranks[idx(k)].last(Length.EAST) for k in ("3k", "2k", "1k", "1d", "4d", "10d")] == [
        0, -10, -20, -30, -60, -120,
    ]  # fmt: skip
    assert T.ranks[idx("10d")].last(Length.EAST_SOUTH) == -180
    assert OPEN.awards(Length.EAST) == (20, 10) and OPEN.awards(Length.EAST_SOUTH) == (30, 15)
    assert EXPERT.awards(Length.EAST) == (50, 20) and EXPERT.awards(Length.EAST_SOUTH) == (75, 30)
    assert T.version == "tenhou-4p-1"


def test_points_by_placement_and_room() -> None:
    s = Standing(rank=idx("1d"), points=250)
    assert dan_after(s, 1, OPEN, Length.EAST, T).points == 270
    assert dan_after(s, 1, UPPER, Length.EAST_SOUTH, T).points == 310
    assert dan_after(s, 2, EXPERT, Length.EAST, T).points == 270
    assert dan_after(s, 3, EXPERT, Length.EAST, T).points == 250
    assert dan_after(s, 4, OPEN, Length.EAST, T).points == 220
    assert dan_after(s, 4, OPEN, Length.EAST_SOUTH, T).points == 205


def test_promotion_resets_to_the_next_ranks_base() -> None:
    assert dan_after(Standing(rank=idx("new"), points=0), 1, OPEN, Length.EAST, T) == Standing(rank=idx("9k"))
    s = dan_after(Standing(rank=idx("1k"), points=90), 1, OPEN, Length.EAST, T)
    assert (s.rank, s.points) == (idx("1d"), 200)
    s = dan_after(Standing(rank=idx("3d"), points=1190), 2, OPEN, Length.EAST, T)
    assert (s.rank, s.points) == (idx("4d"), 800)
    s = dan_after(Standing(rank=idx("10d"), points=3990), 1, OPEN, Length.EAST, T)
    assert s.rank == idx("tenhoui")
    top = Standing(rank=idx("tenhoui"))
    assert dan_after(top, 4, OPEN, Length.EAST, T) == top


def test_demotion_drops_one_rank_to_its_base() -> None:
    s = dan_after(Standing(rank=idx("2d"), points=20), 4, OPEN, Length.EAST, T)
    assert (s.rank, s.points) == (idx("1d"), 200)
    s = dan_after(Standing(rank=idx("1d"), points=10), 4, OPEN, Length.EAST_SOUTH, T)
    assert (s.rank, s.points) == (idx("1k"), 0)
    s = dan_after(Standing(rank=idx("2k"), points=5), 4, OPEN, Length.EAST, T)
    assert (s.rank, s.points) == (idx("3k"), 0)
    s = dan_after(Standing(rank=idx("1d"), points=30), 4, OPEN, Length.EAST, T)
    assert (s.rank, s.points) == (idx("1d"), 0)  # exactly zero stays


def test_no_loss_below_two_kyu() -> None:
    for key in ("new", "9k", "5k", "3k"):
        s = Standing(rank=idx(key), points=0)
        assert dan_after(s, 4, OPEN, Length.EAST_SOUTH, T) == s


def test_adj_ramp() -> None:
    assert adjustment(0, T) == 1.0
    assert adjustment(1, T) == pytest.approx(0.998)
    assert adjustment(100, T) == pytest.approx(0.8)
    assert adjustment(399, T) == pytest.approx(0.202)
    assert adjustment(400, T) == 0.2
    assert adjustment(10_000, T) == 0.2


def test_rating_formula() -> None:
    assert rating_change(1500, 1500, 1, 0, T) == pytest.approx(30)
    assert rating_change(1500, 1500, 4, 0, T) == pytest.approx(-30)
    assert rating_change(1600, 1500, 2, 0, T) == pytest.approx(10 - 2.5)
    assert rating_change(1400, 1500, 3, 100, T) == pytest.approx(0.8 * (-10 + 2.5))
    assert rating_change(1500, 1700, 1, 400, T) == pytest.approx(0.2 * (30 + 5))


def test_rate_match_moves_all_four_seats() -> None:
    before = (Standing(), Standing(rating=1600, games=100), Standing(rating=1400), Standing())
    changes = rate_match(before, (2, 1, 4, 3), OPEN, Length.EAST, T)
    assert [c.placement for c in changes] == [2, 1, 4, 3]
    assert changes[0].after.rating == pytest.approx(1500 + 10)
    assert changes[1].after.rating == pytest.approx(1600 + 0.8 * (30 - 2.5))
    assert changes[2].after.rating == pytest.approx(1400 + (-30 + 2.5))
    assert [c.after.games for c in changes] == [1, 101, 1, 1]
    assert changes[1].after.placements == (1, 0, 0, 0)
    assert changes[0].after.rank == idx("new") and changes[0].after.points == 10
    with pytest.raises(ValueError):
        rate_match(before, (1, 1, 2, 3), OPEN, Length.EAST, T)


def test_room_requirements() -> None:
    assert may_enter(Standing(), OPEN)
    assert not may_enter(Standing(rank=idx("2k")), UPPER)
    assert may_enter(Standing(rank=idx("1k")), UPPER)
    assert not may_enter(Standing(rank=idx("4d"), rating=1799.9), EXPERT)
    assert not may_enter(Standing(rank=idx("3d"), rating=1900), EXPERT)
    assert may_enter(Standing(rank=idx("4d"), rating=1800), EXPERT)


def test_the_docstring_examples() -> None:
    import doctest

    import server.domain.ranked
    import server.ranking.rules
    import server.ranking.tables

    for module in (server.ranking.rules, server.ranking.tables, server.domain.ranked):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_hand_stats_of_a_seat() -> None:
    from server.domain.ranked import hand_stats
    from server.domain.reads import HandResult

    def hand(
        outcome: str, wins: tuple[dict[str, object], ...] = (), tenpai: tuple[bool, ...] | None = None
    ) -> HandResult:
        return HandResult(
            "m", 0, 0, 0, 0, 0, 0, (), "", 0, 9, outcome, None, wins, None, None, tenpai, None, None, None
        )

    tsumo = {"seat": 2, "from_seat": 2, "points": 8000, "deltas": [-2000, -2000, 8000, -4000]}
    ron = {"seat": 1, "from_seat": 2, "points": 2000, "deltas": [0, 2000, -2000, 0]}
    double = (
        {"seat": 0, "from_seat": 2, "deltas": [1000, 0, -3000, 0]},
        {"seat": 1, "from_seat": 2, "deltas": [0, 2000, 0, 0]},
    )
    hands = [
        hand("won", (tsumo,)),
        hand("won", (ron,)),
        hand("won", double),
        hand("drawn", (), (False, True, True, False)),
    ]
    hands.append(hand("drawn", (), None))  # an abortive draw: no tenpai flags
    s = hand_stats((2, h) for h in hands)
    assert (s.hands, s.wins, s.tsumo_wins, s.deal_ins, s.win_points, s.deal_in_points) == (
        5,
        1,
        1,
        2,
        8000,
        5000,
    )
    assert (s.draws, s.tenpai_at_draws) == (1, 1)
    assert s.rate(s.deal_ins, s.hands) == 0.4 and s.rate(1, 0) is None
