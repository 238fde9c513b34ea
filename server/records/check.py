"""Consistency of a recorded hand: turn order, tiles in hand, tile conservation, result shape.

:class:`HandTracker` follows the steps of one hand the way a table would (whose turn it is, which
tiles each seat holds, which discard may be called) and says what is wrong with a step instead of
raising. The tenhou.net/6 reader uses it to choose between readings of its per-seat lists; every
reader uses :func:`check_hand` on the finished hand. It checks the *shape* of a hand, not the rules:
whether a call or a win was legal is for the engine's replay to decide.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from server.engine.events import DrawReason
from server.engine.melds import Meld, MeldType
from server.engine.tiles import FIVE_KINDS, NORTH, RED_FIVES, Tile, format_tiles, is_terminal_or_honor, kind
from server.engine.tiles import sorted_tiles as _sorted
from server.records.model import (
    CallStep,
    DiscardStep,
    DoraStep,
    DrawStep,
    HandRecord,
    NorthStep,
    RiichiAcceptedStep,
    Step,
    Win,
)

LIVE_WALL = 70  # 136 - 52 dealt - 14 dead wall; every kan moves one live tile to the dead wall
LIVE_WALLS = {4: LIVE_WALL, 3: 55}  # three players: 108 - 39 dealt - 14; a north moves one too

DRAW = "draw"  # the seat must draw from the live wall
ACT = "act"  # the seat has just drawn: discard, declare a kan, or the hand ends (tsumo, kyuushu)
DISCARD = "discard"  # the seat has just called chi/pon: it must discard
RINSHAN = "rinshan"  # the seat declared a kan or set a north aside: it draws a replacement tile
# (or is robbed: chankan, or a ron on the north)
CLAIM = "claim"  # the seat has discarded: a call on it, or the next seat draws (or a ron ends it)


def _meld_key(meld: Meld) -> tuple[str, tuple[Tile, ...]]:
    return (str(meld.type), _sorted(meld.tiles))


class HandTracker:
    """The table state of one hand, advanced one recorded step at a time."""

    __slots__ = (
        "concealed",
        "dora_reveals",
        "kans",
        "last_discard",
        "last_kan",
        "live",
        "melds",
        "norths",
        "pending_riichi",
        "phase",
        "riichi",
        "rinshan",
        "river_called",
        "rivers",
        "seat",
        "seats",
    )

    def __init__(self, dealt: Sequence[Sequence[Tile]], dealer: int) -> None:
        self.seats = len(dealt)
        self.concealed: list[list[Tile]] = [list(h) for h in dealt]
        self.melds: list[list[Meld]] = [[] for _ in dealt]
        self.rivers: list[list[Tile]] = [[] for _ in dealt]
        self.river_called = [False] * self.seats
        self.riichi = [False] * self.seats
        self.norths = 0
        self.phase = DRAW
        self.seat = dealer
        self.last_discard: Tile | None = None
        self.last_kan: CallStep | None = None
        self.pending_riichi = False
        self.kans = 0
        self.dora_reveals = 0
        self.live = 0
        self.rinshan = 0

    def copy(self) -> HandTracker:
        other = HandTracker.__new__(HandTracker)
        other.concealed = [list(h) for h in self.concealed]
        other.melds = [list(m) for m in self.melds]
        other.rivers = [list(r) for r in self.rivers]
        other.river_called = list(self.river_called)
        other.riichi = list(self.riichi)
        for name in (
            "phase",
            "seat",
            "last_discard",
            "last_kan",
            "pending_riichi",
            "kans",
            "norths",
            "seats",
        ):
            setattr(other, name, getattr(self, name))
        for name in ("dora_reveals", "live", "rinshan"):
            setattr(other, name, getattr(self, name))
        return other

    @property
    def last_draw(self) -> Tile | None:
        """The tile the seat to act has just drawn (only in the ACT phase)."""
        return self.concealed[self.seat][-1] if self.phase == ACT else None

    def apply(self, step: Step) -> str | None:
        """Advance by one step; return what is wrong with it (state unchanged then) or ``None``."""
        match step:
            case DrawStep():
                return self._draw(step)
            case DiscardStep():
                return self._discard(step)
            case CallStep():
                return self._call(step)
            case NorthStep():
                return self._north(step)
            case DoraStep():
                if self.dora_reveals >= self.kans:
                    return f"dora {format_tiles([step.indicator])} revealed without a kan"
                self.dora_reveals += 1
                return None
            case RiichiAcceptedStep():
                if self.phase != CLAIM or self.seat != step.seat or not self.pending_riichi:
                    return f"riichi of seat {step.seat} accepted without its riichi discard"
                self.pending_riichi = False
                return None

    def _draw(self, step: DrawStep) -> str | None:
        if step.rinshan:
            if self.phase != RINSHAN or step.seat != self.seat:
                return f"rinshan draw by seat {step.seat} without a kan"
            self.rinshan += 1
        else:
            expected = (self.seat + 1) % self.seats if self.phase == CLAIM else self.seat
            if self.phase not in (DRAW, CLAIM) or step.seat != expected:
                return f"seat {step.seat} draws out of turn ({self.phase} of seat {self.seat})"
            if self.live_left <= 0:
                return "draw from an exhausted live wall"
            if self.phase == CLAIM and self.pending_riichi:
                return f"riichi of seat {self.seat} was neither accepted nor ronned"
            self.live += 1
        self.concealed[step.seat].append(step.tile)
        self.phase, self.seat, self.pending_riichi = ACT, step.seat, False
        return None

    def _discard(self, step: DiscardStep) -> str | None:
        if self.phase not in (ACT, DISCARD) or step.seat != self.seat:
            return f"seat {step.seat} discards out of turn ({self.phase} of seat {self.seat})"
        hand = self.concealed[step.seat]
        if step.tsumogiri and (self.phase != ACT or hand[-1] != step.tile):
            return f"tsumogiri of {format_tiles([step.tile])} by seat {step.seat}, not the tile drawn"
        if step.tile not in hand:
            return f"seat {step.seat} discards {format_tiles([step.tile])} not in hand {format_tiles(hand)}"
        if step.riichi and self.riichi[step.seat]:
            return f"seat {step.seat} declares riichi twice"
        if step.tsumogiri:
            hand.pop()
        else:
            hand.remove(step.tile)
        self.rivers[step.seat].append(step.tile)
        self.riichi[step.seat] |= step.riichi
        self.phase, self.last_discard, self.pending_riichi = CLAIM, step.tile, step.riichi
        return None

    @property
    def live_left(self) -> int:
        """Live-wall tiles not drawn yet: each kan and each north takes one as a replacement."""
        return LIVE_WALLS[self.seats] - self.live - self.kans - self.norths

    def _north(self, step: NorthStep) -> str | None:
        if self.seats != 3:
            return f"seat {step.seat} sets a north aside in a four-player hand"
        if self.phase != ACT or step.seat != self.seat:
            return f"north by seat {step.seat} out of turn"
        error = self._take(step.seat, (NORTH,))
        if error:
            return error
        self.norths += 1
        self.phase, self.last_kan, self.pending_riichi = RINSHAN, None, False
        return None

    def _call(self, step: CallStep) -> str | None:
        seat = step.seat
        if step.is_kan and self.kans >= 4:
            return "a fifth kan"
        if step.type in (MeldType.CHI, MeldType.PON, MeldType.DAIMINKAN):
            if self.phase != CLAIM or step.from_seat != self.seat or seat == self.seat:
                return f"seat {seat} calls {step.type} without a discard of seat {step.from_seat} to call"
            if step.called != self.last_discard:
                return f"{step.type} of {_name(step.called)} but the discard is {_name(self.last_discard)}"
            if step.type is MeldType.CHI and seat != (self.seat + 1) % self.seats:
                return f"chi by seat {seat} from seat {self.seat}, not its left"
            need = {MeldType.CHI: 2, MeldType.PON: 2, MeldType.DAIMINKAN: 3}[step.type]
            shape = _shape_error(step, need)
            if shape or self.pending_riichi:
                return shape or "call before the riichi deposit was accepted"
            error = self._take(seat, step.consumed)
            if error:
                return error
            self.rivers[step.from_seat].pop()
            self.river_called[step.from_seat] = True
            self.melds[seat].append(Meld(step.type, _sorted(step.tiles), step.called, step.from_seat))
        elif step.type is MeldType.ANKAN:
            if self.phase != ACT or seat != self.seat:
                return f"ankan by seat {seat} out of turn"
            if len(step.consumed) != 4 or len({kind(t) for t in step.consumed}) != 1:
                return f"ankan of {format_tiles(step.consumed)} is not four of a kind"
            error = self._take(seat, step.consumed)
            if error:
                return error
            self.melds[seat].append(Meld(MeldType.ANKAN, _sorted(step.consumed), None, seat))
        else:  # KAKAN
            if self.phase != ACT or seat != self.seat or step.called is None:
                return f"kakan by seat {seat} out of turn"
            pons = [m for m in self.melds[seat] if m.type is MeldType.PON and m.kind == kind(step.called)]
            if not pons:
                return f"kakan of {_name(step.called)} by seat {seat} without a pon"
            error = self._take(seat, (step.called,))
            if error:
                return error
            pon = pons[0]
            tiles = _sorted((*pon.tiles, step.called))
            kakan = Meld(MeldType.KAKAN, tiles, pon.called, pon.from_seat, step.called)
            self.melds[seat][self.melds[seat].index(pon)] = kakan
        if step.is_kan:
            self.kans += 1
            self.phase, self.last_kan = RINSHAN, step
        else:
            self.phase = DISCARD
        self.seat, self.pending_riichi = seat, False
        return None

    def _take(self, seat: int, tiles: Iterable[Tile]) -> str | None:
        hand = self.concealed[seat]
        remaining = list(hand)
        for tile in tiles:
            if tile not in remaining:
                return f"seat {seat} has no {_name(tile)} to call with (hand {format_tiles(hand)})"
            remaining.remove(tile)
        self.concealed[seat] = remaining
        return None

    def nagashi_seats(self) -> tuple[int, ...]:
        """Seats whose whole river is terminals and honors, none of it called (nagashi mangan)."""
        return tuple(
            seat
            for seat in range(self.seats)
            if self.rivers[seat]
            and not self.river_called[seat]
            and all(is_terminal_or_honor(kind(t)) for t in self.rivers[seat])
        )

    def winning_hand(self, seat: int, from_seat: int) -> tuple[Tile, tuple[Tile, ...]] | None:
        """The winning tile and the winner's concealed tiles with it, if the state allows that win."""
        hand = list(self.concealed[seat])
        if seat == from_seat:
            if self.phase != ACT or self.seat != seat:
                return None
            return hand[-1], _sorted(hand)
        if self.phase == CLAIM and self.seat == from_seat and self.last_discard is not None:
            return self.last_discard, _sorted((*hand, self.last_discard))
        if self.phase == RINSHAN and self.seat == from_seat and self.last_kan is not None:
            kan = self.last_kan  # chankan: robbing the added tile (or, for kokushi, an ankan)
            robbed = kan.called if kan.type is MeldType.KAKAN and kan.called is not None else kan.tiles[0]
            return robbed, _sorted((*hand, robbed))
        if self.phase == RINSHAN and self.seat == from_seat:  # a ron on a north set aside
            return NORTH, _sorted((*hand, NORTH))
        return None

    def win_problems(self, win: Win) -> list[str]:
        """What does not fit for ``win`` ending the hand in the current state."""
        out: list[str] = []
        hand = list(self.concealed[win.seat])
        if win.tsumo:
            if self.phase != ACT or self.seat != win.seat:
                return [f"tsumo by seat {win.seat} but it has not just drawn"]
            if hand[-1] != win.win_tile:
                out.append(f"tsumo on {_name(win.win_tile)} but seat {win.seat} drew {_name(hand[-1])}")
        elif self.phase == CLAIM and self.seat == win.from_seat:
            if self.last_discard != win.win_tile:
                out.append(f"ron on {_name(win.win_tile)} but the discard is {_name(self.last_discard)}")
            hand.append(win.win_tile)
        elif self.phase == RINSHAN and self.seat == win.from_seat and self.last_kan is not None:
            kan = self.last_kan  # chankan: robbing the added tile (or, for kokushi, an ankan)
            robbed = kan.called if kan.type is MeldType.KAKAN else kan.tiles[0]
            if robbed is None or kind(robbed) != kind(win.win_tile):
                out.append(f"chankan on {_name(win.win_tile)} but the kan is {format_tiles(kan.tiles)}")
            hand.append(win.win_tile)
        elif self.phase == RINSHAN and self.seat == win.from_seat:  # a ron on a north set aside
            if win.win_tile != NORTH:
                out.append(f"ron on {_name(win.win_tile)} but seat {win.from_seat} set a north aside")
            hand.append(win.win_tile)
        else:
            return [f"ron by seat {win.seat} from seat {win.from_seat}, who has not just discarded"]
        if win.hand and _sorted(win.hand) != _sorted(hand):
            out.append(f"winning hand {format_tiles(win.hand)} but seat holds {format_tiles(_sorted(hand))}")
        if sorted(map(_meld_key, win.melds)) != sorted(map(_meld_key, self.melds[win.seat])):
            out.append(f"winner's melds {list(map(str, win.melds))} differ from the calls made")
        return out


def _name(tile: Tile | None) -> str:
    return "nothing" if tile is None else format_tiles([tile])


def _shape_error(step: CallStep, consumed: int) -> str | None:
    if len(step.consumed) != consumed or step.called is None:
        return f"{step.type} must use {consumed} tiles from the hand, got {format_tiles(step.consumed)}"
    kinds = sorted(kind(t) for t in (*step.consumed, step.called))
    if step.type is MeldType.CHI:
        ok = kinds[0] < 27 and kinds[0] // 9 == kinds[2] // 9 and kinds == list(range(kinds[0], kinds[0] + 3))
    else:
        ok = len(set(kinds)) == 1
    return None if ok else f"{step.type} of {format_tiles((*step.consumed, step.called))} has the wrong shape"


def conservation_problems(hand: HandRecord, red_fives: Sequence[int]) -> list[str]:
    """Every known tile of the hand must fit in the one set of 136 (with ``red_fives`` reds per suit)."""
    seen: Counter[Tile] = Counter()
    for dealt in hand.dealt:
        seen.update(dealt)
    seen.update(s.tile for s in hand.steps if isinstance(s, DrawStep))
    seen.update(hand.dora_indicators)
    seen.update(hand.ura_indicators)
    out: list[str] = []
    by_kind: Counter[int] = Counter()
    for tile, n in seen.items():
        by_kind[kind(tile)] += n
    for kind_, n in sorted(by_kind.items()):
        if n > 4:
            out.append(f"{n} tiles of {format_tiles([kind_])} in the deal, draws and indicators")
    for suit, (red, five) in enumerate(zip(RED_FIVES, FIVE_KINDS, strict=True)):
        if seen[red] > red_fives[suit]:
            out.append(f"{seen[red]} red {format_tiles([five])} but the rules have {red_fives[suit]}")
        elif seen[five] > 4 - red_fives[suit]:
            out.append(f"{seen[five]} plain {format_tiles([five])} with {red_fives[suit]} red")
    return out


def check_hand(hand: HandRecord, red_fives: Sequence[int] = (1, 1, 1)) -> list[str]:
    """Everything structurally wrong with a recorded hand (empty when it is consistent)."""
    out = conservation_problems(hand, red_fives)
    if len(hand.dealt) not in LIVE_WALLS or any(len(h) != 13 for h in hand.dealt):
        return [*out, f"dealt hands have {[len(h) for h in hand.dealt]} tiles, not 13 each"]
    tracker = HandTracker(hand.dealt, hand.dealer)
    for index, step in enumerate(hand.steps):
        error = tracker.apply(step)
        if error:
            return [*out, f"step {index} ({step}): {error}"]
    if hand.revealed_dora != hand.dora_indicators[: len(hand.revealed_dora)]:
        out.append("revealed dora indicators differ from the hand's indicator list")
    if not hand.complete:
        return out
    for win in hand.wins:
        out.extend(tracker.win_problems(win))
    if hand.draw is not None:
        out.extend(_draw_problems(hand, tracker))
    if not hand.wins and hand.draw is None:
        out.append("the hand has neither a win nor a draw result")
    return out


def _draw_problems(hand: HandRecord, tracker: HandTracker) -> list[str]:
    assert hand.draw is not None
    draw = hand.draw
    out: list[str] = []
    if draw.reason is DrawReason.EXHAUSTIVE:
        if tracker.phase != CLAIM or tracker.live_left != 0:
            out.append(f"exhaustive draw with {tracker.live_left} live tiles left")
        # Rules without nagashi mangan pay none, so only recorded nagashi seats must fit the rivers.
        if draw.nagashi and tuple(sorted(draw.nagashi)) != tracker.nagashi_seats():
            out.append(f"nagashi mangan seats {draw.nagashi} but the rivers give {tracker.nagashi_seats()}")
    elif draw.reason is DrawReason.KYUUSHU_KYUUHAI:
        if tracker.phase != ACT or (draw.declarer is not None and draw.declarer != tracker.seat):
            out.append("kyuushu kyuuhai declared by a seat that has not just drawn")
    elif draw.reason is DrawReason.SUUCHA_RIICHI:
        if not all(tracker.riichi) or tracker.pending_riichi:
            out.append("four-riichi abort without four accepted riichi")
    elif draw.reason is DrawReason.SUUKAIKAN:
        if tracker.kans < 4 or tracker.phase != CLAIM:
            out.append(f"four-kan abort after {tracker.kans} kans")
    elif tracker.phase != CLAIM:  # SUUFON_RENDA, SANCHAHOU: right after a discard
        out.append(f"{draw.reason} abort not right after a discard")
    return out
