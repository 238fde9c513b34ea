"""Scratch space for one transition: the mutable copy of a match that ``apply`` advances.

:func:`server.engine.match.apply` makes a :class:`Builder` from the input state, lets the rule
modules change it (:mod:`~server.engine.turns`, :mod:`~server.engine.calls`,
:mod:`~server.engine.kans`, :mod:`~server.engine.endings`) and freezes it with :meth:`Builder.finish`.
The builder itself deals, draws, turns dora indicators and opens the next decision window.
"""

from __future__ import annotations

from typing import TypedDict, Unpack

from server.engine import wall as walls
from server.engine.errors import WallError
from server.engine.events import DoraRevealed, Event, RoundStarted, TileDrawn
from server.engine.melds import Meld
from server.engine.options import hand_waits, insert_sorted, turn_options
from server.engine.rules import Pao
from server.engine.state import HandState, MatchState, Phase, Player, RiverTile, Transition, Window
from server.engine.tiles import Tile, kind, sort_key


class HandChanges(TypedDict, total=False):
    """Fields of :class:`HandState` a builder may set (every field; a test keeps them in step)."""

    hand_index: int
    round_wind: int
    kyoku: int
    honba: int
    wall: tuple[Tile, ...]
    salt: bytes
    commitment: str
    players: tuple[Player, ...]
    phase: Phase
    turn: int
    live_drawn: int
    kans: tuple[int, ...]
    dora_revealed: int
    pending_dora: int
    rinshan: bool
    after_call: bool
    no_calls: bool
    window: Window | None
    norths: tuple[int, ...]


class PlayerChanges(TypedDict, total=False):
    """Fields of :class:`Player` a builder may set (every field; a test keeps them in step)."""

    hand: tuple[Tile, ...]
    drawn: Tile | None
    melds: tuple[Meld, ...]
    river: tuple[RiverTile, ...]
    discarded_kinds: frozenset[int]
    riichi: bool
    double_riichi: bool
    ippatsu: bool
    furiten_temp: bool
    furiten_riichi: bool
    kuikae: frozenset[int]
    sideways_pending: bool
    pao_seat: int | None
    pao_yakuman: Pao | None
    norths: int


_SETATTR = object.__setattr__


# Shallow copies of frozen values that only the builder will write to: every field passed to the
# compiled constructor, in field order (a test keeps these in step with the fields).


def _clone_hand(h: HandState) -> HandState:
    return HandState(
        h.hand_index,
        h.round_wind,
        h.kyoku,
        h.honba,
        h.wall,
        h.salt,
        h.commitment,
        h.players,
        h.phase,
        h.turn,
        h.live_drawn,
        h.kans,
        h.dora_revealed,
        h.pending_dora,
        h.rinshan,
        h.after_call,
        h.no_calls,
        h.window,
        h.norths,
    )


def _clone_player(p: Player) -> Player:
    return Player(
        p.hand,
        p.drawn,
        p.melds,
        p.river,
        p.discarded_kinds,
        p.riichi,
        p.double_riichi,
        p.ippatsu,
        p.furiten_temp,
        p.furiten_riichi,
        p.kuikae,
        p.sideways_pending,
        p.pao_seat,
        p.pao_yakuman,
        p.norths,
    )


def _with_hand(p: Player, hand: tuple[Tile, ...], drawn: Tile | None) -> Player:
    """``p`` with another concealed hand and drawn tile, built whole (every field by name)."""
    return Player(
        hand=hand,
        drawn=drawn,
        melds=p.melds,
        river=p.river,
        discarded_kinds=p.discarded_kinds,
        riichi=p.riichi,
        double_riichi=p.double_riichi,
        ippatsu=p.ippatsu,
        furiten_temp=p.furiten_temp,
        furiten_riichi=p.furiten_riichi,
        kuikae=p.kuikae,
        sideways_pending=p.sideways_pending,
        pao_seat=p.pao_seat,
        pao_yakuman=p.pao_yakuman,
        norths=p.norths,
    )


def _probe() -> None:
    """A function that has Python bytecode only when this module is not compiled."""


# Compiled, the builder stores fields of its private copies directly (native stores); pure Python
# goes through object.__setattr__ as frozen dataclasses require (state.py does the same).
_NATIVE = not hasattr(_probe, "__code__")


class Builder:
    """One transition in progress; ``finish`` freezes it into the next state."""

    def __init__(self, state: MatchState) -> None:
        self.ruleset = state.ruleset
        self.state = state
        self.scores = list(state.scores)
        self.sticks = state.riichi_sticks
        # Copy-on-first-write: the builder mutates only its private copies (never the input state's
        # objects), and the copies escape only through ``finish``, frozen from then on. This avoids
        # a dataclasses.replace per field change, which was half of the engine's time.
        self.hand = _clone_hand(state.hand)
        self.players = list(state.hand.players)
        self.seats = len(state.hand.players)  # the placeholder before the first deal has them too
        self.owned = [False] * self.seats
        self.finished = state.finished
        self.events: list[Event] = []

    # -- plumbing

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def set_hand(self, **changes: Unpack[HandChanges]) -> None:
        for name, value in changes.items():
            _SETATTR(self.hand, name, value)

    def set_player(self, seat: int, **changes: Unpack[PlayerChanges]) -> None:
        if not self.owned[seat]:
            self.players[seat] = _clone_player(self.players[seat])
            self.owned[seat] = True
        player = self.players[seat]
        for name, value in changes.items():
            _SETATTR(player, name, value)

    def put_player(self, seat: int, player: Player) -> None:
        """Replace a seat's player by a new value built whole (the hot paths: a discard, a draw)."""
        self.players[seat] = player
        self.owned[seat] = True

    def new_players(self, players: list[Player]) -> None:
        self.players = players
        self.owned = [True] * len(players)

    def frozen_hand(self) -> HandState:
        """The hand as options code reads it (the builder's own copy, with current players)."""
        p = self.players
        players = tuple(p)
        if _NATIVE:
            self.hand.players = players  # type: ignore[misc]
        else:
            _SETATTR(self.hand, "players", players)
        return self.hand

    def finish(self, step: int) -> Transition:
        s = self.scores
        old = self.state
        # Every field spelled out rather than ``dataclasses.replace`` (which looks the fields up
        # by name on every call): one step's largest remaining cost outside the rules themselves.
        state = MatchState(
            ruleset=old.ruleset,
            seed=old.seed,
            injected_walls=old.injected_walls,
            scores=tuple(s),
            riichi_sticks=self.sticks,
            step=step,
            hand=self.frozen_hand(),
            finished=self.finished,
        )
        return Transition(state=state, events=tuple(self.events), step=step)

    def open_window(self, window: Window, phase: Phase, turn: int) -> None:
        h = self.hand
        if _NATIVE:
            h.window = window  # type: ignore[misc]
            h.phase = phase  # type: ignore[misc]
            h.turn = turn  # type: ignore[misc]
        else:
            self.set_hand(window=window, phase=phase, turn=turn)

    # -- dealing and drawing

    def start_hand(self, hand_index: int, round_wind: int, kyoku: int, honba: int) -> None:
        r = self.ruleset
        injected = self.state.injected_walls
        if injected is not None:
            if hand_index >= len(injected):
                raise WallError(f"hand {hand_index} needs a wall but only {len(injected)} were injected")
            wall = injected[hand_index]
        else:
            wall = walls.make_wall(self.state.seed, hand_index, r.red_fives, r.seats)
        salt = walls.make_salt(self.state.seed, hand_index)
        commitment = walls.commitment(salt, wall)
        dealer = kyoku
        hands = walls.dealt_hands(wall, dealer)
        n = self.seats
        self.new_players([Player(hand=tuple(sorted(hands[s], key=sort_key))) for s in range(n)])
        self.hand = HandState(
            hand_index=hand_index,
            round_wind=round_wind,
            kyoku=kyoku,
            honba=honba,
            wall=wall,
            salt=salt,
            commitment=commitment,
            players=(Player(),) * n,
            phase=Phase.TURN,
            turn=dealer,
        )
        self.emit(
            RoundStarted(
                hand_index=hand_index,
                round_wind=round_wind,
                kyoku=kyoku,
                honba=honba,
                riichi_sticks=self.sticks,
                dealer=dealer,
                scores=tuple(self.scores),
                dora_indicator=wall[walls.layout_of(wall).dora_start],
                wall_commitment=commitment,
                hands=tuple(tuple(hands[s]) for s in range(n)),
            )
        )
        self.draw(dealer, rinshan=False)

    def draw(self, seat: int, *, rinshan: bool) -> None:
        h = self.hand
        wall = h.wall
        if rinshan:
            # The kan (or north) is already counted.
            if len(wall) == walls.WALL_TILES and not h.norths:
                tile = wall[walls.RINSHAN_START + len(h.kans) - 1]
            else:
                tile = wall[walls.replacement_position(walls.layout_of(wall), h.replacements - 1)]
            live_drawn = h.live_drawn
        else:
            tile = wall[walls.HAND_TILES * self.seats + h.live_drawn]
            live_drawn = h.live_drawn + 1
        p = self.players[seat]
        self.put_player(seat, _with_hand(p, insert_sorted(p.hand, tile), tile))
        if _NATIVE:
            h.live_drawn = live_drawn  # type: ignore[misc]
            h.rinshan = rinshan  # type: ignore[misc]
            h.after_call = False  # type: ignore[misc]
            h.turn = seat  # type: ignore[misc]
        else:
            self.set_hand(live_drawn=live_drawn, rinshan=rinshan, after_call=False, turn=seat)
        self.emit(TileDrawn(seat=seat, tile=tile, rinshan=rinshan))
        self.prompt_turn(seat)

    def prompt_turn(self, seat: int) -> None:
        opts = turn_options(self.frozen_hand(), self.ruleset, seat, self.scores[seat])
        self.open_window(Window(options=((seat, opts),)), Phase.TURN, seat)

    def reveal_dora(self, count: int = 1) -> None:
        for _ in range(count):
            n = self.hand.dora_revealed
            self.set_hand(dora_revealed=n + 1)
            wall = self.hand.wall
            self.emit(DoraRevealed(indicator=wall[len(wall) - walls.DEAD_WALL + walls.RINSHAN_TILES + n]))

    def flush_pending_dora(self) -> None:
        if self.hand.pending_dora:
            pending = self.hand.pending_dora
            self.set_hand(pending_dora=0)
            self.reveal_dora(pending)

    # -- facts every rule module updates the same way

    def end_every_ippatsu(self) -> None:
        """Any call and any completed kan ends every ippatsu (docs/rules.md#ippatsu)."""
        for s in range(self.seats):
            if self.players[s].ippatsu:
                self.set_player(s, ippatsu=False)

    def mark_passed_winning_tile(self, tile: Tile, discarder: int) -> None:
        """Seats for which ``tile`` completes the hand and who did not win become furiten
        (docs/rules.md#furiten)."""
        for s in range(self.seats):
            if s == discarder:
                continue
            p = self.players[s]
            if kind(tile) in hand_waits(p.hand):
                if p.riichi:
                    self.set_player(s, furiten_riichi=True)
                else:
                    self.set_player(s, furiten_temp=True)
