"""Per-seat views: the ONLY code that knows what is secret.

A seat sees its own dealt hand and draws; it never sees another seat's concealed tiles, the wall
order or the ura indicators before they are public. A spectator (``viewer=None``) sees only public
information. Everything sent to any client passes through :func:`redact`.

Public by the rules: discards, calls and their consumed tiles (an ankan shows its four tiles),
dora indicators as they flip, a winner's hand and (for a riichi winner) the ura indicators, the
tenpai hands shown at an exhaustive draw, and the whole wall once the hand is over (commit-reveal).
"""

from __future__ import annotations

import dataclasses

from server.engine.events import Event, MatchEnded, RoundStarted, TileDrawn, WallRevealed
from server.engine.melds import Meld
from server.engine.state import MatchState, RiverTile
from server.engine.tiles import Tile
from server.engine.wall import dora_indicators

# Hot values spell out their ``__init__`` (same parameters and defaults as the fields; a test keeps
# them in step): the one ``dataclass`` generates is interpreted Python even in the compiled build.
# Compiled (``_NATIVE``), the fields are stored directly (frozen applies to later assignments, made
# through the class's ``__setattr__``); pure Python sets them as dataclasses do.
_SET = object.__setattr__


def _probe() -> None:
    """A function that has Python bytecode only when this module is not compiled."""


_NATIVE = not hasattr(_probe, "__code__")

Viewer = int | None  # a seat 0..3, None for a spectator, or CASTER

# The caster view (a table whose spectator policy allows it, and only after its delay): every
# seat's dealt hand and draws open. Nothing else is secret in any event: the wall order and the ura
# indicators appear in no event before they are public (WallRevealed, HandWon).
CASTER = -1


def redact(event: Event, viewer: Viewer) -> Event:
    """The copy of ``event`` that ``viewer`` may receive."""
    if viewer == CASTER:
        return event
    if isinstance(event, RoundStarted):
        hands = tuple(h if seat == viewer else None for seat, h in enumerate(event.hands))
        return dataclasses.replace(event, hands=hands)
    if isinstance(event, TileDrawn):
        if event.seat != viewer and event.tile is not None:
            return dataclasses.replace(event, tile=None)
        return event
    # Every other event holds only public information at the moment it is emitted.
    return event


def redact_all(events: tuple[Event, ...], viewer: Viewer) -> tuple[Event, ...]:
    return tuple(redact(e, viewer) for e in events)


@dataclasses.dataclass(frozen=True, slots=True)
class PublicSeat:
    """What everyone can see of one seat."""

    melds: tuple[Meld, ...]
    river: tuple[RiverTile, ...]
    riichi: bool
    hand_size: int
    norths: int = 0  # north tiles set aside (three players)

    def __init__(
        self,
        melds: tuple[Meld, ...],
        river: tuple[RiverTile, ...],
        riichi: bool,
        hand_size: int,
        norths: int = 0,
    ) -> None:
        if _NATIVE:
            self.melds = melds  # type: ignore[misc]
            self.river = river  # type: ignore[misc]
            self.riichi = riichi  # type: ignore[misc]
            self.hand_size = hand_size  # type: ignore[misc]
            self.norths = norths  # type: ignore[misc]
        else:
            _SET(self, "melds", melds)
            _SET(self, "river", river)
            _SET(self, "riichi", riichi)
            _SET(self, "hand_size", hand_size)
            _SET(self, "norths", norths)


@dataclasses.dataclass(frozen=True, slots=True)
class SeatView:
    """Everything one seat knows right now (its own concealed tiles and public information)."""

    seat: int
    hand: tuple[Tile, ...]
    drawn: Tile | None
    seats: tuple[PublicSeat, ...]
    scores: tuple[int, ...]
    round_wind: int
    kyoku: int
    honba: int
    riichi_sticks: int
    dora_indicators: tuple[Tile, ...]
    live_remaining: int
    step: int

    def __init__(  # noqa: PLR0917 - the dataclass's own (positional) signature
        self,
        seat: int,
        hand: tuple[Tile, ...],
        drawn: Tile | None,
        seats: tuple[PublicSeat, ...],
        scores: tuple[int, ...],
        round_wind: int,
        kyoku: int,
        honba: int,
        riichi_sticks: int,
        dora_indicators: tuple[Tile, ...],
        live_remaining: int,
        step: int,
    ) -> None:
        if _NATIVE:
            self.seat = seat  # type: ignore[misc]
            self.hand = hand  # type: ignore[misc]
            self.drawn = drawn  # type: ignore[misc]
            self.seats = seats  # type: ignore[misc]
            self.scores = scores  # type: ignore[misc]
            self.round_wind = round_wind  # type: ignore[misc]
            self.kyoku = kyoku  # type: ignore[misc]
            self.honba = honba  # type: ignore[misc]
            self.riichi_sticks = riichi_sticks  # type: ignore[misc]
            self.dora_indicators = dora_indicators  # type: ignore[misc]
            self.live_remaining = live_remaining  # type: ignore[misc]
            self.step = step  # type: ignore[misc]
        else:
            _SET(self, "seat", seat)
            _SET(self, "hand", hand)
            _SET(self, "drawn", drawn)
            _SET(self, "seats", seats)
            _SET(self, "scores", scores)
            _SET(self, "round_wind", round_wind)
            _SET(self, "kyoku", kyoku)
            _SET(self, "honba", honba)
            _SET(self, "riichi_sticks", riichi_sticks)
            _SET(self, "dora_indicators", dora_indicators)
            _SET(self, "live_remaining", live_remaining)
            _SET(self, "step", step)


def seat_view(state: MatchState, seat: int) -> SeatView:
    """A seat's knowledge, derived from the omniscient state (for built-in bots and snapshots)."""
    h = state.hand
    p = h.players[seat]
    return SeatView(
        seat=seat,
        hand=p.hand,
        drawn=p.drawn,
        seats=tuple(
            PublicSeat(melds=o.melds, river=o.river, riichi=o.riichi, hand_size=len(o.hand), norths=o.norths)
            for o in h.players
        ),
        scores=state.scores,
        round_wind=h.round_wind,
        kyoku=h.kyoku,
        honba=h.honba,
        riichi_sticks=state.riichi_sticks,
        dora_indicators=dora_indicators(h.wall, h.dora_revealed) if h.wall else (),
        live_remaining=h.live_remaining,
        step=state.step,
    )


def hold_reveals(events: tuple[Event, ...]) -> tuple[Event, ...]:
    """``events`` with each hand's wall and the match's seed held back: a table that shares its
    walls with other tables still playing (a tournament's duplicate walls) shows ``wall_revealed``
    with an empty salt and wall (its commitment kept) and ``match_ended`` with an empty seed. The
    stored log keeps them; the event publishes the seeds when its round ends."""
    return tuple(_held(e) for e in events)


def _held(event: Event) -> Event:
    if isinstance(event, WallRevealed):
        return dataclasses.replace(event, salt="", wall=())
    if isinstance(event, MatchEnded):
        return dataclasses.replace(event, seed="")
    return event
