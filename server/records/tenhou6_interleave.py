"""Interleave the per-seat lists of a tenhou.net/6 hand into one ordered sequence of steps.

tenhou.net/6 keeps, per seat, the tiles taken (draws and called discards) and the tiles given (discards
and in-turn kans), but not how the four lists interleave. :class:`Interleaver` replays the hand from
the dealer's first draw: after each discard, a seat whose next take is a call on exactly that tile
from exactly that seat may call it (pon and kan tried before chi), or else the next seat draws. It is
a depth-first search over those choices; :class:`~server.records.check.HandTracker` prunes readings
in which a tile is played that is not in hand, and a reading is accepted only when every list runs
out exactly where the recorded result can happen (a tsumo or kyuushu right after a draw, a ron or an
abort right after a discard, a chankan right after a kakan, an exhaustive draw on an empty wall).

Placed as Tenhou places them (checked against the same games' mjlog records):

* a riichi deposit (:class:`RiichiAcceptedStep`) right after the riichi discard unless a ron (or a
  triple ron) ends the hand on it;
* a kan dora (:class:`DoraStep`): right after an ankan; after the replacement draw of a
  daiminkan/kakan, just before that seat's next discard or its next kan declaration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.engine.events import DrawReason
from server.engine.melds import MeldType
from server.engine.tiles import Tile, kind
from server.records.assemble import call_step
from server.records.check import HandTracker
from server.records.draw_names import WIN_LABELS, draw_name
from server.records.model import DiscardStep, DoraStep, DrawStep, NorthStep, RiichiAcceptedStep, Step

SEARCH_BUDGET = 20000  # replay actions per hand before giving up on an ambiguous hand


class NoReadingError(Exception):
    """No interleaving of the lists fits (internal: the reader turns it into a hand problem)."""


@dataclass(frozen=True, slots=True)
class CallText:
    type: MeldType
    tiles: tuple[Tile, ...]  # as written, the marked tile included
    marked: int  # index in ``tiles`` of the tile after the letter
    from_offset: int  # 3 = left, 2 = across, 1 = right (0 for ankan/kakan)


@dataclass
class SeatLists:
    dealt: tuple[Tile, ...]
    takes: list[Tile | CallText]
    discards: list[tuple[str, Any]]  # ("tile", face) | ("tsumogiri", None) | ("riichi", face|None)
    # | ("kan", CallText) | ("none", None) | ("north", None): a north set aside (three players)


@dataclass
class ReplayState:
    tracker: HandTracker
    take: list[int]
    drop: list[int]
    steps: list[Step] = field(default_factory=list)
    pending_dora: int = 0
    revealed: int = 0

    def copy(self) -> ReplayState:
        return ReplayState(
            self.tracker.copy(),
            list(self.take),
            list(self.drop),
            list(self.steps),
            self.pending_dora,
            self.revealed,
        )


def _from_matches(written: int, caller: int, discarder: int, seats: int) -> bool:
    """Whether a call written as taken from ``written`` (3 left, 2 across, 1 right) fits the
    discarder. With three players the places count round four seats as Tenhou's mjlog does (seat 2
    takes from seat 0 "across", seat 1 from seat 0 "left"): the discarder is ``caller + written``
    modulo 4."""
    if seats == 3:
        return (caller + written) % 4 == discarder
    return written == (discarder - caller) % seats


class Interleaver:
    """Interleave the per-seat lists into one ordered hand (a depth-first search, see module doc)."""

    def __init__(
        self, seats: list[SeatLists], result: list[Any], dora: tuple[Tile, ...], dealer: int
    ) -> None:
        self.seats, self.result, self.dora, self.dealer = seats, result, dora, dealer
        self.notes: list[str] = []
        self.budget = SEARCH_BUDGET
        self.best: tuple[int, str] = (-1, "no reading fits")

    def run(self) -> ReplayState:
        n = len(self.seats)
        start = ReplayState(HandTracker([s.dealt for s in self.seats], self.dealer), [0] * n, [0] * n)
        stack: list[tuple[ReplayState, tuple[Any, ...]]] = [(start, ("draw", self.dealer, False))]
        while stack:
            state, action = stack.pop()
            while True:
                self.budget -= 1
                if self.budget < 0:
                    raise NoReadingError(f"too many possible readings; best attempt failed: {self.best[1]}")
                try:
                    outcome = self._do(state, action)
                except NoReadingError as exc:
                    if len(state.steps) > self.best[0]:
                        self.best = (len(state.steps), f"after {len(state.steps)} steps: {exc}")
                    break
                if outcome is None:
                    return self._finish(state)
                first, *others = outcome
                stack.extend((state.copy(), alt) for alt in reversed(others))
                action = first
        raise NoReadingError(self.best[1])

    def _finish(self, state: ReplayState) -> ReplayState:
        if state.revealed + 1 != len(self.dora):
            self.notes.append(
                f"{len(self.dora)} dora indicators listed, {state.revealed + 1} revealed in play"
            )
        return state

    def _apply(self, state: ReplayState, step: Step) -> None:
        error = state.tracker.apply(step)
        if error:
            raise NoReadingError(error)
        state.steps.append(step)

    def _reveal(self, state: ReplayState, count: int) -> None:
        for _ in range(count):
            index = state.revealed + 1
            if index < len(self.dora):
                self._apply(state, DoraStep(self.dora[index]))
            state.revealed += 1

    def _next_take(self, state: ReplayState, seat: int) -> Tile | CallText | None:
        takes = self.seats[seat].takes
        return takes[state.take[seat]] if state.take[seat] < len(takes) else None

    def _next_drop(self, state: ReplayState, seat: int) -> tuple[str, Any] | None:
        drops = self.seats[seat].discards
        return drops[state.drop[seat]] if state.drop[seat] < len(drops) else None

    def _exhausted(self, state: ReplayState) -> bool:
        return all(
            state.take[s] == len(self.seats[s].takes) and state.drop[s] == len(self.seats[s].discards)
            for s in range(len(self.seats))
        )

    def _do(self, state: ReplayState, action: tuple[Any, ...]) -> list[tuple[Any, ...]] | None:
        """Perform one action; return the next actions (preferred first) or ``None`` at the end."""
        kind_, seat = action[0], action[1]
        if kind_ == "draw":
            take = self._next_take(state, seat)
            if not isinstance(take, int):
                raise NoReadingError(f"seat {seat} should draw but its takes hold {take!r}")
            state.take[seat] += 1
            self._apply(state, DrawStep(seat, take, rinshan=action[2]))
            return [("act", seat)]
        if kind_ in ("act", "discard"):
            return self._act(state, seat, after_call=kind_ == "discard")
        if kind_ == "call":
            return self._call(state, seat, action[2])
        return self._claim(state, seat)

    def _act(self, state: ReplayState, seat: int, *, after_call: bool) -> list[tuple[Any, ...]] | None:
        """The seat has just drawn (or called chi/pon, ``after_call``): discard, kan, or the end."""
        drop = self._next_drop(state, seat)
        if drop is None:
            if not after_call and self._exhausted(state) and self._may_end(state, "draw", seat):
                return None
            raise NoReadingError(f"seat {seat} has no discard after its draw")
        state.drop[seat] += 1
        what, value = drop
        if what == "kan":
            return self._kan(state, seat, value)
        if what == "north":
            self._apply(state, NorthStep(seat))
            # A pending open-kan indicator is turned once the north stands, as on Tenhou.
            if self._exhausted(state) and self._may_end(state, "kan", seat):
                return None  # won on: a ron on the north
            self._reveal(state, state.pending_dora)
            state.pending_dora = 0
            return [("draw", seat, True)]
        if what == "none":
            raise NoReadingError(f"seat {seat} has an empty discard slot after a draw")
        drawn = state.tracker.last_draw
        tsumogiri = what == "tsumogiri" or (what == "riichi" and value is None)
        tile = drawn if tsumogiri else value
        if tile is None:
            raise NoReadingError(f"seat {seat} discards the drawn tile without having drawn")
        self._reveal(state, state.pending_dora)
        state.pending_dora = 0
        self._apply(state, DiscardStep(seat, tile, tsumogiri, riichi=what == "riichi"))
        return [("claim", seat)]

    def _kan(self, state: ReplayState, seat: int, call: CallText) -> list[tuple[Any, ...]] | None:
        if call.type is MeldType.ANKAN:
            step = call_step(seat, MeldType.ANKAN, None, seat, call.tiles)
        else:
            pon = next(
                (
                    m
                    for m in state.tracker.melds[seat]
                    if m.type is MeldType.PON and m.kind == kind(call.tiles[0])
                ),
                None,
            )
            if pon is None:
                raise NoReadingError(f"seat {seat} adds to a pon it does not have")
            rest = list(call.tiles)
            for tile in pon.tiles:
                if tile in rest:
                    rest.remove(tile)
            added = rest[0] if len(rest) == 1 else call.tiles[call.marked]
            step = call_step(seat, MeldType.KAKAN, added, seat, [added], pon_tiles=pon.tiles)
        self._apply(state, step)
        self._reveal(state, state.pending_dora)
        state.pending_dora = 0
        if call.type is MeldType.ANKAN:
            self._reveal(state, 1)
        else:
            state.pending_dora = 1
        if self._exhausted(state) and self._may_end(state, "kan", seat):
            return None  # robbed: chankan
        return [("draw", seat, True)]

    def _claim(self, state: ReplayState, seat: int) -> list[tuple[Any, ...]] | None:
        discard = state.steps[-1]
        assert isinstance(discard, DiscardStep)
        if self._exhausted(state):
            if not self._may_end(state, "discard", seat):
                raise NoReadingError("the lists run out but the result does not fit the last discard")
            if discard.riichi and not self._ends_by_ron():
                self._apply(state, RiichiAcceptedStep(seat))
            return None
        if discard.riichi:
            self._apply(state, RiichiAcceptedStep(seat))
        options: list[tuple[Any, ...]] = []
        n = len(self.seats)
        for offset in range(1, n):
            caller = (seat + offset) % n
            take = self._next_take(state, caller)
            if (
                isinstance(take, CallText)
                and _from_matches(take.from_offset, caller, seat, n)
                and take.tiles[take.marked] == discard.tile
            ):
                options.append(("call", caller, take))
        options.sort(key=lambda option: option[2].type is MeldType.CHI)
        if isinstance(self._next_take(state, (seat + 1) % n), int):
            options.append(("draw", (seat + 1) % n, False))
        if not options:
            raise NoReadingError(f"nobody can take the turn after seat {seat}'s discard")
        return options

    def _call(self, state: ReplayState, seat: int, call: CallText) -> list[tuple[Any, ...]] | None:
        last = state.steps[-1]
        discarder = last.seat if isinstance(last, DiscardStep | RiichiAcceptedStep) else seat
        called = call.tiles[call.marked]
        consumed = [t for i, t in enumerate(call.tiles) if i != call.marked]
        state.take[seat] += 1
        self._apply(state, call_step(seat, call.type, called, discarder, consumed))
        if call.type is not MeldType.DAIMINKAN:
            return [("discard", seat)]
        drop = self._next_drop(state, seat)
        if drop is None or drop[0] != "none":
            raise NoReadingError(f"seat {seat}'s daiminkan is not followed by an empty discard slot")
        state.drop[seat] += 1
        self._reveal(state, state.pending_dora)
        state.pending_dora = 1
        return [("draw", seat, True)]

    def _ends_by_ron(self) -> bool:
        label = self.result[0]
        name = draw_name(label)
        return label in WIN_LABELS or (name is not None and name.reason is DrawReason.SANCHAHOU)

    def _may_end(self, state: ReplayState, after: str, seat: int) -> bool:
        label, tracker = self.result[0], state.tracker
        if label in WIN_LABELS:
            winners = [info for info in self.result[2::2] if isinstance(info, list) and len(info) >= 2]
            if not winners:
                return False
            if after == "draw":
                return len(winners) == 1 and winners[0][0] == winners[0][1] == seat
            return all(info[1] == seat and info[0] != seat for info in winners)
        name = draw_name(label)
        if name is None:
            return True
        reason = name.reason
        if reason is DrawReason.KYUUSHU_KYUUHAI:
            return after == "draw"
        if reason is DrawReason.EXHAUSTIVE:
            return after == "discard" and tracker.live_left == 0
        return after == "discard"
