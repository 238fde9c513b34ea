"""What happened: the one vocabulary of facts (past tense), shaped after mjai events.

Every event is a frozen value. Fields that may hold another seat's secret (a dealt hand, a drawn
tile) are optional: the omniscient log holds them, and :mod:`server.engine.views` replaces them
with ``None`` in the copy a seat or spectator receives. Nothing else in the code base redacts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from server.engine.melds import Meld, MeldType
from server.engine.tiles import Tile

# Hot values spell out their ``__init__`` (same parameters and defaults as the fields; a test keeps
# them in step): the one ``dataclass`` generates is interpreted Python even in the compiled build.
# Compiled (``_NATIVE``), the fields are stored directly (frozen applies to later assignments, made
# through the class's ``__setattr__``); pure Python sets them as dataclasses do.
_SET = object.__setattr__


def _probe() -> None:
    """A function that has Python bytecode only when this module is not compiled."""


_NATIVE = not hasattr(_probe, "__code__")


class DrawReason(StrEnum):
    EXHAUSTIVE = "exhaustive"  # ryuukyoku: the live wall ran out
    KYUUSHU_KYUUHAI = "kyuushu_kyuuhai"
    SUUFON_RENDA = "suufon_renda"
    SUUCHA_RIICHI = "suucha_riichi"
    SUUKAIKAN = "suukaikan"
    SANCHAHOU = "sanchahou"


@dataclass(frozen=True, slots=True)
class MatchStarted:
    ruleset_json: str
    ruleset_hash: str
    seed_commitment: str  # sha256 of the match seed, revealed by MatchEnded
    engine_version: str
    wall_algorithm: str
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundStarted:
    hand_index: int  # 0-based count of hands played in this match
    round_wind: int  # 0 east, 1 south, 2 west, 3 north
    kyoku: int  # 0..3 within the round wind; the dealer is seat ``kyoku``
    honba: int
    riichi_sticks: int
    dealer: int
    scores: tuple[int, ...]
    dora_indicator: Tile
    wall_commitment: str  # sha256(salt || wall) hex, published before any tile is seen
    hands: tuple[tuple[Tile, ...] | None, ...]  # dealt 13 tiles per seat; None where redacted


@dataclass(frozen=True, slots=True)
class TileDrawn:
    seat: int
    tile: Tile | None  # None where redacted
    rinshan: bool = False

    def __init__(
        self,
        seat: int,
        tile: Tile | None,
        rinshan: bool = False,
    ) -> None:
        if _NATIVE:
            self.seat = seat  # type: ignore[misc]
            self.tile = tile  # type: ignore[misc]
            self.rinshan = rinshan  # type: ignore[misc]
        else:
            _SET(self, "seat", seat)
            _SET(self, "tile", tile)
            _SET(self, "rinshan", rinshan)


@dataclass(frozen=True, slots=True)
class TileDiscarded:
    seat: int
    tile: Tile
    tsumogiri: bool
    riichi: bool = False  # this discard declares riichi (shown sideways unless called)

    def __init__(
        self,
        seat: int,
        tile: Tile,
        tsumogiri: bool,
        riichi: bool = False,
    ) -> None:
        if _NATIVE:
            self.seat = seat  # type: ignore[misc]
            self.tile = tile  # type: ignore[misc]
            self.tsumogiri = tsumogiri  # type: ignore[misc]
            self.riichi = riichi  # type: ignore[misc]
        else:
            _SET(self, "seat", seat)
            _SET(self, "tile", tile)
            _SET(self, "tsumogiri", tsumogiri)
            _SET(self, "riichi", riichi)


@dataclass(frozen=True, slots=True)
class RiichiAccepted:
    """The riichi discard passed without a ron: the 1,000-point deposit is placed."""

    seat: int
    scores: tuple[int, ...]
    riichi_sticks: int


@dataclass(frozen=True, slots=True)
class MeldCalled:
    """A chi, pon, kan (any of the three kinds) made by ``seat``."""

    seat: int
    type: MeldType
    meld: Meld  # the resulting meld (for kakan: the upgraded four-tile meld)
    tile: Tile | None  # the called (or, for kakan, added) tile; None for ankan
    consumed: tuple[Tile, ...]  # tiles taken from the caller's hand


@dataclass(frozen=True, slots=True)
class NorthDeclared:
    """``seat`` set a north tile aside as a bonus dora (three seats); a replacement draw follows
    unless another seat wins on it (docs/rules.md#north-bonus)."""

    seat: int
    tile: Tile  # the north tile set aside (always 4z)


@dataclass(frozen=True, slots=True)
class DoraRevealed:
    indicator: Tile


@dataclass(frozen=True, slots=True)
class YakuScore:
    name: str  # English id, e.g. "riichi", "dora", "daisangen"
    han: int  # 13 per yakuman multiple for yakuman


@dataclass(frozen=True, slots=True)
class HandWon:
    """One winner's win. Multiple ron gives one event per winner, from the discarder's right."""

    seat: int
    from_seat: int  # == seat for tsumo
    win_tile: Tile
    hand: tuple[Tile, ...]  # concealed tiles including the winning tile
    melds: tuple[Meld, ...]
    yaku: tuple[YakuScore, ...]
    han: int
    fu: int
    points: int  # total value the winner receives for the hand itself (before honba and sticks)
    limit: str  # "", "mangan", "haneman", "baiman", "sanbaiman", "yakuman", "kazoe_yakuman", ...
    yakuman: int  # multiple of yakuman (0 for an ordinary hand)
    dora_indicators: tuple[Tile, ...]
    ura_indicators: tuple[Tile, ...]  # only for a riichi winner (otherwise never revealed)
    pao_seat: int | None
    deltas: tuple[int, ...]  # score changes of this win (incl. its honba and sticks)
    scores: tuple[int, ...]  # scores after this win


@dataclass(frozen=True, slots=True)
class HandDrawn:
    reason: DrawReason
    tenpai: tuple[bool, ...]  # only meaningful for an exhaustive draw
    hands: tuple[tuple[Tile, ...] | None, ...]  # revealed hands (tenpai hands; None otherwise)
    nagashi: tuple[int, ...]  # seats paid nagashi mangan
    deltas: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class WallRevealed:
    """End of a hand: salt and wall are revealed; anyone can check them against the commitment."""

    salt: str  # hex
    wall: tuple[Tile, ...]
    wall_commitment: str


@dataclass(frozen=True, slots=True)
class RoundEnded:
    scores: tuple[int, ...]
    riichi_sticks: int


@dataclass(frozen=True, slots=True)
class MatchEnded:
    scores: tuple[int, ...]  # final raw scores (leftover sticks applied per the ruleset)
    ranks: tuple[int, ...]  # 1..4 per seat, ties broken by seat order
    final_points: tuple[float, ...]  # (score - return points) / 1000 + uma (+ oka for first)
    seed: str  # hex of the match seed, now public


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
