"""Wire events: the facts of a match as a seat (or spectator) sees them.

They mirror the engine's event vocabulary one to one, with tiles as mpsz strings (``"5m"``, ``"0p"``
for a red five, ``"7z"`` for chun) and every tile hidden from the receiver as ``null``. The server
redacts before it converts, so a client never receives another seat's concealed tiles, the wall or
the ura indicators before they are public.

Each event is a JSON object whose ``"type"`` names it, e.g.
``{"type": "tile_discarded", "seat": 2, "tile": "0p", "tsumogiri": false, "riichi": true}``.

Server-to-client structs accept unknown fields (a newer server may add some; old clients ignore
them); client-to-server messages do not (see :mod:`client_protocol.messages`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import msgspec

Tile = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^(?:[0-9][mps]|[1-7]z)$",
        description=(
            "One tile in mpsz notation: 1m-9m (characters), 1p-9p (circles), 1s-9s (bamboo), "
            "1z-7z (east, south, west, north, haku, hatsu, chun); 0m/0p/0s are the red fives."
        ),
        examples=["5m", "0p", "7z"],
    ),
]
Seat = Annotated[
    int, msgspec.Meta(ge=0, le=3, description="A seat 0..3; seat 0 deals the first hand, play goes 0→1→2→3.")
]
Scores = Annotated[tuple[int, ...], msgspec.Meta(description="Points per seat, indexed by seat.")]
Hidden = Annotated[
    tuple[Tile, ...] | None, msgspec.Meta(description="The tiles, or null where hidden from the receiver.")
]


class MeldType(StrEnum):
    CHI = "chi"
    PON = "pon"
    DAIMINKAN = "daiminkan"  # open kan on a discard
    ANKAN = "ankan"  # closed kan from four concealed tiles
    KAKAN = "kakan"  # added kan: a fourth tile added to an earlier pon


class DrawReason(StrEnum):
    EXHAUSTIVE = "exhaustive"  # ryuukyoku: the live wall ran out
    KYUUSHU_KYUUHAI = "kyuushu_kyuuhai"
    SUUFON_RENDA = "suufon_renda"
    SUUCHA_RIICHI = "suucha_riichi"
    SUUKAIKAN = "suukaikan"
    SANCHAHOU = "sanchahou"


class _Value(msgspec.Struct, frozen=True, kw_only=True):
    """Base of the nested (untagged) values."""


class _Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of the tagged wire events."""


class Meld(_Value, frozen=True):
    """A meld as it lies on the table. ``tiles`` holds all 3 or 4 tiles, sorted.

    ``called`` is the tile taken from ``from_seat``'s discard (null for an ankan, whose ``from_seat``
    is the owner); for a kakan, ``called`` and ``from_seat`` are those of the original pon and
    ``added`` is the fourth tile.
    """

    type: MeldType
    tiles: tuple[Tile, ...]
    called: Tile | None
    from_seat: Seat
    added: Tile | None = None


class Yaku(_Value, frozen=True):
    """One yaku of a win; ``han`` is 13 per yakuman multiple for yakuman."""

    name: str
    han: int


class MatchStarted(_Event, frozen=True, tag="match_started"):
    """The match begins. ``ruleset_json`` is the canonical ruleset document whose sha256 is ``ruleset_hash``;
    ``seed_commitment`` is the sha256 of the match seed, which ``match_ended`` reveals."""

    ruleset_json: str
    ruleset_hash: str
    seed_commitment: str
    engine_version: str
    wall_algorithm: str
    scores: Scores


class RoundStarted(_Event, frozen=True, tag="round_started"):
    """A hand is dealt. ``hands`` holds each seat's 13 dealt tiles; only the receiver's own hand is
    non-null. ``wall_commitment`` is sha256(salt ‖ wall), published before any tile is seen."""

    hand_index: Annotated[int, msgspec.Meta(ge=0, description="0-based count of hands played so far.")]
    round_wind: Annotated[int, msgspec.Meta(ge=0, le=3, description="0 east, 1 south, 2 west, 3 north.")]
    kyoku: Annotated[
        int, msgspec.Meta(ge=0, le=3, description="Hand within the round; the dealer is seat kyoku.")
    ]
    honba: Annotated[int, msgspec.Meta(ge=0)]
    riichi_sticks: Annotated[int, msgspec.Meta(ge=0)]
    dealer: Seat
    scores: Scores
    dora_indicator: Tile
    wall_commitment: str
    hands: tuple[Hidden, ...]


class TileDrawn(_Event, frozen=True, tag="tile_drawn"):
    """``seat`` draws a tile (from the dead wall when ``rinshan``); ``tile`` is null unless it is yours."""

    seat: Seat
    tile: Tile | None
    rinshan: bool


class TileDiscarded(_Event, frozen=True, tag="tile_discarded"):
    """``seat`` discards ``tile``; ``tsumogiri`` when it is the tile just drawn; ``riichi`` when this
    discard declares riichi (shown sideways unless called)."""

    seat: Seat
    tile: Tile
    tsumogiri: bool
    riichi: bool


class RiichiAccepted(_Event, frozen=True, tag="riichi_accepted"):
    """The riichi discard passed without a ron: the 1,000-point deposit is placed."""

    seat: Seat
    scores: Scores
    riichi_sticks: int


class MeldCalled(_Event, frozen=True, tag="meld_called"):
    """``seat`` makes a meld. ``meld`` is the resulting meld (for a kakan, the upgraded four-tile meld);
    ``tile`` is the called (for a kakan, the added) tile, null for an ankan; ``consumed`` are the tiles
    taken from the caller's hand."""

    seat: Seat
    meld_type: MeldType
    meld: Meld
    tile: Tile | None
    consumed: tuple[Tile, ...]


class NorthDeclared(_Event, frozen=True, tag="north_declared"):
    """Three seats: ``seat`` set a north tile (``4z``) aside as a bonus dora; its replacement draw
    (``tile_drawn`` with ``rinshan``) follows unless another seat wins on the north."""

    seat: Seat
    tile: Tile


class DoraRevealed(_Event, frozen=True, tag="dora_revealed"):
    """A new dora indicator is flipped (after a kan)."""

    indicator: Tile


class HandWon(_Event, frozen=True, tag="hand_won"):
    """One winner's win; a multiple ron gives one event per winner, from the discarder's right.

    ``points`` is the hand's value before honba and sticks; ``deltas`` are this win's score changes
    (including its honba and sticks) and ``scores`` the scores after it. ``ura_indicators`` is
    non-empty only for a riichi winner.
    """

    seat: Seat
    from_seat: Annotated[int, msgspec.Meta(ge=0, le=3, description="The discarder; equals seat for tsumo.")]
    win_tile: Tile
    hand: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    yaku: tuple[Yaku, ...]
    han: int
    fu: int
    points: int
    limit: Annotated[
        str, msgspec.Meta(description='"", "mangan", "haneman", "baiman", "sanbaiman", "yakuman", ...')
    ]
    yakuman: Annotated[int, msgspec.Meta(ge=0, description="Yakuman multiple; 0 for an ordinary hand.")]
    dora_indicators: tuple[Tile, ...]
    ura_indicators: tuple[Tile, ...]
    pao_seat: Seat | None
    deltas: Scores
    scores: Scores


class HandDrawn(_Event, frozen=True, tag="hand_drawn"):
    """The hand ends without a winner. ``tenpai`` is meaningful for an exhaustive draw only; ``hands``
    are the revealed (tenpai) hands, null otherwise; ``nagashi`` lists seats paid nagashi mangan."""

    reason: DrawReason
    tenpai: tuple[bool, ...]
    hands: tuple[Hidden, ...]
    nagashi: tuple[Seat, ...]
    deltas: Scores
    scores: Scores


class WallRevealed(_Event, frozen=True, tag="wall_revealed"):
    """End of a hand: salt (hex) and the 136-tile wall are revealed; sha256(salt ‖ wall) must equal
    ``wall_commitment`` from ``round_started``."""

    salt: str
    wall: tuple[Tile, ...]
    wall_commitment: str


class RoundEnded(_Event, frozen=True, tag="round_ended"):
    """The hand is over and settled."""

    scores: Scores
    riichi_sticks: int


class MatchEnded(_Event, frozen=True, tag="match_ended"):
    """The match is over. ``ranks`` are 1..4 per seat; ``final_points`` are (score - return points) / 1000
    plus uma (and oka for the first); ``seed`` (hex) is the match seed, whose sha256 is the commitment."""

    scores: Scores
    ranks: tuple[int, ...]
    final_points: tuple[float, ...]
    seed: str


Event = (
    MatchStarted
    | RoundStarted
    | TileDrawn
    | TileDiscarded
    | RiichiAccepted
    | MeldCalled
    | NorthDeclared
    | DoraRevealed
    | HandWon
    | HandDrawn
    | WallRevealed
    | RoundEnded
    | MatchEnded
)
"""Any wire event (the ``event`` field of an ``event`` message)."""

EVENT_TYPES: tuple[type[Event], ...] = (
    MatchStarted,
    RoundStarted,
    TileDrawn,
    TileDiscarded,
    RiichiAccepted,
    MeldCalled,
    NorthDeclared,
    DoraRevealed,
    HandWon,
    HandDrawn,
    WallRevealed,
    RoundEnded,
    MatchEnded,
)
