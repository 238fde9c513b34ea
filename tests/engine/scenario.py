"""Build positions for rule tests: injected walls from mpsz hands and draws."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from server.engine import apply, legal_actions, new_match, pending_seats
from server.engine.actions import Action, Discard, Pass
from server.engine.events import Event, HandDrawn, HandWon
from server.engine.match import HandStart
from server.engine.rules import TENHOU, Ruleset
from server.engine.state import MatchState, Phase
from server.engine.tiles import (
    NUM_KINDS,
    Tile,
    format_tiles,
    full_set,
    is_terminal_or_honor,
    kind,
    parse_tiles,
    sort_key,
)
from server.engine.wall import build_wall, validate_wall
from server.engine.wall import make_wall as seeded_wall

E = TypeVar("E")


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
    pool = Counter(full_set(ruleset.red_fives, ruleset.seats))
    for tiles in (*given.values(), live, dead_r, dead_d, dead_u):
        pool.subtract(tiles)
    if any(v < 0 for v in pool.values()):
        raise ValueError("scenario uses more copies of a tile than exist")
    # Interleave leftovers by kind stride so filler hands are scattered (few pairs / runs).
    leftovers = sorted(pool.elements(), key=lambda t: ((kind(t) * 7) % 34, sort_key(t)))
    filled: list[tuple[Tile, ...]] = []
    it = iter(leftovers)
    for seat in range(ruleset.seats):
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


def _quiet_rank(k: int) -> tuple[int, int]:
    """Preference for filler kinds: middle ranks 2-5-8 first, then honors, then the rest."""
    if k >= 27:
        return (1, k)
    rank = k % 9 + 1
    return (0 if rank in (2, 5, 8) else 2 if rank in (3, 6, 4, 7) else 3, k)


def _conflicts(k: int, chosen: set[int], gap: int) -> bool:
    """Would kind ``k`` pair with, or sit within ``gap`` ranks of, a chosen kind of its suit?"""
    if k in chosen:
        return True
    if k >= 27:
        return False
    return any(c < 27 and c // 9 == k // 9 and abs(c - k) <= gap for c in chosen)


def quiet_wall(
    hands: dict[int, str],
    draws: str = "",
    *,
    dealer: int = 0,
    rinshan: str = "",
    dora: str = "",
    ura: str = "",
    ruleset: Ruleset = TENHOU,
    late: dict[int, str] | None = None,
) -> tuple[Tile, ...]:
    """Like :func:`make_wall`, but filler hands hold no pair and no two tiles that could form a chi.

    An unspecified seat gets 13 distinct kinds, no two of one suit within two ranks (so it can never
    pon, chi or kan a discard, is far from tenpai and holds at most five terminal/honor kinds), as
    long as the leftovers allow. Every unspecified wall position (further live draws, the rest of
    the dead wall) takes the leftovers one copy of each kind at a time, so later draws are spread.
    ``late`` places single live draws by their 0-based draw number (e.g. ``{69: "2z"}``: the haitei
    tile of a hand without kans).
    """
    given = {s: parse_tiles(h) for s, h in hands.items()}
    live = parse_tiles(draws)
    placed_late = {i: parse_tiles(t)[0] for i, t in (late or {}).items()}
    if any(i < len(live) or not 0 <= i < 70 for i in placed_late):
        raise ValueError("late draws must come after the given draws, within the 70 live draws")
    dead_r, dead_d, dead_u = parse_tiles(rinshan), parse_tiles(dora), parse_tiles(ura)
    pool = Counter(full_set(ruleset.red_fives))
    for part in (*given.values(), live, dead_r, dead_d, dead_u, tuple(placed_late.values())):
        pool.subtract(part)
    if any(v < 0 for v in pool.values()):
        over = format_tiles(sorted((t for t, v in pool.items() if v < 0), key=sort_key))
        raise ValueError(f"scenario uses more copies of a tile than exist: {over}")
    for seat, dealt in given.items():
        if len(dealt) != 13:
            raise ValueError(f"seat {seat} hand must have 13 tiles")
    by_kind: dict[int, list[Tile]] = {k: [] for k in range(NUM_KINDS)}
    for t in sorted(pool.elements(), key=sort_key):
        by_kind[kind(t)].append(t)
    filled: dict[int, tuple[Tile, ...]] = dict(given)
    for seat in range(4):
        if seat in given:
            continue
        chosen: set[int] = set()
        for gap, max_th in ((2, 5), (1, 6), (0, 8)):
            for k in sorted(range(NUM_KINDS), key=_quiet_rank):
                if len(chosen) == 13:
                    break
                if not by_kind[k] or _conflicts(k, chosen, gap):
                    continue
                if is_terminal_or_honor(k) and sum(is_terminal_or_honor(c) for c in chosen) >= max_th:
                    continue
                chosen.add(k)
        picked: list[Tile] = [by_kind[k].pop(0) for k in sorted(chosen)]
        while len(picked) < 13:  # only with a nearly exhausted pool
            k = next(k for k in range(NUM_KINDS) if by_kind[k])
            picked.append(by_kind[k].pop(0))
        filled[seat] = tuple(picked)
    rest: list[Tile] = []
    while any(by_kind.values()):
        for k in sorted(range(NUM_KINDS), key=lambda k: (k * 7) % NUM_KINDS):
            if by_kind[k]:
                rest.append(by_kind[k].pop(0))
    layout: dict[int, Tile] = {}
    for i in range(4):
        for j, t in enumerate(filled[(dealer + i) % 4]):
            layout[13 * i + j] = t
    for start, tiles_ in ((52, live), (122, dead_r), (126, dead_d), (131, dead_u)):
        for j, t in enumerate(tiles_):
            layout[start + j] = t
    for i, t in placed_late.items():
        layout[52 + i] = t
    it = iter(rest)
    wall = [layout[i] if i in layout else next(it) for i in range(136)]
    return validate_wall(wall, ruleset.red_fives)


def spare_walls(ruleset: Ruleset, count: int = 24) -> list[tuple[Tile, ...]]:
    """Seeded walls for the hands after a scenario's own (so a match can go on)."""
    return [seeded_wall(b"spare", i, ruleset.red_fives, ruleset.seats) for i in range(count)]


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
        quiet: bool = False,
        late: dict[int, str] | None = None,
    ) -> Game:
        """East 1, seat 0 deals. ``quiet`` (implied by ``late``): a :func:`quiet_wall`, and after
        ``extra_walls`` the match goes on with :func:`spare_walls` (seeded) instead of stopping."""
        if quiet or late:
            wall = quiet_wall(hands, draws, rinshan=rinshan, dora=dora, ura=ura, ruleset=ruleset, late=late)
            extra_walls = [*extra_walls, *spare_walls(ruleset)]
        else:
            wall = make_wall(hands, draws, rinshan=rinshan, dora=dora, ura=ura, ruleset=ruleset)
        t = new_match(ruleset, b"scenario", walls_=[wall, *extra_walls])
        return cls(t.state, list(t.events))

    @classmethod
    def at(
        cls,
        hands: dict[int, str],
        draws: str = "",
        *,
        round_wind: int = 0,
        kyoku: int = 0,
        honba: int = 0,
        sticks: int = 0,
        scores: tuple[int, int, int, int] | None = None,
        ruleset: Ruleset = TENHOU,
        rinshan: str = "",
        dora: str = "",
        ura: str = "",
        extra_walls: Sequence[Sequence[Tile]] = (),
        late: dict[int, str] | None = None,
    ) -> Game:
        """A match resumed at any hand: ``round_wind`` / ``kyoku`` (dealer = seat ``kyoku``), with
        the given honba, riichi sticks on the table and scores; hands are dealt from a quiet wall.

        ``scores`` plus 1,000 per stick should total four times the start points (conservation).
        Later hands use ``extra_walls`` in order.
        """
        wall = quiet_wall(
            hands, draws, dealer=kyoku, rinshan=rinshan, dora=dora, ura=ura, ruleset=ruleset, late=late
        )
        start = HandStart(round_wind, kyoku, honba, sticks, scores)
        t = new_match(ruleset, b"scenario", walls_=[wall, *extra_walls, *spare_walls(ruleset)], start=start)
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

    def of(self, cls: type[E]) -> list[E]:
        """Every event of type ``cls`` so far (typed)."""
        return [e for e in self.events if isinstance(e, cls)]

    def play(self, seat: int, tile: str) -> list[Event]:
        """Discard ``tile`` and let every seat pass on it."""
        out = self.discard(seat, tile)
        out += self.pass_all()
        return out

    def hand(self, seat: int) -> str:
        """The concealed tiles of ``seat`` in mpsz notation."""
        return format_tiles(self.state.hand.players[seat].hand)

    def wins(self) -> list[HandWon]:
        return self.of(HandWon)

    def draws_(self) -> list[HandDrawn]:
        return self.of(HandDrawn)

    def run_to(self, remaining: int) -> None:
        """Every seat tsumogiris (passing every window) until a draw leaves ``remaining`` live tiles."""
        while self.state.hand.live_remaining > remaining:
            assert self.state.hand.phase is Phase.TURN, self.state.hand.phase
            self.tsumogiri(self.state.hand.turn)
            self.pass_all()
