"""mjai JSON lines (Mortal's event schema): read them (the writer is :mod:`server.records.export_mjai`).

One JSON object per line, each with a ``type``: ``start_game {names}``, ``start_kyoku {bakaze,
dora_marker, kyoku (1-based), honba, kyotaku, oya, scores, tehais}``, ``tsumo {actor, pai}``,
``dahai {actor, pai, tsumogiri}``, ``chi``/``pon``/``daiminkan {actor, target, pai, consumed}``,
``kakan {actor, pai, consumed}``, ``ankan {actor, consumed}``, ``dora {dora_marker}``,
``reach {actor}``, ``reach_accepted {actor}``, ``hora {actor, target, deltas, ura_markers}``,
``ryukyoku {deltas}``, ``end_kyoku``, ``end_game``, and with three players ``nukidora {actor}`` (or
``kita``) for a north set aside. A three-player log has three scores and hands per kyoku, or four
with an empty fourth seat (score 0, no tiles or only ``"?"``). Tiles are mjai names (see
:mod:`server.records.tiles`); ``"?"`` (a hidden tile in a player's view) cannot be replayed.

Optional fields of the original mjai (``fu``, ``fan``, ``hora_points``, ``yakus``,
``uradora_markers``, a ryukyoku ``reason`` and ``tenpais``) are read when present. A reason may
use any of the names other tools write (:mod:`server.records.draw_names`); without one, the kind
of ryukyoku is told from the table (:func:`~server.records.draw_names.infer_draw_reason`).
Jantaku's own extensions are read too: the whole ``ruleset`` in ``start_game`` and a win's ``pao``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from server.engine.events import DrawReason
from server.engine.melds import MeldType
from server.engine.tiles import Tile
from server.records.assemble import (
    call_step,
    checked,
    embedded_ruleset,
    get_int,
    int_list,
    replay_tracker,
    rule_hints,
    ruleset_preset,
)
from server.records.check import HandTracker
from server.records.draw_names import draw_name, infer_draw_reason
from server.records.errors import RecordError, TruncatedRecordError
from server.records.export_mjai import write_mjai
from server.records.model import (
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
from server.records.tiles import face_from_mjai
from server.records.yaku import yaku_from_label

__all__ = ["read_mjai", "write_mjai"]

WINDS = "ESWN"


def read_mjai(data: bytes | str) -> GameRecord:
    """Read an mjai log (the omniscient one: every tile visible)."""
    reader = _Reader()
    for number, event in enumerate(_events(data)):
        reader.event(event, f"line {number + 1}")
    return reader.finish()


def _events(data: bytes | str) -> list[dict[str, Any]]:
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RecordError(f"mjai: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    elif isinstance(data, str):
        text = data
    else:
        raise RecordError(f"mjai: expected bytes or text, got {type(data).__name__}")
    events: list[dict[str, Any]] = []
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            cut = exc.pos >= len(line.rstrip()) or exc.msg.startswith("Unterminated string")
            if number == len(lines) - 1 and cut:
                raise TruncatedRecordError(f"mjai: line {number + 1} is cut short ({exc.msg})") from None
            raise RecordError(
                f"mjai: line {number + 1} is not JSON: {exc.msg} at column {exc.colno}"
            ) from None
        except RecursionError:
            raise RecordError(f"mjai: line {number + 1} is nested too deeply") from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise RecordError(f"mjai: line {number + 1} is not an event object with a 'type'")
        events.append(event)
    if not events:
        raise RecordError("mjai: no events")
    return events


def _tile(value: Any, where: str) -> Tile:
    face = face_from_mjai(value)
    if face is None:
        if value == "?":
            raise RecordError(f"mjai: {where}: a hidden tile '?': only full (omniscient) logs can be read")
        raise RecordError(f"mjai: {where}: {value!r} is not an mjai tile")
    return face


def _tiles(value: Any, where: str, length: int | None = None) -> list[Tile]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise RecordError(f"mjai: {where}: expected a list of {length or 'some'} tiles, got {value!r:.80}")
    return [_tile(v, where) for v in value]


def _seat(event: dict[str, Any], key: str, where: str, seats: int = 4) -> int:
    return get_int(event, key, f"mjai: {where}", low=0, high=seats - 1)


def _empty_seat(tiles: Any, score: Any) -> bool:
    """A fourth seat kept only as a slot (three players): no tiles, or hidden ones, and no score."""
    return score == 0 and isinstance(tiles, list) and all(t == "?" for t in tiles)


@dataclass
class _Hand:
    head: dict[str, Any]
    dealt: tuple[tuple[Tile, ...], ...]
    dealer: int
    dora: list[Tile]
    steps: list[Step] = field(default_factory=list)
    ura: tuple[Tile, ...] = ()
    wins: list[Win] = field(default_factory=list)
    draw: DrawResult | None = None
    problems: list[str] = field(default_factory=list)
    riichi_declared: int | None = None
    kan_seat: int | None = None
    drawn: list[Tile | None] = field(default_factory=lambda: [None] * 4)
    sources: list[str] = field(default_factory=list)  # the line of each step, then the result's

    def tracker(self) -> HandTracker:
        return replay_tracker(self.dealt, self.dealer, self.steps)


class _Reader:
    def __init__(self) -> None:
        self.names: tuple[str, ...] = ("", "", "", "")
        self.seats: int | None = None  # from the first start_kyoku: 4, or 3 (three players)
        self.red: bool | None = None
        self.started = False
        self.ended = False
        self.final_scores: tuple[int, ...] | None = None
        self.hands: list[HandRecord] = []
        self.hand: _Hand | None = None
        self.problems: list[str] = []
        self.saw_red = False
        self.ruleset: dict[str, Any] | None = None

    def event(self, event: dict[str, Any], where: str) -> None:
        kind_ = event["type"]
        if kind_ == "none":
            return
        if self.ended:
            self.problems.append(f"{where}: {kind_} after end_game")
            return
        handler = getattr(self, "_" + kind_, None)
        if handler is None:
            self.problems.append(f"{where}: unknown event type {kind_!r} ignored")
            return
        if kind_ not in ("start_game", "start_kyoku", "end_game") and self.hand is None:
            raise RecordError(f"mjai: {where}: {kind_} outside a kyoku")
        hand = self.hand
        handler(event, f"{where} ({kind_})")
        if hand is not None and hand is self.hand:
            # the line of every step this event added; a result's line stands after them
            hand.sources.extend([where] * (len(hand.steps) - len(hand.sources)))
            if (hand.wins or hand.draw is not None) and len(hand.sources) == len(hand.steps):
                hand.sources.append(where)

    def _start_game(self, event: dict[str, Any], where: str) -> None:
        names = event.get("names")
        if isinstance(names, list) and len(names) in (3, 4) and all(isinstance(n, str) for n in names):
            self.names = tuple(names)
        if isinstance(event.get("aka_flag"), bool):
            self.red = event["aka_flag"]
        if "ruleset" in event:
            self.ruleset = embedded_ruleset(event["ruleset"], "mjai: start_game")
        self.started = True

    def _start_kyoku(self, event: dict[str, Any], where: str) -> None:
        self._close_hand()
        bakaze = event.get("bakaze")
        if not isinstance(bakaze, str) or bakaze not in WINDS:
            raise RecordError(f"mjai: {where}: bakaze {bakaze!r} is not E, S, W or N")
        get_int(event, "kyoku", f"mjai: {where}", low=1, high=4)
        get_int(event, "honba", f"mjai: {where}", low=0)
        get_int(event, "kyotaku", f"mjai: {where}", low=0)
        scores = event.get("scores")
        tehais = event.get("tehais")
        if not isinstance(tehais, list) or not isinstance(scores, list) or len(tehais) != len(scores):
            raise RecordError(f"mjai: {where}: tehais and scores must hold one entry per seat")
        if len(tehais) == 4 and _empty_seat(tehais[3], scores[3]):
            tehais, scores = tehais[:3], scores[:3]
        if len(tehais) not in (3, 4):
            raise RecordError(f"mjai: {where}: tehais must hold four (or three) hands")
        int_list(scores, f"mjai: {where} scores", length=len(tehais))
        if self.seats is not None and self.seats != len(tehais):
            raise RecordError(f"mjai: {where}: {len(tehais)} seats after {self.seats}")
        self.seats = len(tehais)
        event = {**event, "scores": scores}
        dealt = tuple(tuple(_tiles(h, f"{where} tehais", 13)) for h in tehais)
        dora = [_tile(event.get("dora_marker"), f"{where} dora_marker")]
        self.saw_red |= any(t >= 34 for h in dealt for t in h) or dora[0] >= 34
        self.hand = _Hand(event, dealt, _seat(event, "oya", where, self.seats), dora)

    def _seat(self, event: dict[str, Any], key: str, where: str) -> int:
        return _seat(event, key, where, self.seats or 4)

    def _live(self, where: str) -> _Hand:
        assert self.hand is not None
        if (self.hand.wins and not where.endswith("(hora)")) or self.hand.draw is not None:
            self.hand.problems.append(f"{where} after the kyoku's result")
        return self.hand

    def _tsumo(self, event: dict[str, Any], where: str) -> None:
        hand, seat = self._live(where), self._seat(event, "actor", where)
        tile = _tile(event.get("pai"), where)
        self.saw_red |= tile >= 34
        hand.steps.append(DrawStep(seat, tile, rinshan=hand.kan_seat == seat))
        hand.kan_seat, hand.drawn[seat] = None, tile

    def _dahai(self, event: dict[str, Any], where: str) -> None:
        hand, seat = self._live(where), self._seat(event, "actor", where)
        tile = _tile(event.get("pai"), where)
        tsumogiri = event.get("tsumogiri")
        if not isinstance(tsumogiri, bool):
            last = hand.steps[-1] if hand.steps else None
            tsumogiri = isinstance(last, DrawStep) and last.seat == seat and last.tile == tile
        riichi = hand.riichi_declared == seat
        hand.steps.append(DiscardStep(seat, tile, tsumogiri, riichi))
        hand.riichi_declared, hand.drawn[seat] = None, None

    def _open_call(self, event: dict[str, Any], where: str, type_: MeldType, size: int) -> None:
        hand, seat = self._live(where), self._seat(event, "actor", where)
        target = self._seat(event, "target", where)
        called = _tile(event.get("pai"), where)
        consumed = _tiles(event.get("consumed"), where, size)
        hand.steps.append(call_step(seat, type_, called, target, consumed))
        hand.kan_seat = seat if type_ is MeldType.DAIMINKAN else None

    def _chi(self, event: dict[str, Any], where: str) -> None:
        self._open_call(event, where, MeldType.CHI, 2)

    def _pon(self, event: dict[str, Any], where: str) -> None:
        self._open_call(event, where, MeldType.PON, 2)

    def _daiminkan(self, event: dict[str, Any], where: str) -> None:
        self._open_call(event, where, MeldType.DAIMINKAN, 3)

    def _kakan(self, event: dict[str, Any], where: str) -> None:
        hand, seat = self._live(where), self._seat(event, "actor", where)
        added = _tile(event.get("pai"), where)
        pon = _tiles(event.get("consumed"), where, 3)
        hand.steps.append(call_step(seat, MeldType.KAKAN, added, seat, [added], pon_tiles=pon))
        hand.kan_seat = seat

    def _ankan(self, event: dict[str, Any], where: str) -> None:
        hand, seat = self._live(where), self._seat(event, "actor", where)
        hand.steps.append(
            call_step(seat, MeldType.ANKAN, None, seat, _tiles(event.get("consumed"), where, 4))
        )
        hand.kan_seat = seat

    def _nukidora(self, event: dict[str, Any], where: str) -> None:
        hand, seat = self._live(where), self._seat(event, "actor", where)
        if self.seats != 3:
            raise RecordError(f"mjai: {where}: a north set aside in a four-player game")
        hand.steps.append(NorthStep(seat))
        hand.kan_seat, hand.drawn[seat] = seat, None

    def _kita(self, event: dict[str, Any], where: str) -> None:
        """Another name of ``nukidora`` (RiichiEnv's and Mahjong Soul's)."""
        self._nukidora(event, where)

    def _dora(self, event: dict[str, Any], where: str) -> None:
        hand = self._live(where)
        tile = _tile(event.get("dora_marker"), where)
        hand.dora.append(tile)
        hand.steps.append(DoraStep(tile))

    def _reach(self, event: dict[str, Any], where: str) -> None:
        self._live(where).riichi_declared = self._seat(event, "actor", where)

    def _reach_accepted(self, event: dict[str, Any], where: str) -> None:
        hand, seat = self._live(where), self._seat(event, "actor", where)
        # Placed right after the riichi discard, where Tenhou (and our engine) accept it, whatever
        # calls the log wrote first.
        for index in range(len(hand.steps) - 1, -1, -1):
            step = hand.steps[index]
            if isinstance(step, DiscardStep) and step.seat == seat:
                if not step.riichi:
                    hand.problems.append(f"{where}: seat {seat}'s last discard did not declare riichi")
                hand.steps.insert(index + 1, RiichiAcceptedStep(seat))
                return
        hand.problems.append(f"{where}: seat {seat} has not discarded")

    def _deltas(self, event: dict[str, Any], where: str) -> tuple[int, ...]:
        n = self.seats or 4
        if event.get("deltas") is None:
            self._live(where).problems.append(f"{where}: no deltas")
            return (0,) * n
        deltas = tuple(int_list(event["deltas"], f"mjai: {where} deltas"))
        if len(deltas) == 4 and n == 3 and deltas[3] == 0:
            deltas = deltas[:3]
        if len(deltas) != n:
            raise RecordError(f"mjai: {where} deltas: expected {n} integers, got {len(deltas)}")
        return deltas

    def _hora(self, event: dict[str, Any], where: str) -> None:
        hand = self._live(where)
        seat, from_seat = self._seat(event, "actor", where), self._seat(event, "target", where)
        ura_raw = event.get("ura_markers", event.get("uradora_markers")) or []
        ura = tuple(_tiles(ura_raw, f"{where} ura_markers"))
        if len(ura) > len(hand.ura):
            hand.ura = ura
        tracker = hand.tracker()
        win_tile, concealed = tracker.winning_hand(seat, from_seat) or (0, ())
        yakus = event.get("yakus")
        yaku: tuple[RecordedYaku, ...] = ()
        if isinstance(yakus, list):
            yaku = tuple(
                _recorded_yaku(str(y[0]), y[1])
                for y in yakus
                if isinstance(y, list) and len(y) == 2 and isinstance(y[1], int)
            )
        fan, fu, points = event.get("fan"), event.get("fu"), event.get("hora_points")
        hand.wins.append(
            Win(
                seat=seat,
                from_seat=from_seat,
                win_tile=win_tile,
                hand=concealed,
                melds=tuple(tracker.melds[seat]),
                han=fan if isinstance(fan, int) else None,
                fu=fu if isinstance(fu, int) else None,
                points=points if isinstance(points, int) else None,
                limit="",
                yaku=yaku,
                yakuman=sum(y.han // 13 for y in yaku if y.yakuman),
                dora_indicators=tuple(hand.dora),
                ura_indicators=ura if tracker.riichi[seat] else (),
                deltas=self._deltas(event, where),
                pao_seat=_pao(event, where, self.seats or 4),
            )
        )

    def _ryukyoku(self, event: dict[str, Any], where: str) -> None:
        hand = self._live(where)
        tracker = hand.tracker()
        reason_text = event.get("reason")
        name = draw_name(reason_text) if isinstance(reason_text, str) else None
        if name is None and reason_text is not None:
            hand.problems.append(f"{where}: unknown ryukyoku reason {reason_text!r}")
        reason = name.reason if name is not None else infer_draw_reason(tracker)
        deltas = self._deltas(event, where)
        exhaustive = reason is DrawReason.EXHAUSTIVE
        nagashi: tuple[int, ...] = ()
        if exhaustive and (name is None or name.nagashi):
            # A stated reason says whether nagashi mangan was paid; without one, the rivers tell.
            nagashi = tracker.nagashi_seats()
        tenpai: tuple[int, ...] | None = None
        tenpais = event.get("tenpais")
        n = len(deltas)
        if isinstance(tenpais, list) and len(tenpais) in (n, 4):
            tenpai = tuple(s for s in range(n) if tenpais[s] is True)
        elif exhaustive and any(deltas) and not nagashi:
            tenpai = tuple(s for s in range(n) if deltas[s] > 0)
        hand.draw = DrawResult(
            reason=reason,
            deltas=deltas,
            tenpai=tenpai,
            nagashi=nagashi,
            declarer=tracker.seat if reason is DrawReason.KYUUSHU_KYUUHAI else None,
        )

    def _end_kyoku(self, event: dict[str, Any], where: str) -> None:
        self._close_hand()

    def _end_game(self, event: dict[str, Any], where: str) -> None:
        self._close_hand()
        self.ended = True
        scores = event.get("scores")
        if scores is not None:
            final = tuple(int_list(scores, f"mjai: {where} scores"))
            n = self.seats or 4
            if len(final) == 4 and n == 3 and final[3] == 0:
                final = final[:3]
            if len(final) != n:
                raise RecordError(f"mjai: {where} scores: expected {n} integers, got {len(final)}")
            self.final_scores = final

    def _close_hand(self) -> None:
        hand = self.hand
        if hand is None:
            return
        self.hand = None
        problems = list(hand.problems)
        complete = bool(hand.wins) or hand.draw is not None
        if not complete:
            problems.append("the log stops before the kyoku's result")
        head = hand.head
        record = HandRecord(
            round_wind=WINDS.index(head["bakaze"]),
            kyoku=head["kyoku"] - 1,
            honba=head["honba"],
            riichi_sticks=head["kyotaku"],
            dealer=hand.dealer,
            start_scores=tuple(head["scores"]),
            dealt=hand.dealt,
            dora_indicators=tuple(hand.dora),
            ura_indicators=hand.ura,
            steps=tuple(hand.steps),
            wins=tuple(hand.wins),
            draw=hand.draw,
            complete=complete,
            problems=tuple(problems),
            sources=tuple(hand.sources),
        )
        red_fives = self._red_fives(self.red is not False)
        if self.ruleset is not None:
            red_fives = tuple(self.ruleset["red_fives"])
        self.hands.append(checked(record, red_fives))

    def _red_fives(self, red: bool) -> tuple[int, int, int]:
        if not red:
            return (0, 0, 0)
        return (0, 1, 1) if self.seats == 3 else (1, 1, 1)

    def finish(self) -> GameRecord:
        self._close_hand()
        if not self.hands:
            raise RecordError("mjai: no start_kyoku")
        problems = list(self.problems)
        if not self.started:
            problems.append("no start_game event")
        if not self.ended:
            problems.append("the log stops before end_game")
        red = self.red if self.red is not None else (True if self.saw_red else None)
        rules = rule_hints(
            red_fives=None if red is None else self._red_fives(red),
            east_south=None,
            open_tanyao=None,
        )
        # Without Jantaku's embedded ruleset, three players are read under Tenhou's sanma rules.
        preset = "tenhou-sanma" if self.seats == 3 else "tenhou"
        if self.ruleset is not None:
            preset, rules = ruleset_preset(self.ruleset), self.ruleset
        return GameRecord(
            source=RecordFormat.MJAI,
            preset=preset,
            rules=rules,
            rule_text="",
            names=self.names[: self.seats or 4] if len(self.names) > (self.seats or 4) else self.names,
            hands=tuple(self.hands),
            final_scores=self.final_scores,
            complete=self.ended and all(h.complete for h in self.hands),
            problems=tuple(problems),
            rules_stated=self.ruleset is not None,
        )


def _recorded_yaku(name: str, han: int) -> RecordedYaku:
    """A ``yakus`` entry; its name may be Tenhou's label, Mahjong Soul's English name or our id."""
    known = yaku_from_label(name)
    return RecordedYaku(known.id if known else name, han, name, yakuman=han >= 13)


def _pao(event: dict[str, Any], where: str, seats: int) -> int | None:
    """The liable seat of a win (Jantaku's exports add ``pao``; Mortal's schema has none)."""
    return _seat(event, "pao", where, seats) if event.get("pao") is not None else None
