"""The neutral model of a recorded game, whatever format it was read from.

A :class:`GameRecord` holds the hands in play order. A :class:`HandRecord` holds what the engine
needs to replay one hand: the deal, the ordered :data:`Step` s (draws, discards, calls, dora reveals,
riichi deposits) and the recorded result (one :class:`Win` per winner, or a :class:`DrawResult`).
Seats are absolute (0..3, or 0..2 with three players; seat 0 is the first dealer); tiles are faces
(0..36). A three-player hand has three dealt hands and three scores.

Conventions shared by all readers:

* ``DrawStep.rinshan`` is derived: a draw right after a kan declaration (dora reveals may sit in
  between) is a replacement draw from the dead wall.
* ``DiscardStep.riichi`` marks the discard that declares riichi; a separate
  :class:`RiichiAcceptedStep` follows it when the discard passed without a ron (the deposit is
  placed), before any call on that discard.
* ``deltas`` are the score changes of the result, with honba and collected riichi sticks, but not
  the 1,000-point deposits of this hand's riichi declarations (those are already in the scores after
  :class:`RiichiAcceptedStep`). ``HandRecord.end_scores`` applies both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from server.engine.events import DrawReason
from server.engine.melds import Meld, MeldType
from server.engine.rules import Ruleset, preset
from server.engine.tiles import Tile, format_tiles, tile_name

ROUND_WIND_NAMES = "ESWN"


class RecordFormat(StrEnum):
    TENHOU6 = "tenhou6"  # tenhou.net/6 JSON
    MJLOG = "mjlog"  # Tenhou's XML record
    MJAI = "mjai"  # mjai JSON lines (Mortal's event schema)
    EVENTS = "events"  # our own engine's event log (server.records.from_events)


@dataclass(frozen=True, slots=True)
class DrawStep:
    seat: int
    tile: Tile
    rinshan: bool = False  # replacement draw after a kan

    def __str__(self) -> str:
        return f"{self.seat}:{'rinshan' if self.rinshan else 'draw'} {tile_name(self.tile)}"


@dataclass(frozen=True, slots=True)
class DiscardStep:
    seat: int
    tile: Tile
    tsumogiri: bool  # the tile just drawn
    riichi: bool = False  # this discard declares riichi

    def __str__(self) -> str:
        flags = (" riichi" if self.riichi else "") + (" tsumogiri" if self.tsumogiri else "")
        return f"{self.seat}:discard {tile_name(self.tile)}{flags}"


@dataclass(frozen=True, slots=True)
class CallStep:
    """A chi, pon or kan of any kind.

    ``tiles`` is the whole meld, sorted (a kakan lists all four). ``called`` is the discard taken for
    chi/pon/daiminkan, the added tile for a kakan and ``None`` for an ankan. ``from_seat`` is the
    discarder for chi/pon/daiminkan and the caller itself for ankan/kakan. ``consumed`` are the tiles
    that leave the caller's concealed hand (2 for chi/pon, 3 daiminkan, 4 ankan, 1 kakan).
    """

    seat: int
    type: MeldType
    tiles: tuple[Tile, ...]
    called: Tile | None
    from_seat: int
    consumed: tuple[Tile, ...]

    @property
    def is_kan(self) -> bool:
        return self.type in (MeldType.DAIMINKAN, MeldType.ANKAN, MeldType.KAKAN)

    def __str__(self) -> str:
        return f"{self.seat}:{self.type} {format_tiles(self.tiles)} from {self.from_seat}"


@dataclass(frozen=True, slots=True)
class DoraStep:
    """A kan dora indicator is turned over (the first indicator is in ``HandRecord``)."""

    indicator: Tile

    def __str__(self) -> str:
        return f"dora {tile_name(self.indicator)}"


@dataclass(frozen=True, slots=True)
class RiichiAcceptedStep:
    seat: int

    def __str__(self) -> str:
        return f"{self.seat}:riichi accepted"


@dataclass(frozen=True, slots=True)
class NorthStep:
    """Three players: ``seat`` sets a north tile aside as a bonus dora (nukidora); its replacement
    draw follows unless another seat wins on it."""

    seat: int

    def __str__(self) -> str:
        return f"{self.seat}:north"


Step = DrawStep | DiscardStep | CallStep | DoraStep | RiichiAcceptedStep | NorthStep


@dataclass(frozen=True, slots=True)
class RecordedYaku:
    id: str  # our id (see server.records.yaku), or the source's name when it has no mapping
    han: int  # 13 per yakuman
    label: str  # as written in the source (Tenhou's Japanese label, mjai name)
    yakuman: bool = False


@dataclass(frozen=True, slots=True)
class Win:
    """One winner's win; a multiple ron gives one per winner, in the order the record lists them
    (Tenhou: from the discarder's right)."""

    seat: int
    from_seat: int  # == seat for tsumo
    win_tile: Tile
    hand: tuple[Tile, ...]  # concealed tiles including the winning tile, sorted
    melds: tuple[Meld, ...]
    han: int | None  # None where the record does not say (mjai)
    fu: int | None  # None where the record does not say (tenhou.net/6 limit hands, mjai)
    points: int | None  # value of the hand itself, before honba and sticks
    limit: str  # "", "mangan", "haneman", "baiman", "sanbaiman", "yakuman", "kazoe_yakuman"
    yaku: tuple[RecordedYaku, ...]
    yakuman: int  # number of yakuman (0 for an ordinary hand)
    dora_indicators: tuple[Tile, ...]
    ura_indicators: tuple[Tile, ...]  # empty unless the winner was in riichi
    deltas: tuple[int, ...]  # this win's score changes (with its honba and sticks)
    pao_seat: int | None = None

    @property
    def tsumo(self) -> bool:
        return self.seat == self.from_seat


@dataclass(frozen=True, slots=True)
class DrawResult:
    """A hand that ended without a winner.

    ``reason`` is EXHAUSTIVE for a wall that ran out (including nagashi mangan, listed in
    ``nagashi``) or the abort that ended the hand. ``tenpai`` is the set of tenpai seats after an
    exhaustive draw, ``None`` where the record does not say. ``revealed`` holds the hands the record
    shows (mjlog ``hai0..3``).
    """

    reason: DrawReason
    deltas: tuple[int, ...]
    tenpai: tuple[int, ...] | None = None
    nagashi: tuple[int, ...] = ()
    revealed: tuple[tuple[Tile, ...] | None, ...] = (None, None, None, None)
    declarer: int | None = None  # the seat that declared kyuushu kyuuhai


@dataclass(frozen=True, slots=True)
class WallSpec:
    """The known tiles of one hand's wall, in the shape ``server.engine.wall.build_wall`` takes."""

    hands_by_seat: tuple[tuple[Tile, ...], ...]
    dealer: int
    live_draws: tuple[Tile, ...]
    rinshan_draws: tuple[Tile, ...]
    dora_indicators: tuple[Tile, ...]
    ura_indicators: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class HandRecord:
    round_wind: int  # 0 east, 1 south, 2 west, 3 north
    kyoku: int  # 0..3 within the round wind
    honba: int
    riichi_sticks: int  # on the table at the start
    dealer: int
    start_scores: tuple[int, ...]
    dealt: tuple[tuple[Tile, ...], ...]  # 13 tiles per seat, indexed by seat, in record order
    dora_indicators: tuple[Tile, ...]  # the first indicator, then every kan dora the record shows
    ura_indicators: tuple[Tile, ...]  # as many as the record shows (only after a riichi win)
    steps: tuple[Step, ...]
    wins: tuple[Win, ...] = ()
    draw: DrawResult | None = None
    complete: bool = True  # the hand reached its recorded result
    problems: tuple[str, ...] = ()
    # Where each step is in the source, then where its result is (mjai: "line 12"); empty when the
    # format has no such positions to give. Only for messages (``jantaku verify``).
    sources: tuple[str, ...] = ()

    @property
    def seats(self) -> int:
        """How many seats play the hand (3 or 4): one dealt hand each."""
        return len(self.dealt)

    @property
    def label(self) -> str:
        """``"E1-0"``: round wind, kyoku (1-based) and honba."""
        return f"{ROUND_WIND_NAMES[self.round_wind % 4]}{self.kyoku + 1}-{self.honba}"

    @property
    def live_draws(self) -> tuple[Tile, ...]:
        """Tiles drawn from the live wall, in order (the engine's wall[52], wall[53], ...)."""
        return tuple(s.tile for s in self.steps if isinstance(s, DrawStep) and not s.rinshan)

    @property
    def rinshan_draws(self) -> tuple[Tile, ...]:
        return tuple(s.tile for s in self.steps if isinstance(s, DrawStep) and s.rinshan)

    @property
    def revealed_dora(self) -> tuple[Tile, ...]:
        """The first indicator and the indicators of the :class:`DoraStep` s, in order."""
        kan_dora = (s.indicator for s in self.steps if isinstance(s, DoraStep))
        return (*self.dora_indicators[:1], *kan_dora)

    @property
    def riichi_seats(self) -> tuple[int, ...]:
        """Seats whose riichi deposit was accepted in this hand, in order."""
        return tuple(s.seat for s in self.steps if isinstance(s, RiichiAcceptedStep))

    @property
    def deltas(self) -> tuple[int, ...]:
        """The result's score changes (sum over the winners), without riichi deposits."""
        out = [0] * len(self.start_scores)
        parts = [w.deltas for w in self.wins] + ([self.draw.deltas] if self.draw else [])
        for part in parts:
            for seat, delta in enumerate(part):
                out[seat] += delta
        return tuple(out)

    @property
    def end_scores(self) -> tuple[int, ...]:
        """Scores after the hand: start scores, minus accepted riichi deposits, plus the deltas."""
        scores = list(self.start_scores)
        for seat in self.riichi_seats:
            scores[seat] -= 1000
        return tuple(s + d for s, d in zip(scores, self.deltas, strict=True))

    def wall_spec(self) -> WallSpec:
        return WallSpec(
            hands_by_seat=self.dealt,
            dealer=self.dealer,
            live_draws=self.live_draws,
            rinshan_draws=self.rinshan_draws,
            dora_indicators=self.dora_indicators,
            ura_indicators=self.ura_indicators,
        )


def _frozen_rules(rules: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(rules))


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A recorded game: the rules it was played under, the players and the hands in order.

    ``rules`` are option overrides of the ``preset`` ruleset that the record states (red fives,
    game length, open tanyao); :meth:`ruleset` builds the :class:`Ruleset`. ``final_scores`` and
    ``final_points`` are the record's own final standings, ``None`` where it has none.
    """

    source: RecordFormat  # the format the record was read from
    preset: str
    rules: Mapping[str, Any] = field(hash=False)
    rule_text: str  # the record's own rule description (mjlog GO type, tenhou.net/6 rule.disp)
    names: tuple[str, ...]
    hands: tuple[HandRecord, ...]
    final_scores: tuple[int, ...] | None = None
    final_points: tuple[float, ...] | None = None
    complete: bool = True
    problems: tuple[str, ...] = ()
    # The record names its rules (an embedded ruleset, or Tenhou's own formats); False: it names
    # none and the reader took the Tenhou preset (an mjai log without a ``ruleset``).
    rules_stated: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.rules, MappingProxyType):
            object.__setattr__(self, "rules", _frozen_rules(self.rules))

    def ruleset(self) -> Ruleset:
        """The preset with the record's rule options applied."""
        base = preset(self.preset)
        return base.with_options(**self.rules) if self.rules else base

    @property
    def all_problems(self) -> tuple[str, ...]:
        """The game's problems, then every hand's problems prefixed by the hand's label."""
        out = list(self.problems)
        for index, hand in enumerate(self.hands):
            out.extend(f"hand {index} ({hand.label}): {p}" for p in hand.problems)
        return tuple(out)
