"""Invariants checked after every step of random play (property tests)."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from server.engine.events import Event, HandDrawn, HandWon, RoundStarted, TileDrawn, WallRevealed
from server.engine.state import MatchState
from server.engine.tiles import NORTH, full_set
from server.engine.views import redact
from server.engine.wall import layout_of, replacement_position


@lru_cache(maxsize=8)
def _full_counts(red_fives: tuple[int, int, int], seats: int) -> Counter[int]:
    return Counter(full_set(red_fives, seats))


def assert_tiles_conserved(state: MatchState) -> None:
    """Wall (undrawn) + hands + melds + rivers (uncalled) + norths set aside hold exactly the 136
    tiles (108 with three seats)."""
    h = state.hand
    if not h.wall:
        return
    lay = layout_of(h.wall)
    seen: Counter[int] = Counter()
    for p in h.players:
        seen.update(p.hand)
        for m in p.melds:
            seen.update(m.tiles)
        seen.update([rt.tile for rt in p.river if not rt.called])
        seen[NORTH] += p.norths
    drawn = set(range(lay.live_start + h.live_drawn))
    drawn.update(replacement_position(lay, i) for i in range(h.replacements))
    seen.update(t for pos, t in enumerate(h.wall) if pos not in drawn)
    expected = _full_counts(state.ruleset.red_fives, state.ruleset.seats)
    assert seen == expected, f"tiles not conserved at step {state.step}"


def assert_points_conserved(state: MatchState) -> None:
    total = sum(state.scores) + 1000 * state.riichi_sticks
    expected = state.ruleset.seats * state.ruleset.start_points
    assert total == expected, f"points not conserved at step {state.step}: {total}"


def assert_no_leak(events: tuple[Event, ...], viewer: int) -> None:
    """A seat's copy of the events never shows another seat's concealed tiles or the wall early."""
    hand_over = False
    for e in events:
        r = redact(e, viewer)
        if isinstance(r, RoundStarted):
            hand_over = False
            for seat, tiles in enumerate(r.hands):
                assert (tiles is None) == (seat != viewer), f"dealt hand of seat {seat} leaked to {viewer}"
        elif isinstance(r, TileDrawn):
            assert (r.tile is None) == (r.seat != viewer), f"draw of seat {r.seat} leaked to {viewer}"
        elif isinstance(r, HandWon | HandDrawn):
            hand_over = True
            if isinstance(r, HandWon) and r.ura_indicators:
                assert any(y.name in {"riichi", "double_riichi"} for y in r.yaku) or r.yakuman
        elif isinstance(r, WallRevealed):
            assert hand_over, "the wall was revealed before the hand ended"
