"""Replay recorded hands through the engine and compare everything it decides with the record.

For each :class:`~server.records.model.HandRecord` the engine gets the wall the record implies
(:meth:`HandRecord.wall_spec` through :func:`server.engine.wall.build_wall`) and starts at the
recorded hand (:class:`server.engine.HandStart`: round, kyoku, honba, sticks, scores). Then it is
driven by the record: at every decision the seats in :func:`~server.engine.pending_seats` answer
with what the record's next step says (the discard, the call, the win) and everyone else passes.
Every action must be among :func:`~server.engine.legal_actions` (a discard whose tsumogiri flag the
engine cannot match is taken with the other flag: records of Mahjong Soul and some tenhou.net/6
writers mark the dealer's first discard differently, and which copy of a tile left the hand is no
rule), and what the engine does by itself must equal the record:

* draws (live and rinshan), riichi deposits and kan dora indicators, step by step; a dora
  indicator may sit on either side of the action that turns it over (Tenhou writes a daiminkan's or
  kakan's indicator just before the discard, the engine just after it: both reveal it before anyone
  can claim that discard);
* the end: each win's seat, source, han, fu (not for yakuman), points, yaku (our ids, dora as the
  totals ``dora``/``ura_dora``/``aka_dora``), pao and deltas; a draw's reason, deltas, tenpai seats
  and nagashi mangan seats.

The result of a hand is ``verified``, ``mismatch`` (with the first divergence, or every difference
in the result) or ``incomplete`` (the record does not reach its result).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from server.engine import HandStart, apply, legal_actions, new_match, pending_seats
from server.engine.actions import (
    Action,
    Ankan,
    Chi,
    Daiminkan,
    Discard,
    Kakan,
    KyuushuKyuuhai,
    Nukidora,
    Pass,
    Pon,
    Riichi,
    Ron,
    Tsumo,
    action_to_dict,
)
from server.engine.errors import RulesError
from server.engine.events import (
    DoraRevealed,
    DrawReason,
    Event,
    HandDrawn,
    HandWon,
    MeldCalled,
    NorthDeclared,
    RiichiAccepted,
    RoundEnded,
    RoundStarted,
    TileDiscarded,
    TileDrawn,
)
from server.engine.melds import MeldType
from server.engine.rules import Ruleset, preset
from server.engine.state import MatchState, Phase
from server.engine.tiles import Tile, format_tiles, sorted_tiles, tile_name
from server.engine.wall import build_wall
from server.records.model import (
    CallStep,
    DiscardStep,
    DoraStep,
    DrawResult,
    DrawStep,
    GameRecord,
    HandRecord,
    NorthStep,
    RecordFormat,
    RiichiAcceptedStep,
    Step,
    Win,
)
from server.records.yaku import engine_yaku_id

REPLAY_SEED = b"jantaku-replay"
MAX_DECISIONS = 2000  # far above any real hand (about 4 x 70 turns plus calls)
DORA_YAKU = frozenset({"dora", "ura_dora", "aka_dora"})


class Outcome(StrEnum):
    VERIFIED = "verified"
    MISMATCH = "mismatch"
    INCOMPLETE = "incomplete"


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One difference between the record and the engine. ``step`` indexes ``HandRecord.steps``
    (``len(steps)`` for the result, ``None`` before play starts)."""

    file: str
    hand: str  # the hand's label, e.g. "S2-1"
    step: int | None
    message: str
    where: str = ""  # the step's place in the record when its format says (mjai: "line 12")

    def __str__(self) -> str:
        where = "start" if self.step is None else f"step {self.step}"
        if self.where:
            where += f" ({self.where})"
        prefix = f"{self.file}: " if self.file else ""
        return f"{prefix}{self.hand} {where}: {self.message}"


@dataclass(frozen=True, slots=True)
class HandReport:
    index: int  # position of the hand in its record
    label: str
    outcome: Outcome
    mismatches: tuple[Mismatch, ...] = ()
    reason: str = ""  # why a hand is incomplete


def record_ruleset(
    record: GameRecord, *, preset_name: str | None = None, overrides: Mapping[str, Any] | None = None
) -> Ruleset:
    """The rules to replay ``record`` under: the preset (the record's, or ``preset_name``), the
    options the record states, then ``overrides``. Raises :class:`RulesError` for a bad option."""
    base = preset(preset_name or record.preset)
    options = {**record.rules, **(overrides or {})}
    return base.with_options(**options) if options else base


def replay_record(record: GameRecord, ruleset: Ruleset, *, file: str = "") -> list[HandReport]:
    """Replay every hand of ``record`` (see :func:`replay_hand`)."""
    # Mortal's mjai has no pao field (our exports add one): there a missing pao means "not said".
    pao_known = record.source is not RecordFormat.MJAI
    return [
        replay_hand(hand, ruleset, file=file, index=i, pao_known=pao_known)
        for i, hand in enumerate(record.hands)
    ]


def replay_hand(
    hand: HandRecord, ruleset: Ruleset, *, file: str = "", index: int = 0, pao_known: bool = True
) -> HandReport:
    """Replay one recorded hand through the engine and compare (see the module docstring).

    ``pao_known``: the record states every liability (a win without ``pao_seat`` had none)."""
    if not hand.complete:
        reason = "; ".join(hand.problems) or "the record does not reach the hand's result"
        return HandReport(index, hand.label, Outcome.INCOMPLETE, reason=reason)
    replay = _Replay(hand, ruleset, file, pao_known)
    try:
        replay.run()
    except _StopReplayError:
        pass
    except RulesError as exc:  # the engine refused something the checks above let through
        replay.mismatch(replay.cursor, f"engine error: {exc}")
    except Exception as exc:  # a bug, reported against the hand rather than as a traceback
        replay.mismatch(replay.cursor, f"internal error: {type(exc).__name__}: {exc}")
    outcome = Outcome.MISMATCH if replay.found else Outcome.VERIFIED
    return HandReport(index, hand.label, outcome, tuple(replay.found))


class _StopReplayError(Exception):
    """The replay cannot go on (a mismatch was recorded)."""


def _step_of(event: Event) -> Step | None:
    """The record step an engine event stands for (``None`` for events that are not steps)."""
    match event:
        case TileDrawn(seat, tile, rinshan):
            assert tile is not None
            return DrawStep(seat, tile, rinshan)
        case TileDiscarded(seat, tile, tsumogiri, riichi):
            return DiscardStep(seat, tile, tsumogiri, riichi)
        case RiichiAccepted(seat=seat):
            return RiichiAcceptedStep(seat)
        case DoraRevealed(indicator):
            return DoraStep(indicator)
        case NorthDeclared(seat):
            return NorthStep(seat)
        case MeldCalled(seat, type_, meld, tile, consumed):
            own = type_ in (MeldType.ANKAN, MeldType.KAKAN)
            return CallStep(
                seat,
                type_,
                sorted_tiles(meld.tiles),
                tile,
                seat if own else meld.from_seat,
                sorted_tiles(consumed),
            )
    return None


def _discard(legal: frozenset[Action], tile: Tile, tsumogiri: bool, riichi: bool) -> Action:
    """The recorded discard as an action. A tsumogiri flag the engine cannot match is read the
    other way: Mahjong Soul deals the dealer's fourteenth tile instead of drawing it, so its records
    mark the dealer's first discard of that tile as not the drawn tile, and some tenhou.net/6
    writers give the drawn tile's code instead of 60. Which copy of a tile left the hand changes
    nothing the engine decides."""
    kind_ = Riichi if riichi else Discard
    action = kind_(tile, tsumogiri)
    other = kind_(tile, not tsumogiri)
    return other if action not in legal and other in legal else action


def _same_step(recorded: Step, engine: Step) -> bool:
    """Steps agree; discards agree on seat, tile and riichi whatever their tsumogiri flags say
    (see :func:`_discard`)."""
    if isinstance(recorded, DiscardStep) and isinstance(engine, DiscardStep):
        return (recorded.seat, recorded.tile, recorded.riichi) == (engine.seat, engine.tile, engine.riichi)
    return recorded == engine


def describe(action: Action) -> str:
    """An action as its JSON form without quotes: ``discard 5m tsumogiri``."""
    data = action_to_dict(action)
    parts = [str(data.pop("type"))]
    if data.pop("tsumogiri", False):
        parts.append("tsumogiri")
    parts[1:1] = [str(v) for v in data.values()]
    return " ".join(parts)


def _legal_text(legal: frozenset[Action]) -> str:
    return ", ".join(sorted(describe(a) for a in legal)) or "nothing"


class _Replay:
    def __init__(self, hand: HandRecord, ruleset: Ruleset, file: str, pao_known: bool) -> None:
        self.hand = hand
        self.pao_known = pao_known
        self.ruleset = ruleset
        self.file = file
        self.steps = hand.steps
        self.cursor = 0
        self.found: list[Mismatch] = []
        self.wins: list[HandWon] = []
        self.draw: HandDrawn | None = None
        self.ended = False

    def mismatch(self, step: int | None, message: str) -> None:
        sources = self.hand.sources
        where = sources[step] if step is not None and step < len(sources) else ""
        self.found.append(Mismatch(self.file, self.hand.label, step, message, where))

    def stop(self, step: int | None, message: str) -> _StopReplayError:
        self.mismatch(step, message)
        return _StopReplayError()

    # -- driving

    def run(self) -> None:
        hand = self.hand
        n = self.ruleset.seats
        if hand.dealer != hand.kyoku % n:
            raise self.stop(None, f"dealer {hand.dealer} is not seat {hand.kyoku} of {hand.label}")
        if len(hand.start_scores) != n or hand.seats != n:
            raise self.stop(None, f"start scores {hand.start_scores} are not {n} scores")
        spec = hand.wall_spec()
        try:
            wall = build_wall(
                spec.hands_by_seat,
                spec.dealer,
                live_draws=spec.live_draws,
                rinshan_draws=spec.rinshan_draws,
                dora_indicators=spec.dora_indicators,
                ura_indicators=spec.ura_indicators,
                red_fives=self.ruleset.red_fives,
            )
        except RulesError as exc:
            raise self.stop(None, f"the record's tiles do not make a wall: {exc}") from None
        start = HandStart(
            hand.round_wind, hand.kyoku, hand.honba, hand.riichi_sticks, tuple(hand.start_scores)
        )
        # A second wall lets the engine deal the next hand; its events are never looked at.
        t = new_match(self.ruleset, REPLAY_SEED, walls_=[wall, wall], start=start)
        state = t.state
        self.consume(t.events)
        for _ in range(MAX_DECISIONS):
            if self.ended:
                self.compare_result()
                return
            state = self.decide(state)
        raise self.stop(self.cursor, f"no result after {MAX_DECISIONS} decisions")

    def next_action_step(self) -> tuple[int, Step | None]:
        """The first step at or after the cursor that is a decision: dora reveals and riichi deposits
        are the engine's to make (a deposit is placed when the window on the riichi discard closes)."""
        j = self.cursor
        while j < len(self.steps) and isinstance(self.steps[j], DoraStep | RiichiAcceptedStep):
            j += 1
        return j, self.steps[j] if j < len(self.steps) else None

    def decide(self, state: MatchState) -> MatchState:
        seats = pending_seats(state)
        if not seats:
            raise self.stop(self.cursor, "the engine waits for nobody but the hand has not ended")
        j, step = self.next_action_step()
        if state.hand.phase is Phase.TURN:
            answers = [(seats[0], self.turn_action(state, seats[0], j, step))]
        else:
            answers = self.window_answers(state, seats, j, step)
        events: list[Event] = []
        for seat, action in answers:
            legal = legal_actions(state, seat)
            if action not in legal:
                raise self.stop(j, f"illegal: seat {seat} {describe(action)} (legal: {_legal_text(legal)})")
            t = apply(state, seat, action)
            state = t.state
            events.extend(t.events)
        self.consume(events)
        return state

    def turn_action(self, state: MatchState, seat: int, j: int, step: Step | None) -> Action:
        if step is None:
            wins, draw = self.hand.wins, self.hand.draw
            if len(wins) == 1 and wins[0].tsumo and wins[0].seat == seat:
                return Tsumo()
            if draw is not None and draw.reason is DrawReason.KYUUSHU_KYUUHAI:
                return KyuushuKyuuhai()
            raise self.stop(j, f"the record ends with {self.result_text()} but seat {seat} is to play")
        match step:
            case DiscardStep(s, tile, tsumogiri, riichi) if s == seat:
                return _discard(legal_actions(state, seat), tile, tsumogiri, riichi)
            case CallStep(s, MeldType.ANKAN, consumed=consumed) if s == seat and len(consumed) == 4:
                return Ankan((consumed[0], consumed[1], consumed[2], consumed[3]))
            case CallStep(s, MeldType.KAKAN, called=called) if s == seat and called is not None:
                return Kakan(called)
            case NorthStep(s) if s == seat:
                return Nukidora()
        raise self.stop(j, f"the record has {step} but seat {seat} is to play")

    def window_answers(
        self, state: MatchState, seats: Sequence[int], j: int, step: Step | None
    ) -> list[tuple[int, Action]]:
        answers: dict[int, Action] = dict.fromkeys(seats, Pass())
        window = state.hand.window
        assert window is not None
        claimants: dict[int, Action] = {}
        if isinstance(step, CallStep) and step.type in (MeldType.CHI, MeldType.PON, MeldType.DAIMINKAN):
            c = step.consumed
            if step.type is MeldType.CHI and len(c) == 2:
                claimants[step.seat] = Chi((c[0], c[1]))
            elif step.type is MeldType.PON and len(c) == 2:
                claimants[step.seat] = Pon((c[0], c[1]))
            elif step.type is MeldType.DAIMINKAN and len(c) == 3:
                claimants[step.seat] = Daiminkan((c[0], c[1], c[2]))
        elif step is None:
            for win in self.hand.wins:
                if not win.tsumo and win.from_seat == window.from_seat:
                    claimants[win.seat] = Ron()
            draw = self.hand.draw
            if draw is not None and draw.reason is DrawReason.SANCHAHOU:
                claimants.update((s, Ron()) for s in seats if Ron() in legal_actions(state, s))
        for seat, action in claimants.items():
            if seat not in answers:
                legal = legal_actions(state, seat)
                raise self.stop(j, f"illegal: seat {seat} {describe(action)} (legal: {_legal_text(legal)})")
            answers[seat] = action
        # Claimants answer last so that the record's claim is what resolves the window.
        order = sorted(seats, key=lambda s: (s in claimants, s))
        return [(s, answers[s]) for s in order]

    # -- comparing what the engine did by itself

    def consume(self, events: Sequence[Event]) -> None:
        engine_steps: list[Step] = []
        engine_dora: list[Tile] = []
        for event in events:
            if self.ended:
                break
            match event:
                case RoundStarted():
                    self.check_start(event)
                case HandWon():
                    self.wins.append(event)
                case HandDrawn():
                    self.draw = event
                case RoundEnded():
                    self.ended = True
                case DoraRevealed(indicator):
                    engine_dora.append(indicator)
                case _:
                    step = _step_of(event)
                    if step is not None:
                        engine_steps.append(step)
        record_dora: list[Tile] = []
        first = self.cursor
        for step in engine_steps:
            while self.cursor < len(self.steps) and isinstance(self.steps[self.cursor], DoraStep):
                record_dora.append(self.dora_at(self.cursor))
                self.cursor += 1
            if self.cursor >= len(self.steps):
                raise self.stop(self.cursor, f"engine: {step}; the record has no more steps")
            recorded = self.steps[self.cursor]
            if not _same_step(recorded, step):
                raise self.stop(self.cursor, f"engine: {step}; record: {recorded}")
            self.cursor += 1
        while (
            len(record_dora) < len(engine_dora)
            and self.cursor < len(self.steps)
            and isinstance(self.steps[self.cursor], DoraStep)
        ):
            record_dora.append(self.dora_at(self.cursor))
            self.cursor += 1
        if record_dora != engine_dora:
            raise self.stop(
                first,
                f"engine turns dora indicator(s) [{format_tiles(engine_dora)}], "
                f"the record [{format_tiles(record_dora)}]",
            )

    def dora_at(self, index: int) -> Tile:
        step = self.steps[index]
        assert isinstance(step, DoraStep)
        return step.indicator

    def check_start(self, event: RoundStarted) -> None:
        first = self.hand.dora_indicators[0] if self.hand.dora_indicators else None
        if event.dora_indicator != first:
            shown = "none" if first is None else tile_name(first)
            raise self.stop(None, f"engine dora indicator {tile_name(event.dora_indicator)}, record {shown}")

    # -- the end of the hand

    def result_text(self) -> str:
        if self.hand.wins:
            return " and ".join(
                f"seat {w.seat} {'tsumo' if w.tsumo else f'ron from seat {w.from_seat}'}"
                for w in self.hand.wins
            )
        if self.hand.draw is not None:
            return f"a draw ({self.hand.draw.reason})"
        return "no result"

    def compare_result(self) -> None:
        end = len(self.steps)
        if self.cursor < end:
            step = self.steps[self.cursor]
            ended = "a win" if self.wins else f"a draw ({self.draw.reason})" if self.draw else "nothing"
            raise self.stop(
                self.cursor, f"the engine ends the hand with {ended}; the record goes on with {step}"
            )
        record_wins = self.hand.wins
        if len(self.wins) != len(record_wins) or (self.draw is None) != (self.hand.draw is None):
            got = " and ".join(f"seat {w.seat} wins from seat {w.from_seat}" for w in self.wins)
            got = got or (f"a draw ({self.draw.reason})" if self.draw else "no result")
            raise self.stop(end, f"engine result: {got}; record: {self.result_text()}")
        for ours, theirs in zip(self.wins, record_wins, strict=True):
            for message in win_differences(ours, theirs, pao_known=self.pao_known):
                self.mismatch(end, message)
        if self.draw is not None and self.hand.draw is not None:
            for message in draw_differences(self.draw, self.hand.draw):
                self.mismatch(end, message)


def _yaku_counter(items: Sequence[tuple[str, int]]) -> Counter[tuple[str, int]]:
    return Counter((name, han) for name, han in items if han)


def _fold_nukidora(ours: list[tuple[str, int]], recorded: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Tenhou counts the norths set aside within ``dora``: where the record has no ``nukidora``
    entry, the engine's is added to its ``dora``."""
    norths = sum(h for name, h in ours if name == "nukidora")
    if not norths or any(name == "nukidora" for name, _ in recorded):
        return ours
    rest = [(name, h) for name, h in ours if name not in ("nukidora", "dora")]
    dora = sum(h for name, h in ours if name == "dora") + norths
    return [*rest, ("dora", dora)]


def win_differences(ours: HandWon, theirs: Win, *, pao_known: bool = True) -> list[str]:
    """Every way an engine win differs from a recorded one (empty when they agree)."""
    who = f"seat {theirs.seat}"
    if (ours.seat, ours.from_seat) != (theirs.seat, theirs.from_seat):
        return [f"engine: seat {ours.seat} wins from {ours.from_seat}; record: from {theirs.from_seat}"]
    out: list[str] = []
    if theirs.han is not None and ours.han != theirs.han:
        out.append(f"{who}: engine {ours.han} han, record {theirs.han}")
    if theirs.fu is not None and not ours.yakuman and ours.fu != theirs.fu:
        out.append(f"{who}: engine {ours.fu} fu, record {theirs.fu}")
    if theirs.points is not None and ours.points != theirs.points:
        out.append(f"{who}: engine {ours.points} points, record {theirs.points}")
    if theirs.yaku:
        recorded = [(engine_yaku_id(y.id), y.han) for y in theirs.yaku]
        engine = _yaku_counter(_fold_nukidora([(y.name, y.han) for y in ours.yaku], recorded))
        record = _yaku_counter(recorded)
        if engine != record:
            extra = ", ".join(f"{n} {h}" for n, h in sorted((engine - record).elements()))
            missing = ", ".join(f"{n} {h}" for n, h in sorted((record - engine).elements()))
            out.append(f"{who}: yaku differ: engine only [{extra}], record only [{missing}]")
    pao = ours.pao_seat
    if pao != theirs.pao_seat and (pao_known or theirs.pao_seat is not None):
        out.append(f"{who}: engine pao seat {pao}, record {theirs.pao_seat}")
    if ours.deltas != theirs.deltas:
        out.append(f"{who}: engine deltas {list(ours.deltas)}, record {list(theirs.deltas)}")
    return out


def draw_differences(ours: HandDrawn, theirs: DrawResult) -> list[str]:
    """Every way an engine draw differs from a recorded one (empty when they agree)."""
    out: list[str] = []
    if ours.reason is not theirs.reason:
        out.append(f"engine draw {ours.reason}, record {theirs.reason}")
    if ours.deltas != theirs.deltas:
        out.append(f"engine draw deltas {list(ours.deltas)}, record {list(theirs.deltas)}")
    tenpai = tuple(s for s, ready in enumerate(ours.tenpai) if ready)
    if theirs.reason is DrawReason.EXHAUSTIVE and theirs.tenpai is not None and tenpai != theirs.tenpai:
        out.append(f"engine tenpai seats {list(tenpai)}, record {list(theirs.tenpai)}")
    if tuple(sorted(ours.nagashi)) != tuple(sorted(theirs.nagashi)):
        out.append(f"engine nagashi mangan seats {list(ours.nagashi)}, record {list(theirs.nagashi)}")
    return out
