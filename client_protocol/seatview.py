"""The full view of a match from one seat (or a spectator), as carried by a ``snapshot`` message.

A view is what the receiver would know by folding every event of its stream, in order, with
:class:`client_protocol.tracker.MatchTracker`; the server's snapshot must equal that fold, so a
client that resumes from a snapshot continues exactly as if it had seen every event.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from client_protocol.events import HandDrawn, HandWon, MatchEnded, MatchStarted, Meld, Seat, Tile


class _Value(msgspec.Struct, frozen=True, kw_only=True):
    """Base of the view values (server to client: unknown fields are ignored)."""


class RoundInfo(_Value, frozen=True):
    """The hand being played (or just finished). ``riichi_sticks`` are the sticks now on the table."""

    hand_index: int
    round_wind: Annotated[int, msgspec.Meta(ge=0, le=3, description="0 east, 1 south, 2 west, 3 north.")]
    kyoku: Annotated[int, msgspec.Meta(ge=0, le=3)]
    honba: int
    riichi_sticks: int
    dealer: Seat
    wall_commitment: str


class RiverTile(_Value, frozen=True):
    """One discard, in the order discarded.

    ``riichi``: this discard declared riichi. ``sideways``: it is shown turned sideways, i.e. it is the
    riichi declaration tile, or, when that tile was called away (it is then ``sideways`` false), the
    seat's next discard. ``called``: another seat called it into a meld; it stays in this list, in its
    place, but is drawn in the caller's meld, not in the river.
    """

    tile: Tile
    tsumogiri: bool
    riichi: bool
    sideways: bool
    called: bool


class SeatState(_Value, frozen=True):
    """What the receiver knows of one seat.

    ``hand`` (sorted: by suit m, p, s, z, then number, a red five after its plain fives) includes the
    drawn tile and is null where the tiles are hidden from the receiver; ``drawn`` is the tile drawn
    this turn while it is still in the hand and known to the receiver; ``hand_size`` counts the
    concealed tiles (known or not); ``norths`` counts the norths the seat has set aside this hand
    (three players; always 0 with four).
    """

    seat: Seat
    hand: tuple[Tile, ...] | None
    drawn: Tile | None
    hand_size: int
    melds: tuple[Meld, ...]
    river: tuple[RiverTile, ...]
    riichi: bool
    norths: int = 0


class SeatView(_Value, frozen=True):
    """A whole view. ``seat`` is the receiver's seat (null for a spectator); ``match`` is the
    ``match_started`` event; ``round`` is null before the first hand; ``tiles_left`` counts the draws
    left in the live wall (70 at the deal, one less per draw and per kan); ``turn`` is the seat that
    last drew, called or discarded in this hand; ``results`` are the current hand's ``hand_won`` /
    ``hand_drawn`` events; ``match_result`` is the ``match_ended`` event once the match is over."""

    seat: Seat | None
    match: MatchStarted | None
    scores: tuple[int, ...]
    round: RoundInfo | None
    dora_indicators: tuple[Tile, ...]
    tiles_left: int
    turn: Seat | None
    seats: tuple[SeatState, ...]
    results: tuple[HandWon | HandDrawn, ...]
    match_result: MatchEnded | None
