"""Build positions for rule tests: injected walls from mpsz hands and draws."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from server.engine import apply, legal_actions, new_match, pending_seats
from server.engine.actions import Action, Discard, Pass
from server.engine.events import Event
from server.engine.rules import TENHOU, Ruleset
from server.engine.state import MatchState, Phase
from server.engine.tiles import Tile, full_set, kind, parse_tiles, sort_key
from server.engine.wall import build_wall


def make_wall(
    hands: dict[int, str],
    draws: str = "",
    *,
    dealer: int = 0,
    rinshan: str = "",
    dora: str = "",
    ura: str = "",
    ruleset: Ruleset = TENHOU,
) -> tuple[Tile, ...]:
    """A wall dealing ``hands`` (unspecified seats get scattered leftovers) and drawing ``draws``.

    Live draws after the given ones come from the leftover tiles in an interleaved order so that the
    filler rarely forms sets.
    """
    given: dict[int, tuple[Tile, ...]] = {s: parse_tiles(h) for s, h in hands.items()}
    live = parse_tiles(draws)
    dead_r, dead_d, dead_u = parse_tiles(rinshan), parse_tiles(dora), parse_tiles(ura)
    pool = Counter(full_set(ruleset.red_fives))
    for tiles in (*given.values(), live, dead_r, dead_d, dead_u):
        pool.subtract(tiles)
    if any(v < 0 for v in pool.values()):
        raise ValueError("scenario uses more copies of a tile than exist")
    # Interleave leftovers by kind stride so filler hands are scattered (few pairs / runs).
    leftovers = sorted(pool.elements(), key=lambda t: ((kind(t) * 7) % 34, sort_key(t)))
    filled: list[tuple[Tile, ...]] = []
    it = iter(leftovers)
    for seat in range(4):
        if seat in given:
            if len(given[seat]) != 13:
                raise ValueError(f"seat {seat} hand must have 13 tiles")
            filled.append(given[seat])
        else:
            filled.append(tuple(next(it) for _ in range(13)))
    return build_wall(
        filled,
        dealer,
        live_draws=live,
        rinshan_draws=dead_r,
        dora_indicators=dead_d,
        ura_indicators=dead_u,
        red_fives=ruleset.red_fives,
    )


@dataclass
class Game:
    """A match driven step by step in a test, collecting every event."""

    state: MatchState
    events: list[Event] = field(default_factory=list)

    @classmethod
    def start(
        cls,
        hands: dict[int, str],
        draws: str = "",
        *,
        ruleset: Ruleset = TENHOU,
        rinshan: str = "",
        dora: str = "",
        ura: str = "",
        extra_walls: Sequence[Sequence[Tile]] = (),
    ) -> Game:
        wall = make_wall(hands, draws, rinshan=rinshan, dora=dora, ura=ura, ruleset=ruleset)
        t = new_match(ruleset, b"scenario", walls_=[wall, *extra_walls])
        return cls(t.state, list(t.events))

    def do(self, seat: int, action: Action) -> list[Event]:
        t = apply(self.state, seat, action)
        self.state = t.state
        self.events.extend(t.events)
        return list(t.events)

    def legal(self, seat: int) -> frozenset[Action]:
        return legal_actions(self.state, seat)

    def pending(self) -> tuple[int, ...]:
        return pending_seats(self.state)

    def discard(self, seat: int, tile: str) -> list[Event]:
        """Discard the face ``tile`` (tsumogiri if it is the drawn tile and no other copy is held)."""
        t = parse_tiles(tile)[0]
        legal = self.legal(seat)
        for tsumogiri in (False, True):
            if Discard(t, tsumogiri) in legal:
                return self.do(seat, Discard(t, tsumogiri))
        raise AssertionError(f"seat {seat} cannot discard {tile}: {sorted(map(repr, legal))}")

    def pass_all(self, *, except_seat: int | None = None) -> list[Event]:
        """Every seat in an open call window passes (except one)."""
        out: list[Event] = []
        while self.state.hand.phase in (Phase.CALLS, Phase.CHANKAN):
            seats = [s for s in self.pending() if s != except_seat]
            if not seats:
                break
            out += self.do(seats[0], Pass())
        return out

    def tsumogiri(self, seat: int) -> list[Event]:
        drawn = self.state.hand.players[seat].drawn
        assert drawn is not None
        return self.do(seat, Discard(drawn, True))

    def of_type(self, cls: type) -> list[Event]:
        return [e for e in self.events if isinstance(e, cls)]
