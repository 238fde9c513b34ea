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
from server.engine.wall import DEAD_WALL, HAND_TILES

# Hot values spell out their ``__init__`` (same parameters and defaults as the fields; a test keeps
# them in step): the one ``dataclass`` generates is interpreted Python even in the compiled build.
# Compiled (``_NATIVE``), the fields are stored directly (frozen applies to later assignments, made
# through the class's ``__setattr__``); pure Python sets them as dataclasses do.
_SET = object.__setattr__


def _probe() -> None:
    """A function that has Python bytecode only when this module is not compiled."""


_NATIVE = not hasattr(_probe, "__code__")
_NO_KINDS: frozenset[int] = frozenset()


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

    def __init__(
        self,
        tile: Tile,
        tsumogiri: bool,
        sideways: bool = False,
        called: bool = False,
    ) -> None:
        if _NATIVE:
            self.tile = tile  # type: ignore[misc]
            self.tsumogiri = tsumogiri  # type: ignore[misc]
            self.sideways = sideways  # type: ignore[misc]
            self.called = called  # type: ignore[misc]
        else:
            _SET(self, "tile", tile)
            _SET(self, "tsumogiri", tsumogiri)
            _SET(self, "sideways", sideways)
            _SET(self, "called", called)


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
    norths: int = 0  # north tiles declared aside as bonus dora (three seats, Ruleset.north_bonus)

    def __init__(  # noqa: PLR0917 - the dataclass's own (positional) signature
        self,
        hand: tuple[Tile, ...] = (),
        drawn: Tile | None = None,
        melds: tuple[Meld, ...] = (),
        river: tuple[RiverTile, ...] = (),
        discarded_kinds: frozenset[int] = _NO_KINDS,
        riichi: bool = False,
        double_riichi: bool = False,
        ippatsu: bool = False,
        furiten_temp: bool = False,
        furiten_riichi: bool = False,
        kuikae: frozenset[int] = _NO_KINDS,
        sideways_pending: bool = False,
        pao_seat: int | None = None,
        pao_yakuman: Pao | None = None,
        norths: int = 0,
    ) -> None:
        if _NATIVE:
            self.hand = hand  # type: ignore[misc]
            self.drawn = drawn  # type: ignore[misc]
            self.melds = melds  # type: ignore[misc]
            self.river = river  # type: ignore[misc]
            self.discarded_kinds = discarded_kinds  # type: ignore[misc]
            self.riichi = riichi  # type: ignore[misc]
            self.double_riichi = double_riichi  # type: ignore[misc]
            self.ippatsu = ippatsu  # type: ignore[misc]
            self.furiten_temp = furiten_temp  # type: ignore[misc]
            self.furiten_riichi = furiten_riichi  # type: ignore[misc]
            self.kuikae = kuikae  # type: ignore[misc]
            self.sideways_pending = sideways_pending  # type: ignore[misc]
            self.pao_seat = pao_seat  # type: ignore[misc]
            self.pao_yakuman = pao_yakuman  # type: ignore[misc]
            self.norths = norths  # type: ignore[misc]
        else:
            _SET(self, "hand", hand)
            _SET(self, "drawn", drawn)
            _SET(self, "melds", melds)
            _SET(self, "river", river)
            _SET(self, "discarded_kinds", discarded_kinds)
            _SET(self, "riichi", riichi)
            _SET(self, "double_riichi", double_riichi)
            _SET(self, "ippatsu", ippatsu)
            _SET(self, "furiten_temp", furiten_temp)
            _SET(self, "furiten_riichi", furiten_riichi)
            _SET(self, "kuikae", kuikae)
            _SET(self, "sideways_pending", sideways_pending)
            _SET(self, "pao_seat", pao_seat)
            _SET(self, "pao_yakuman", pao_yakuman)
            _SET(self, "norths", norths)

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

    def __init__(  # noqa: PLR0917 - the dataclass's own (positional) signature
        self,
        options: tuple[tuple[int, frozenset[Action]], ...],
        answers: tuple[tuple[int, Action], ...] = (),
        tile: Tile = 0,
        from_seat: int = 0,
        riichi: bool = False,
        kan: Meld | None = None,
        kan_consumed: tuple[Tile, ...] = (),
    ) -> None:
        if _NATIVE:
            self.options = options  # type: ignore[misc]
            self.answers = answers  # type: ignore[misc]
            self.tile = tile  # type: ignore[misc]
            self.from_seat = from_seat  # type: ignore[misc]
            self.riichi = riichi  # type: ignore[misc]
            self.kan = kan  # type: ignore[misc]
            self.kan_consumed = kan_consumed  # type: ignore[misc]
        else:
            _SET(self, "options", options)
            _SET(self, "answers", answers)
            _SET(self, "tile", tile)
            _SET(self, "from_seat", from_seat)
            _SET(self, "riichi", riichi)
            _SET(self, "kan", kan)
            _SET(self, "kan_consumed", kan_consumed)


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
    players: tuple[Player, ...]
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
    norths: tuple[int, ...] = ()  # seat of every north declared aside, in order (replacement draws)

    def __init__(  # noqa: PLR0917 - the dataclass's own (positional) signature
        self,
        hand_index: int,
        round_wind: int,
        kyoku: int,
        honba: int,
        wall: tuple[Tile, ...],
        salt: bytes,
        commitment: str,
        players: tuple[Player, ...],
        phase: Phase,
        turn: int,
        live_drawn: int = 0,
        kans: tuple[int, ...] = (),
        dora_revealed: int = 1,
        pending_dora: int = 0,
        rinshan: bool = False,
        after_call: bool = False,
        no_calls: bool = True,
        window: Window | None = None,
        norths: tuple[int, ...] = (),
    ) -> None:
        if _NATIVE:
            self.hand_index = hand_index  # type: ignore[misc]
            self.round_wind = round_wind  # type: ignore[misc]
            self.kyoku = kyoku  # type: ignore[misc]
            self.honba = honba  # type: ignore[misc]
            self.wall = wall  # type: ignore[misc]
            self.salt = salt  # type: ignore[misc]
            self.commitment = commitment  # type: ignore[misc]
            self.players = players  # type: ignore[misc]
            self.phase = phase  # type: ignore[misc]
            self.turn = turn  # type: ignore[misc]
            self.live_drawn = live_drawn  # type: ignore[misc]
            self.kans = kans  # type: ignore[misc]
            self.dora_revealed = dora_revealed  # type: ignore[misc]
            self.pending_dora = pending_dora  # type: ignore[misc]
            self.rinshan = rinshan  # type: ignore[misc]
            self.after_call = after_call  # type: ignore[misc]
            self.no_calls = no_calls  # type: ignore[misc]
            self.window = window  # type: ignore[misc]
            self.norths = norths  # type: ignore[misc]
        else:
            _SET(self, "hand_index", hand_index)
            _SET(self, "round_wind", round_wind)
            _SET(self, "kyoku", kyoku)
            _SET(self, "honba", honba)
            _SET(self, "wall", wall)
            _SET(self, "salt", salt)
            _SET(self, "commitment", commitment)
            _SET(self, "players", players)
            _SET(self, "phase", phase)
            _SET(self, "turn", turn)
            _SET(self, "live_drawn", live_drawn)
            _SET(self, "kans", kans)
            _SET(self, "dora_revealed", dora_revealed)
            _SET(self, "pending_dora", pending_dora)
            _SET(self, "rinshan", rinshan)
            _SET(self, "after_call", after_call)
            _SET(self, "no_calls", no_calls)
            _SET(self, "window", window)
            _SET(self, "norths", norths)

    @property
    def dealer(self) -> int:
        return self.kyoku

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def replacements(self) -> int:
        """Replacement draws made: one per kan and one per north declared aside."""
        return len(self.kans) + len(self.norths)

    @property
    def live_remaining(self) -> int:
        """Tiles still drawable from the live wall: its size (70; 55 for three seats) less draws
        less replacement draws."""
        # The wall less the dead wall and the deal (70 = 136 - 14 - 52; 55 = 108 - 14 - 39), without
        # a layout lookup: every option check of every step asks this.
        dealt = HAND_TILES * len(self.players)
        return len(self.wall) - DEAD_WALL - dealt - self.live_drawn - len(self.kans) - len(self.norths)


@dataclass(frozen=True, slots=True)
class MatchState:
    ruleset: Ruleset
    seed: bytes
    injected_walls: tuple[tuple[Tile, ...], ...] | None
    scores: tuple[int, ...]
    riichi_sticks: int
    step: int
    hand: HandState
    finished: bool = False

    def __init__(  # noqa: PLR0917 - the dataclass's own (positional) signature
        self,
        ruleset: Ruleset,
        seed: bytes,
        injected_walls: tuple[tuple[Tile, ...], ...] | None,
        scores: tuple[int, ...],
        riichi_sticks: int,
        step: int,
        hand: HandState,
        finished: bool = False,
    ) -> None:
        if _NATIVE:
            self.ruleset = ruleset  # type: ignore[misc]
            self.seed = seed  # type: ignore[misc]
            self.injected_walls = injected_walls  # type: ignore[misc]
            self.scores = scores  # type: ignore[misc]
            self.riichi_sticks = riichi_sticks  # type: ignore[misc]
            self.step = step  # type: ignore[misc]
            self.hand = hand  # type: ignore[misc]
            self.finished = finished  # type: ignore[misc]
        else:
            _SET(self, "ruleset", ruleset)
            _SET(self, "seed", seed)
            _SET(self, "injected_walls", injected_walls)
            _SET(self, "scores", scores)
            _SET(self, "riichi_sticks", riichi_sticks)
            _SET(self, "step", step)
            _SET(self, "hand", hand)
            _SET(self, "finished", finished)


@dataclass(frozen=True, slots=True)
class Transition:
    """The result of one applied step: the new state and the events it produced (omniscient)."""

    state: MatchState
    events: tuple[Event, ...]
    step: int

    def __init__(
        self,
        state: MatchState,
        events: tuple[Event, ...],
        step: int,
    ) -> None:
        if _NATIVE:
            self.state = state  # type: ignore[misc]
            self.events = events  # type: ignore[misc]
            self.step = step  # type: ignore[misc]
        else:
            _SET(self, "state", state)
            _SET(self, "events", events)
            _SET(self, "step", step)
