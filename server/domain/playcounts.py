"""Per-seat counts of how a rated match was played: hands, hands with a riichi, hands with a call.

The profile's riichi rate and call rate (``docs/ranking.md``) need the step log, which is too long
to read on every profile view; the store counts them once, when it rates the match, from the
match's engine events (:func:`play_counts`), and keeps them beside the rating.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from server.engine import events as ev
from server.engine.melds import MeldType
from server.engine.rules import TENHOU

# A call opens the hand: chi, pon, an open kan (a closed kan does not; an added kan follows a pon).
OPEN_CALLS = frozenset({MeldType.CHI, MeldType.PON, MeldType.DAIMINKAN})


@dataclass(frozen=True, slots=True)
class PlayCounts:
    """One seat of one match: hands played, hands it declared riichi in, hands it called in."""

    hands: int = 0
    riichi: int = 0
    calls: int = 0

    def __add__(self, other: PlayCounts) -> PlayCounts:
        return PlayCounts(self.hands + other.hands, self.riichi + other.riichi, self.calls + other.calls)


def _new(seat: int, seen: set[int], seats: int) -> bool:
    return 0 <= seat < seats and seat not in seen


def play_counts(events: Iterable[ev.Event], seats: int | None = None) -> tuple[PlayCounts, ...]:
    """Per seat, over a match's events in order (only ``round_started``, ``tile_discarded`` and
    ``meld_called`` are looked at). A riichi counts when declared (the declaring discard), whether or
    not a ron on that tile stops it; a hand with several calls counts once. ``seats`` None: as many
    as the first ``round_started`` has scores (three in a three-player match); with no hand at
    all, the default preset's.

    >>> from server.engine.tiles import parse_tile
    >>> t = parse_tile("1m")
    >>> start = ev.RoundStarted(0, 0, 0, 0, 0, 0, (25000,) * 4, t, "", (None,) * 4)
    >>> [c.riichi for c in play_counts([start, ev.TileDiscarded(2, t, False, riichi=True)])]
    [0, 0, 1, 0]
    """
    hands = 0
    n = seats if seats is not None else 0
    riichi = [0] * n
    calls = [0] * n
    called: set[int] = set()
    declared: set[int] = set()
    for e in events:
        if isinstance(e, ev.RoundStarted):
            if not n:  # the first hand says how many seats the match has
                n = len(e.scores)
                riichi, calls = [0] * n, [0] * n
            hands += 1
            called, declared = set(), set()
        elif isinstance(e, ev.TileDiscarded) and e.riichi and _new(e.seat, declared, n):
            declared.add(e.seat)
            riichi[e.seat] += 1
        elif isinstance(e, ev.MeldCalled) and e.type in OPEN_CALLS and _new(e.seat, called, n):
            called.add(e.seat)
            calls[e.seat] += 1
    if not n:
        return (PlayCounts(),) * TENHOU.seats
    return tuple(PlayCounts(hands, riichi[s], calls[s]) for s in range(n))
