"""mjai JSON lines (Mortal's event schema): read them, and write a :class:`GameRecord` as them.

One JSON object per line, each with a ``type``: ``start_game {names}``, ``start_kyoku {bakaze,
dora_marker, kyoku (1-based), honba, kyotaku, oya, scores, tehais}``, ``tsumo {actor, pai}``,
``dahai {actor, pai, tsumogiri}``, ``chi``/``pon``/``daiminkan {actor, target, pai, consumed}``,
``kakan {actor, pai, consumed}``, ``ankan {actor, consumed}``, ``dora {dora_marker}``,
``reach {actor}``, ``reach_accepted {actor}``, ``hora {actor, target, deltas, ura_markers}``,
``ryukyoku {deltas}``, ``end_kyoku``, ``end_game``. Tiles are mjai names (see
:mod:`server.records.tiles`); ``"?"`` (a hidden tile in a player's view) cannot be replayed.

Optional fields of the original mjai (``fu``, ``fan``, ``hora_points``, ``yakus``,
``uradora_markers``, a ryukyoku ``reason`` and ``tenpais``) are read when present. Without a reason,
the kind of ryukyoku is told from the table: a seat that has just drawn declared kyuushu kyuuhai; an
empty live wall is an exhaustive draw; then four riichi, four winds, four kans, else three rons.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from server.engine.events import DrawReason
from server.engine.melds import MeldType
from server.engine.tiles import Tile, kind
from server.records.assemble import call_step, checked, get_int, int_list, replay_tracker, rule_hints
from server.records.check import ACT, CLAIM, LIVE_WALL, HandTracker
from server.records.errors import RecordError, TruncatedRecordError
from server.records.model import (
    CallStep,
    DiscardStep,
    DoraStep,
    DrawResult,
    DrawStep,
    GameRecord,
    HandRecord,
    RecordedYaku,
    RecordFormat,
    RiichiAcceptedStep,
    Step,
    Win,
)
from server.records.tiles import face_from_mjai, mjai_from_face

WINDS = "ESWN"
_REASONS: dict[str, DrawReason] = {
    "fanpai": DrawReason.EXHAUSTIVE,
    "exhaustive": DrawReason.EXHAUSTIVE,
    "nagashimangan": DrawReason.EXHAUSTIVE,
    "yao9": DrawReason.KYUUSHU_KYUUHAI,
    "kyushukyuhai": DrawReason.KYUUSHU_KYUUHAI,
    "kyuushu_kyuuhai": DrawReason.KYUUSHU_KYUUHAI,
    "kaze4": DrawReason.SUUFON_RENDA,
    "suufon_renda": DrawReason.SUUFON_RENDA,
    "reach4": DrawReason.SUUCHA_RIICHI,
    "suucha_riichi": DrawReason.SUUCHA_RIICHI,
    "kan4": DrawReason.SUUKAIKAN,
    "suukaikan": DrawReason.SUUKAIKAN,
    "ron3": DrawReason.SANCHAHOU,
    "sanchaho": DrawReason.SANCHAHOU,
    "sanchahou": DrawReason.SANCHAHOU,
}


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


def _seat(event: dict[str, Any], key: str, where: str) -> int:
    return get_int(event, key, f"mjai: {where}", low=0, high=3)


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

    def tracker(self) -> HandTracker:
        return replay_tracker(self.dealt, self.dealer, self.steps)


class _Reader:
    def __init__(self) -> None:
        self.names: tuple[str, ...] = ("", "", "", "")
        self.red: bool | None = None
        self.started = False
        self.ended = False
        self.final_scores: tuple[int, ...] | None = None
        self.hands: list[HandRecord] = []
        self.hand: _Hand | None = None
        self.problems: list[str] = []
        self.saw_red = False

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
        handler(event, f"{where} ({kind_})")

    def _start_game(self, event: dict[str, Any], where: str) -> None:
        names = event.get("names")
        if isinstance(names, list) and len(names) == 4 and all(isinstance(n, str) for n in names):
            self.names = tuple(names)
        if isinstance(event.get("aka_flag"), bool):
            self.red = event["aka_flag"]
        self.started = True

    def _start_kyoku(self, event: dict[str, Any], where: str) -> None:
        self._close_hand()
        bakaze = event.get("bakaze")
        if not isinstance(bakaze, str) or bakaze not in WINDS:
            raise RecordError(f"mjai: {where}: bakaze {bakaze!r} is not E, S, W or N")
        get_int(event, "kyoku", f"mjai: {where}", low=1, high=4)
        get_int(event, "honba", f"mjai: {where}", low=0)
        get_int(event, "kyotaku", f"mjai: {where}", low=0)
        int_list(event.get("scores"), f"mjai: {where} scores", length=4)
        tehais = event.get("tehais")
        if not isinstance(tehais, list) or len(tehais) != 4:
            raise RecordError(f"mjai: {where}: tehais must hold four hands")
        dealt = tuple(tuple(_tiles(h, f"{where} tehais", 13)) for h in tehais)
        dora = [_tile(event.get("dora_marker"), f"{where} dora_marker")]
        self.saw_red |= any(t >= 34 for h in dealt for t in h) or dora[0] >= 34
        self.hand = _Hand(event, dealt, _seat(event, "oya", where), dora)

    def _live(self, where: str) -> _Hand:
        assert self.hand is not None
        if (self.hand.wins and not where.endswith("(hora)")) or self.hand.draw is not None:
            self.hand.problems.append(f"{where} after the kyoku's result")
        return self.hand

    def _tsumo(self, event: dict[str, Any], where: str) -> None:
        hand, seat = self._live(where), _seat(event, "actor", where)
        tile = _tile(event.get("pai"), where)
        self.saw_red |= tile >= 34
        hand.steps.append(DrawStep(seat, tile, rinshan=hand.kan_seat == seat))
        hand.kan_seat, hand.drawn[seat] = None, tile

    def _dahai(self, event: dict[str, Any], where: str) -> None:
        hand, seat = self._live(where), _seat(event, "actor", where)
        tile = _tile(event.get("pai"), where)
        tsumogiri = event.get("tsumogiri")
        if not isinstance(tsumogiri, bool):
            last = hand.steps[-1] if hand.steps else None
            tsumogiri = isinstance(last, DrawStep) and last.seat == seat and last.tile == tile
        riichi = hand.riichi_declared == seat
        hand.steps.append(DiscardStep(seat, tile, tsumogiri, riichi))
        hand.riichi_declared, hand.drawn[seat] = None, None

    def _open_call(self, event: dict[str, Any], where: str, type_: MeldType, size: int) -> None:
        hand, seat = self._live(where), _seat(event, "actor", where)
        target = _seat(event, "target", where)
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
        hand, seat = self._live(where), _seat(event, "actor", where)
        added = _tile(event.get("pai"), where)
        pon = _tiles(event.get("consumed"), where, 3)
        hand.steps.append(call_step(seat, MeldType.KAKAN, added, seat, [added], pon_tiles=pon))
        hand.kan_seat = seat

    def _ankan(self, event: dict[str, Any], where: str) -> None:
        hand, seat = self._live(where), _seat(event, "actor", where)
        hand.steps.append(
            call_step(seat, MeldType.ANKAN, None, seat, _tiles(event.get("consumed"), where, 4))
        )
        hand.kan_seat = seat

    def _dora(self, event: dict[str, Any], where: str) -> None:
        hand = self._live(where)
        tile = _tile(event.get("dora_marker"), where)
        hand.dora.append(tile)
        hand.steps.append(DoraStep(tile))

    def _reach(self, event: dict[str, Any], where: str) -> None:
        self._live(where).riichi_declared = _seat(event, "actor", where)

    def _reach_accepted(self, event: dict[str, Any], where: str) -> None:
        hand, seat = self._live(where), _seat(event, "actor", where)
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
        if event.get("deltas") is None:
            self._live(where).problems.append(f"{where}: no deltas")
            return (0, 0, 0, 0)
        return tuple(int_list(event["deltas"], f"mjai: {where} deltas", length=4))

    def _hora(self, event: dict[str, Any], where: str) -> None:
        hand = self._live(where)
        seat, from_seat = _seat(event, "actor", where), _seat(event, "target", where)
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
                RecordedYaku(str(y[0]), y[1], str(y[0]), yakuman=y[1] >= 13)
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
            )
        )

    def _ryukyoku(self, event: dict[str, Any], where: str) -> None:
        hand = self._live(where)
        tracker = hand.tracker()
        reason_text = event.get("reason")
        reason = _REASONS.get(reason_text) if isinstance(reason_text, str) else None
        if reason is None:
            if reason_text is not None:
                hand.problems.append(f"{where}: unknown ryukyoku reason {reason_text!r}")
            reason = _infer_reason(tracker)
        deltas = self._deltas(event, where)
        tenpai: tuple[int, ...] | None = None
        tenpais = event.get("tenpais")
        if isinstance(tenpais, list) and len(tenpais) == 4:
            tenpai = tuple(s for s in range(4) if tenpais[s] is True)
        elif reason is DrawReason.EXHAUSTIVE and any(deltas) and not tracker.nagashi_seats():
            tenpai = tuple(s for s in range(4) if deltas[s] > 0)
        exhaustive = reason is DrawReason.EXHAUSTIVE
        hand.draw = DrawResult(
            reason=reason,
            deltas=deltas,
            tenpai=tenpai,
            nagashi=tracker.nagashi_seats() if exhaustive else (),
            declarer=tracker.seat if reason is DrawReason.KYUUSHU_KYUUHAI else None,
        )

    def _end_kyoku(self, event: dict[str, Any], where: str) -> None:
        self._close_hand()

    def _end_game(self, event: dict[str, Any], where: str) -> None:
        self._close_hand()
        self.ended = True
        scores = event.get("scores")
        if scores is not None:
            self.final_scores = tuple(int_list(scores, f"mjai: {where} scores", length=4))

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
        )
        self.hands.append(checked(record, (1, 1, 1) if self.red is not False else (0, 0, 0)))

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
            red_fives=None if red is None else (1, 1, 1) if red else (0, 0, 0),
            east_south=None,
            open_tanyao=None,
        )
        return GameRecord(
            source=RecordFormat.MJAI,
            preset="tenhou",
            rules=rules,
            rule_text="",
            names=self.names,
            hands=tuple(self.hands),
            final_scores=self.final_scores,
            complete=self.ended and all(h.complete for h in self.hands),
            problems=tuple(problems),
        )


def _infer_reason(tracker: HandTracker) -> DrawReason:
    if tracker.phase == ACT:
        return DrawReason.KYUUSHU_KYUUHAI
    if tracker.phase == CLAIM and tracker.live + tracker.kans == LIVE_WALL:
        return DrawReason.EXHAUSTIVE
    if all(tracker.riichi) and not tracker.pending_riichi:
        return DrawReason.SUUCHA_RIICHI
    first = [river[0] for river in tracker.rivers if len(river) == 1]
    if len(first) == 4 and len({kind(t) for t in first}) == 1 and 27 <= kind(first[0]) <= 30:
        return DrawReason.SUUFON_RENDA
    if tracker.kans >= 4:
        return DrawReason.SUUKAIKAN
    return DrawReason.SANCHAHOU


def write_mjai(record: GameRecord) -> str:
    """The record as mjai JSON lines (Mortal's schema; ``reason`` added to ``ryukyoku``)."""
    out: list[dict[str, Any]] = [{"type": "start_game", "names": list(record.names)}]
    for hand in record.hands:
        out.append(
            {
                "type": "start_kyoku",
                "bakaze": WINDS[hand.round_wind % 4],
                "dora_marker": mjai_from_face(hand.dora_indicators[0]),
                "kyoku": hand.kyoku + 1,
                "honba": hand.honba,
                "kyotaku": hand.riichi_sticks,
                "oya": hand.dealer,
                "scores": list(hand.start_scores),
                "tehais": [[mjai_from_face(t) for t in h] for h in hand.dealt],
            }
        )
        out.extend(_step_events(hand.steps))
        for win in hand.wins:
            hora: dict[str, Any] = {"type": "hora", "actor": win.seat, "target": win.from_seat}
            hora["deltas"] = list(win.deltas)
            hora["ura_markers"] = [mjai_from_face(t) for t in win.ura_indicators]
            out.append(hora)
        if hand.draw is not None:
            out.append(
                {"type": "ryukyoku", "deltas": list(hand.draw.deltas), "reason": str(hand.draw.reason)}
            )
        if hand.complete:
            out.append({"type": "end_kyoku"})
    if record.complete:
        out.append({"type": "end_game"})
    return "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in out)


def _step_events(steps: tuple[Step, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for step in steps:
        match step:
            case DrawStep(seat, tile, _rinshan):
                out.append({"type": "tsumo", "actor": seat, "pai": mjai_from_face(tile)})
            case DiscardStep(seat, tile, tsumogiri, riichi):
                if riichi:
                    out.append({"type": "reach", "actor": seat})
                out.append(
                    {"type": "dahai", "actor": seat, "pai": mjai_from_face(tile), "tsumogiri": tsumogiri}
                )
            case CallStep():
                out.append(_call_event(step))
            case DoraStep(indicator):
                out.append({"type": "dora", "dora_marker": mjai_from_face(indicator)})
            case RiichiAcceptedStep(seat):
                out.append({"type": "reach_accepted", "actor": seat})
    return out


def _call_event(step: CallStep) -> dict[str, Any]:
    names = [mjai_from_face(t) for t in step.consumed]
    event: dict[str, Any] = {"type": str(step.type), "actor": step.seat}
    if step.type is MeldType.ANKAN:
        event["consumed"] = names
    elif step.type is MeldType.KAKAN:
        assert step.called is not None
        pon = list(step.tiles)
        pon.remove(step.called)
        event["pai"] = mjai_from_face(step.called)
        event["consumed"] = [mjai_from_face(t) for t in pon]
    else:
        assert step.called is not None
        event["target"] = step.from_seat
        event["pai"] = mjai_from_face(step.called)
        event["consumed"] = names
    return event
