"""Immutable match state: the values the state machine in :mod:`server.engine.match` moves between.

Everything here is a frozen, slotted dataclass; a transition builds new values with
``dataclasses.replace`` so the hub can persist a step before adopting the new state.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from server.engine.actions import Action
from server.engine.events import Event
from server.engine.melds import Meld
from server.engine.rules import Pao, Ruleset
from server.engine.tiles import Tile
from server.engine.wall import LIVE_TILES


class Phase(StrEnum):
    TURN = "turn"  # ``turn`` seat must discard (or tsumo / kan / riichi / kyuushu kyuuhai)
    CALLS = "calls"  # a discard is out; seats with a ron or call option answer
    CHANKAN = "chankan"  # a kan was declared; seats that may rob it answer
    FINISHED = "finished"  # the match is over


@dataclass(frozen=True, slots=True)
class RiverTile:
    tile: Tile
    tsumogiri: bool
    sideways: bool = False  # the riichi declaration tile (moved to the next discard if called)
    called: bool = False  # taken by another seat's call


@dataclass(frozen=True, slots=True)
class Player:
    hand: tuple[Tile, ...] = ()  # concealed tiles, sorted by tiles.sort_key (includes ``drawn``)
    drawn: Tile | None = None  # the tile drawn this turn (None after a call or between turns)
    melds: tuple[Meld, ...] = ()
    river: tuple[RiverTile, ...] = ()
    discarded_kinds: frozenset[int] = frozenset()  # for furiten: every kind this seat discarded
    riichi: bool = False  # riichi accepted (deposit placed)
    double_riichi: bool = False
    ippatsu: bool = False
    furiten_temp: bool = False  # passed a winning tile since its last discard
    furiten_riichi: bool = False  # passed a winning tile after riichi: furiten for the rest of the hand
    kuikae: frozenset[int] = frozenset()  # kinds that may not be discarded right after a call
    sideways_pending: bool = False  # riichi tile was called: the next discard is laid sideways
    pao_seat: int | None = None  # seat liable (pao) for this player's yakuman
    pao_yakuman: Pao | None = None  # the yakuman whose last set ``pao_seat`` fed

    @property
    def closed(self) -> bool:
        return all(not m.is_open for m in self.melds)


@dataclass(frozen=True, slots=True)
class Window:
    """An open decision window: who may answer with what, and the answers so far."""

    options: tuple[tuple[int, frozenset[Action]], ...]  # (seat, its legal answers incl. Pass)
    answers: tuple[tuple[int, Action], ...] = ()
    tile: Tile = 0  # the discard (CALLS) or the kan tile (CHANKAN)
    from_seat: int = 0  # the discarder / kan declarer
    riichi: bool = False  # the discard declares riichi (deposit only if nobody rons)
    kan: Meld | None = None  # CHANKAN: the meld the kan will become if nobody robs it
    kan_consumed: tuple[Tile, ...] = ()


@dataclass(frozen=True, slots=True)
class HandState:
    """One hand (kyoku) in progress."""

    hand_index: int
    round_wind: int  # 0 east .. 3 north
    kyoku: int  # 0..3; the dealer is seat ``kyoku``
    honba: int
    wall: tuple[Tile, ...]
    salt: bytes
    commitment: str
    players: tuple[Player, Player, Player, Player]
    phase: Phase
    turn: int
    live_drawn: int = 0  # live-wall draws made (the first LIVE_START tiles are dealt, not drawn)
    kans: tuple[int, ...] = ()  # seat of every completed kan, in order (= rinshan draws made)
    dora_revealed: int = 1
    pending_dora: int = 0  # open-kan indicators still to flip after the next discard
    rinshan: bool = False  # the current turn's tile came from the dead wall
    after_call: bool = False  # TURN after chi/pon: discard only
    no_calls: bool = True  # no call and no kan yet this hand (first go-around rules)
    window: Window | None = None

    @property
    def dealer(self) -> int:
        return self.kyoku

    @property
    def live_remaining(self) -> int:
        """Tiles still drawable from the live wall: LIVE_TILES (70) less draws less rinshan draws."""
        return LIVE_TILES - self.live_drawn - len(self.kans)


@dataclass(frozen=True, slots=True)
class MatchState:
    ruleset: Ruleset
    seed: bytes
    injected_walls: tuple[tuple[Tile, ...], ...] | None
    scores: tuple[int, int, int, int]
    riichi_sticks: int
    step: int
    hand: HandState
    finished: bool = False


@dataclass(frozen=True, slots=True)
class Transition:
    """The result of one applied step: the new state and the events it produced (omniscient)."""

    state: MatchState
    events: tuple[Event, ...]
    step: int
