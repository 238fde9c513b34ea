"""Our own match, as a :class:`~server.records.model.GameRecord`: the engine's omniscient event log
turned into the neutral model that the record writers take.

The steps come out in the order the Tenhou readers produce, so a match exported and read back gives
the same steps: a dora indicator that the engine turns over right after a discard (the open kan's
indicator) is placed just before that discard, and one it turns over just before an own-turn kan
(a pending open-kan indicator) just after that kan.

Yaku become Tenhou's ids and labels (:mod:`server.records.yaku`), with the seat and round winds
spelled out (``yakuhai_seat_wind`` of the south seat is ``seat_wind_south``, ``自風 南``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from server.engine.events import (
    DoraRevealed,
    DrawReason,
    Event,
    HandDrawn,
    HandWon,
    MatchEnded,
    MatchStarted,
    MeldCalled,
    NorthDeclared,
    RiichiAccepted,
    RoundEnded,
    RoundStarted,
    TileDiscarded,
    TileDrawn,
    YakuScore,
)
from server.engine.melds import MeldType
from server.engine.rules import ALL_PRESETS, Ruleset
from server.engine.tiles import Tile, sorted_tiles
from server.records.errors import RecordError
from server.records.model import (
    CallStep,
    DiscardStep,
    DoraStep,
    DrawResult,
    DrawStep,
    GameRecord,
    HandRecord,
    NorthStep,
    RecordedYaku,
    RecordFormat,
    RiichiAcceptedStep,
    Step,
    Win,
)
from server.records.yaku import NUKIDORA, TENHOU_YAKU, TenhouYaku

WIND_WORDS = ("east", "south", "west", "north")

HIDDEN_TILE: Tile = -1
"""Stands for a tile the viewer may not see in a hand built by :class:`LiveHand` from one seat's
redacted events (another seat's dealt tiles and draws); never a face."""

_BY_ENGINE_NAME: dict[str, TenhouYaku] = {
    "rinshan": TENHOU_YAKU[4],
    "sanshoku": TENHOU_YAKU[25],
    "yakuhai_haku": TENHOU_YAKU[18],
    "yakuhai_hatsu": TENHOU_YAKU[19],
    "yakuhai_chun": TENHOU_YAKU[20],
    **{y.id: y for y in TENHOU_YAKU if y.id not in ("rinshan_kaihou", "sanshoku_doujun")},
    "nukidora": NUKIDORA,
}


def tenhou_yaku(score: YakuScore, *, seat_wind: int, round_wind: int, yakuman: bool) -> RecordedYaku:
    """One engine yaku as Tenhou names it; winds are 0..3 (east..north).

    >>> tenhou_yaku(YakuScore("yakuhai_seat_wind", 1), seat_wind=1, round_wind=0, yakuman=False)
    RecordedYaku(id='seat_wind_south', han=1, label='自風 南', yakuman=False)
    """
    if score.name == "yakuhai_seat_wind":
        known: TenhouYaku | None = TENHOU_YAKU[10 + seat_wind % 4]
    elif score.name == "yakuhai_round_wind":
        known = TENHOU_YAKU[14 + round_wind % 4]
    else:
        known = _BY_ENGINE_NAME.get(score.name)
    if known is None:
        return RecordedYaku(score.name, score.han, score.name, yakuman)
    return RecordedYaku(known.id, score.han, known.label, yakuman)


@dataclass
class _Hand:
    start: RoundStarted
    steps: list[Step] = field(default_factory=list)
    held_dora: list[Tile] = field(default_factory=list)
    dora: list[Tile] = field(default_factory=list)
    wins: list[Win] = field(default_factory=list)
    draw: DrawResult | None = None

    def flush(self) -> None:
        self.steps.extend(DoraStep(t) for t in self.held_dora)
        self.held_dora.clear()

    def add(self, step: Step) -> None:
        self.flush()
        self.steps.append(step)


def record_from_events(events: Sequence[Event], *, names: Sequence[str] | None = None) -> GameRecord:
    """A :class:`GameRecord` of a match from its omniscient events (``MatchStarted`` first).

    A hand that has not ended yet comes out with ``complete=False``; so does the game before
    ``MatchEnded``. Raises :class:`RecordError` for a redacted log (hidden dealt hands or draws).
    """
    ruleset: Ruleset | None = None
    hands: list[HandRecord] = []
    hand: _Hand | None = None
    ended: MatchEnded | None = None
    for event in events:
        match event:
            case MatchStarted():
                ruleset = Ruleset.from_json(event.ruleset_json)
            case RoundStarted():
                if hand is not None:
                    hands.append(_close(hand, complete=False))
                if any(h is None for h in event.hands):
                    raise RecordError("events: a dealt hand is hidden; records need the omniscient log")
                hand = _Hand(event, dora=[event.dora_indicator])
            case MatchEnded():
                ended = event
            case _:
                if hand is None:
                    continue
                if _hand_event(hand, event):
                    hands.append(_close(hand, complete=True))
                    hand = None
    if hand is not None:
        hands.append(_close(hand, complete=False))
    if ruleset is None:
        raise RecordError("events: no MatchStarted, so the rules are unknown")
    if not hands:
        raise RecordError("events: no hand was dealt")
    rules = ruleset.to_dict()
    problems = () if ended else ("the match has not ended",)
    return GameRecord(
        source=RecordFormat.EVENTS,
        preset=ruleset.name if ruleset.name in ALL_PRESETS else _fallback_preset(ruleset),
        rules=rules,
        rule_text=ruleset.name,
        names=tuple(names) if names is not None else ("",) * ruleset.seats,
        hands=tuple(hands),
        final_scores=ended.scores if ended else None,
        final_points=ended.final_points if ended else None,
        complete=ended is not None and all(h.complete for h in hands),
        problems=problems,
    )


def _fallback_preset(ruleset: Ruleset) -> str:
    """The preset a custom ruleset is read against (its options then override every value)."""
    return "tenhou-sanma" if ruleset.seats == 3 else "tenhou"


class LiveHand:
    """One hand built event by event from a single receiver's live stream (its ``RoundStarted`` and
    what follows, redacted for it by :func:`server.engine.views.redact`); the tiles it may not see
    are :data:`HIDDEN_TILE`. Steps are placed as :func:`record_from_events` places them: ``steps``
    only grows at its end, except that a dora reveal right after a discard goes before that
    discard, so the steps up to the last draw never change; reveals still ``held`` come after
    ``steps`` (or after a call that comes first)."""

    def __init__(self, start: RoundStarted) -> None:
        self.start = start
        self._hand = _Hand(start, dora=[start.dora_indicator])
        self.over = False  # RoundEnded came

    def add(self, event: Event) -> bool:
        """Add the next event; ``True`` once the hand is over."""
        if not self.over and _hand_event(self._hand, event, hidden_ok=True):
            self.over = True
        return self.over

    @property
    def steps(self) -> list[Step]:
        """The steps so far (the builder's own list: do not change it)."""
        return self._hand.steps

    @property
    def held(self) -> list[DoraStep]:
        return [DoraStep(t) for t in self._hand.held_dora]

    @property
    def wins(self) -> list[Win]:
        return self._hand.wins

    @property
    def draw(self) -> DrawResult | None:
        return self._hand.draw

    @property
    def complete(self) -> bool:
        return self.over and (bool(self._hand.wins) or self._hand.draw is not None)

    def opening(self) -> HandRecord:
        """The hand as dealt (no steps yet): what ``start_kyoku`` shows."""
        return _close(_Hand(self.start, dora=[self.start.dora_indicator]), complete=False)


def _hand_event(hand: _Hand, event: Event, *, hidden_ok: bool = False) -> bool:
    """Add one event to the hand; ``True`` when the hand is over (``RoundEnded``)."""
    match event:
        case TileDrawn(seat, tile, rinshan):
            if tile is None:
                if not hidden_ok:
                    raise RecordError("events: a drawn tile is hidden; records need the omniscient log")
                tile = HIDDEN_TILE
            hand.add(DrawStep(seat, tile, rinshan))
        case TileDiscarded(seat, tile, tsumogiri, riichi):
            hand.add(DiscardStep(seat, tile, tsumogiri, riichi))
        case RiichiAccepted(seat=seat):
            hand.add(RiichiAcceptedStep(seat))
        case NorthDeclared(seat=seat):
            hand.add(NorthStep(seat))
        case DoraRevealed(indicator):
            hand.dora.append(indicator)
            if hand.steps and isinstance(hand.steps[-1], DiscardStep) and not hand.held_dora:
                # An open kan's indicator, turned once the kan player discards: Tenhou writes it first.
                hand.steps.insert(len(hand.steps) - 1, DoraStep(indicator))
            else:
                hand.held_dora.append(indicator)
        case MeldCalled(seat, type_, meld, tile, consumed):
            held = list(hand.held_dora)
            hand.held_dora.clear()
            own = type_ in (MeldType.ANKAN, MeldType.KAKAN)
            from_seat = seat if own else meld.from_seat
            hand.steps.append(
                CallStep(seat, type_, sorted_tiles(meld.tiles), tile, from_seat, sorted_tiles(consumed))
            )
            hand.held_dora.extend(held)  # a pending indicator turned at an own-turn kan: after it
        case HandWon():
            hand.flush()
            hand.wins.append(_win(hand.start, event))
        case HandDrawn():
            hand.flush()
            hand.draw = _draw(event)
        case RoundEnded():
            hand.flush()
            return True
    return False


def _win(start: RoundStarted, event: HandWon) -> Win:
    seat_wind = (event.seat - start.dealer) % len(start.scores)
    yakuman = event.limit == "yakuman"
    yaku = tuple(
        tenhou_yaku(y, seat_wind=seat_wind, round_wind=start.round_wind, yakuman=yakuman) for y in event.yaku
    )
    return Win(
        seat=event.seat,
        from_seat=event.from_seat,
        win_tile=event.win_tile,
        hand=sorted_tiles(event.hand),
        melds=event.melds,
        han=event.han,
        fu=event.fu,
        points=event.points,
        limit=event.limit,
        yaku=yaku,
        yakuman=event.yakuman,
        dora_indicators=event.dora_indicators,
        ura_indicators=event.ura_indicators,
        deltas=event.deltas,
        pao_seat=event.pao_seat,
    )


def _draw(event: HandDrawn) -> DrawResult:
    exhaustive = event.reason is DrawReason.EXHAUSTIVE
    shown = [s for s, h in enumerate(event.hands) if h is not None]
    return DrawResult(
        reason=event.reason,
        deltas=event.deltas,
        tenpai=tuple(s for s, ready in enumerate(event.tenpai) if ready) if exhaustive else None,
        nagashi=event.nagashi,
        revealed=tuple(None if h is None else sorted_tiles(h) for h in event.hands),
        declarer=shown[0] if event.reason is DrawReason.KYUUSHU_KYUUHAI and shown else None,
    )


def _close(hand: _Hand, *, complete: bool) -> HandRecord:
    hand.flush()
    start = hand.start
    dealt = tuple(tuple(h) if h is not None else (HIDDEN_TILE,) * 13 for h in start.hands)
    ura = max((w.ura_indicators for w in hand.wins), key=len, default=())
    return HandRecord(
        round_wind=start.round_wind,
        kyoku=start.kyoku,
        honba=start.honba,
        riichi_sticks=start.riichi_sticks,
        dealer=start.dealer,
        start_scores=start.scores,
        dealt=dealt,
        dora_indicators=tuple(hand.dora),
        ura_indicators=ura,
        steps=tuple(hand.steps),
        wins=tuple(hand.wins),
        draw=hand.draw,
        complete=complete and (bool(hand.wins) or hand.draw is not None),
        problems=() if complete else ("the hand has not ended",),
    )
