"""tenhou.net/6 JSON: one object per file, or one object per line (one hand per line).

Format facts used here:

* ``{"title", "name": [4 names], "rule": {"disp": "鳳南喰赤", "aka": 1}, "log": [hand, ...]}``, and
  optionally ``"sc": [score, points, ...]`` with the final standings.
* A hand is a 17-element list: ``[round, honba, sticks]`` (``round`` 0..15 counts kyoku from east 1),
  the four scores, the dora indicators (the first, then every kan dora shown), the ura indicators
  (only after a riichi win), then for each seat its 13 dealt tiles, its *takes* and its *discards*,
  and last the result.
* Tiles are codes (see :mod:`server.records.tiles`). In the discards, ``60`` is "the tile just
  drawn" (tsumogiri), ``"r"`` + code declares riichi, ``0`` fills the discard slot of a daiminkan.
* Calls are strings whose letter marks the called tile and, by its place, the seat it came from:
  first = the seat to the left, middle = across, last = the right. ``"c"`` chi (always from the
  left) and ``"p"`` pon / ``"m"`` daiminkan appear in the takes; ``"a"`` ankan and ``"k"`` kakan
  appear in the discards, followed by the replacement draw in the takes.
* The result: ``["和了", deltas, [who, from, pao, "summary", "yaku(N飜)", ...], deltas, [...]]`` (one
  pair per winner), ``["流局", deltas]``, ``["流し満貫", deltas]`` or an abort label.

The per-seat lists do not say how turns interleave: this reader replays the hand, trying the calls a
discard could have met (pon and kan before chi, then no call), and keeps the one reading in which
every tile is in hand when played and the lists run out exactly at the recorded result. Kan dora
reveals and riichi deposits are placed where Tenhou places them (see :mod:`server.records.mjlog`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from server.engine.events import DrawReason
from server.engine.melds import MeldType
from server.engine.tiles import Tile
from server.records.assemble import checked, embedded_ruleset, int_list, rule_hints, ruleset_preset
from server.records.draw_names import WIN_LABELS, draw_name, infer_draw_reason
from server.records.errors import RecordError, TruncatedRecordError, UnsupportedRecordError
from server.records.model import DrawResult, GameRecord, HandRecord, RecordedYaku, RecordFormat, Win
from server.records.tenhou6_interleave import (
    CallText,
    Interleaver,
    NoReadingError,
    ReplayState,
    SeatLists,
)
from server.records.tiles import TSUMOGIRI_CODE, face_from_tenhou6
from server.records.yaku import LIMIT_LABELS, yaku_from_label

_CALL = re.compile(r"(?:[cpmka]?\d\d)+")
_PART = re.compile(r"([cpmka]?)(\d\d)")
_SUMMARY = re.compile(r"(?:(\d+)符(\d+)飜|(満貫|跳満|倍満|三倍満|数え役満|役満))(\d+)(?:-(\d+))?点(∀?)")
_YAKU = re.compile(r"(.+?)\((?:(\d+) ?(?:飜|[Hh]an)|(\d*)倍?(?:役満|[Yy]akuman))\)")
_LOBBY_MARKS = "般上特鳳若銀琥孔技"
_NORTH_ASIDE = "f44"  # three players: a north (code 44) set aside


def read_tenhou6(data: bytes | str) -> GameRecord:
    """Read tenhou.net/6 JSON (one object, or one object per line)."""
    objects = _json_objects(data)
    first = objects[0]
    names = first.get("name")
    if not isinstance(names, list) or len(names) != 4 or not all(isinstance(n, str) for n in names):
        raise RecordError(f"tenhou6: 'name' must be four strings, got {names!r:.80}")
    rule = first.get("rule", {})
    if not isinstance(rule, dict):
        raise RecordError(f"tenhou6: 'rule' must be an object, got {rule!r:.80}")
    rules, rule_text = _rules(rule)
    preset = sanma_preset(rule_text) if _sanma(rule_text) else "tenhou"
    if "ruleset" in first:
        rules = embedded_ruleset(first["ruleset"], "tenhou6")
        preset = ruleset_preset(rules)
    red_fives = tuple(rules.get("red_fives", (0, 1, 1) if _sanma(rule_text) else (1, 1, 1)))
    problems: list[str] = []
    hands: list[HandRecord] = []
    final: Any = None
    for number, obj in enumerate(objects):
        if obj.get("name") != names or obj.get("rule", {}) != rule:
            problems.append(f"object {number} names other players or rules than the first")
        log = obj.get("log")
        if not isinstance(log, list):
            raise RecordError(f"tenhou6: object {number} has no 'log' list")
        for entry in log:
            hands.append(checked(_read_hand(entry, len(hands)), red_fives))
        final = obj.get("sc", final)
    if not hands:
        raise RecordError("tenhou6: 'log' holds no hands")
    seats = {h.seats for h in hands}
    if len(seats) > 1:
        raise RecordError(f"tenhou6: hands of {sorted(seats)} players in one game")
    if _sanma(rule_text) and seats != {3}:
        raise RecordError(f"tenhou6: rule {rule_text!r} is three-player but the hands deal four")
    if seats == {3} and "ruleset" not in first and not _sanma(rule_text):
        # No rule name says so, but the fourth seat is empty: Tenhou's three-player rules.
        preset = "tenhou-sanma"
        if "red_fives" in rules:
            rules = {**rules, "red_fives": (0, *tuple(rules["red_fives"])[1:])}
    final_scores, final_points = _final(final)
    n = seats.pop()
    if final_scores is not None and final_points is not None:
        final_scores, final_points = final_scores[:n], final_points[:n]
    return GameRecord(
        source=RecordFormat.TENHOU6,
        preset=preset,
        rules=rules,
        rule_text=rule_text,
        names=tuple(names[:n]),
        hands=tuple(hands),
        final_scores=final_scores,
        final_points=final_points,
        complete=all(h.complete for h in hands),
        problems=tuple(problems),
    )


def _json_objects(data: bytes | str) -> list[dict[str, Any]]:
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RecordError(f"tenhou6: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    elif isinstance(data, str):
        text = data
    else:
        raise RecordError(f"tenhou6: expected bytes or text, got {type(data).__name__}")
    try:
        parsed: list[Any] = [json.loads(text)]
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            raise _json_error(exc, "the document") from None
        parsed = []
        for number, line in enumerate(text.splitlines()):
            if line.strip():
                try:
                    parsed.append(json.loads(line))
                except json.JSONDecodeError as line_exc:
                    raise _json_error(line_exc, f"line {number + 1}") from None
    except RecursionError:
        raise RecordError("tenhou6: JSON nested too deeply") from None
    if not parsed or not all(isinstance(o, dict) for o in parsed):
        raise RecordError("tenhou6: expected JSON object(s) with a 'log'")
    return parsed


def _json_error(exc: json.JSONDecodeError, where: str) -> RecordError:
    if exc.pos >= len(exc.doc.rstrip()) or exc.msg.startswith("Unterminated string"):
        return TruncatedRecordError(f"tenhou6: {where} is cut short ({exc.msg})")
    return RecordError(f"tenhou6: {where} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")


def _rules(rule: dict[str, Any]) -> tuple[dict[str, Any], str]:
    disp = rule.get("disp", "")
    if not isinstance(disp, str):
        raise RecordError(f"tenhou6: rule.disp must be a string, got {disp!r:.40}")
    if "祝" in disp:
        raise UnsupportedRecordError(
            f"tenhou6: rule {disp!r} is a chip lobby (祝儀): its results pay chips beside the points, "
            "which Jantaku does not score, so the record is not replayed"
        )
    lobby = bool(disp) and disp[0] in _LOBBY_MARKS  # Tenhou's own lobby names: 般南喰赤 etc.
    reds: tuple[int, int, int] | None = None
    if all(isinstance(rule.get(k), int) for k in ("aka51", "aka52", "aka53")):
        reds = (rule["aka51"], rule["aka52"], rule["aka53"])
    elif isinstance(rule.get("aka"), int):
        reds = (1, 1, 1) if rule["aka"] else (0, 0, 0)
    elif lobby or _sanma(disp):
        reds = (1, 1, 1) if "赤" in disp else (0, 0, 0)
    if reds is not None and _sanma(disp):
        reds = (0, *reds[1:])  # three players have no 5m
    if reds is not None and any(not 0 <= n <= 4 for n in reds):
        raise RecordError(f"tenhou6: red five counts {reds} out of range")
    east_south: bool | None = None
    if "南" in disp or "東" in disp:
        east_south = "南" in disp
    kuitan = ("喰" in disp) if lobby else None
    return rule_hints(red_fives=reds, east_south=east_south, open_tanyao=kuitan), disp


def _sanma(disp: str) -> bool:
    """A three-player rule name: Tenhou's (三鳳南喰赤) and Mahjong Soul's (三金の間) start with 三."""
    return disp.startswith("三")


def sanma_preset(disp: str) -> str:
    """The preset of a three-player record: Mahjong Soul's rooms are named ...の間."""
    return "mahjongsoul-sanma" if "の間" in disp else "tenhou-sanma"


def _final(sc: Any) -> tuple[tuple[int, ...] | None, tuple[float, ...] | None]:
    if sc is None:
        return None, None
    if not isinstance(sc, list) or len(sc) != 8 or not all(isinstance(v, int | float) for v in sc):
        raise RecordError(f"tenhou6: 'sc' must be four score, points pairs, got {sc!r:.80}")
    scores = [int(v) for v in sc[0::2]]
    if abs(sum(scores)) <= 1200:  # written in hundreds, like mjlog's owari
        scores = [v * 100 for v in scores]
    return tuple(scores), tuple(float(v) for v in sc[1::2])


def _tile(code: Any, where: str) -> Tile:
    face = face_from_tenhou6(code)
    if face is None:
        raise RecordError(f"tenhou6: {where}: {code!r} is not a tile code")
    return face


def _parse_call(text: str, where: str) -> CallText:
    if not _CALL.fullmatch(text):
        raise RecordError(f"tenhou6: {where}: {text!r} is not a call")
    parts = _PART.findall(text)
    letters = [(i, letter) for i, (letter, _code) in enumerate(parts) if letter]
    if len(letters) != 1:
        raise RecordError(f"tenhou6: {where}: {text!r} needs exactly one call letter")
    marked, letter = letters[0]
    tiles = tuple(_tile(int(code), where) for _letter, code in parts)
    type_ = {"c": MeldType.CHI, "p": MeldType.PON, "m": MeldType.DAIMINKAN, "a": MeldType.ANKAN}.get(
        letter, MeldType.KAKAN
    )
    size = 3 if type_ in (MeldType.CHI, MeldType.PON) else 4
    if len(tiles) != size or (type_ is MeldType.CHI and marked != 0):
        raise RecordError(f"tenhou6: {where}: {text!r} is not a well-formed {type_}")
    offset = 0
    if type_ in (MeldType.CHI, MeldType.PON, MeldType.DAIMINKAN):
        offset = 3 if marked == 0 else 2 if marked == 1 else 1
    return CallText(type_, tiles, marked, offset)


def _read_hand(entry: Any, index: int) -> HandRecord:
    where = f"hand {index}"
    if not isinstance(entry, list) or len(entry) != 17:
        raise RecordError(f"tenhou6: {where} must be a list of 17 entries")
    head = int_list(entry[0], f"{where} [round, honba, sticks]", length=3)
    if not 0 <= head[0] < 16 or head[1] < 0 or head[2] < 0:
        raise RecordError(f"tenhou6: {where}: round/honba/sticks {head} out of range")
    scores = tuple(int_list(entry[1], f"{where} scores", length=4))
    n = 3 if entry[13] == [] and entry[14] == [] and entry[15] == [] else 4  # three players: seat 4 empty
    if any(scores[n:]):
        raise RecordError(f"tenhou6: {where}: an empty fourth seat has the score {scores[3]}")
    scores = scores[:n]
    dora = tuple(_tile(c, f"{where} dora") for c in int_list(entry[2], f"{where} dora"))
    ura = tuple(_tile(c, f"{where} ura") for c in int_list(entry[3], f"{where} ura"))
    if not dora:
        raise RecordError(f"tenhou6: {where} has no dora indicator")
    seats = [_read_seat(entry[4 + 3 * s : 7 + 3 * s], f"{where} seat {s}") for s in range(n)]
    result = entry[16]
    if not isinstance(result, list) or not result or not isinstance(result[0], str):
        raise RecordError(f"tenhou6: {where}: the result must start with a label, got {result!r:.60}")
    dealer = head[0] % 4
    replay = Interleaver(seats, result, dora, dealer)
    try:
        state: ReplayState | None = replay.run()
    except NoReadingError as exc:
        state, replay.notes = None, [*replay.notes, f"cannot replay the lists: {exc}"]
    if result[0] not in WIN_LABELS and draw_name(result[0]) is None:
        replay.notes.append(f"unknown result {result[0]!r}")
    wins, draw = _result(result, state, dora, ura, where, n=n) if state else ((), None)
    return HandRecord(
        round_wind=head[0] // 4,
        kyoku=head[0] % 4,
        honba=head[1],
        riichi_sticks=head[2],
        dealer=dealer,
        start_scores=scores,
        dealt=tuple(s.dealt for s in seats),
        dora_indicators=dora,
        ura_indicators=ura,
        steps=tuple(state.steps) if state else (),
        wins=wins,
        draw=draw,
        complete=state is not None,
        problems=tuple(replay.notes),
    )


def _read_seat(lists: list[Any], where: str) -> SeatLists:
    dealt_raw, takes_raw, discards_raw = lists
    dealt = tuple(_tile(c, f"{where} dealt") for c in int_list(dealt_raw, f"{where} dealt"))
    if not dealt:
        raise UnsupportedRecordError(f"tenhou6: {where} has no tiles (three-player mahjong)")
    if len(dealt) != 13:
        raise RecordError(f"tenhou6: {where} is dealt {len(dealt)} tiles")
    if not isinstance(takes_raw, list) or not isinstance(discards_raw, list):
        raise RecordError(f"tenhou6: {where}: takes and discards must be lists")
    takes: list[Tile | CallText] = []
    for item in takes_raw:
        if isinstance(item, str):
            call = _parse_call(item, f"{where} takes")
            if call.type not in (MeldType.CHI, MeldType.PON, MeldType.DAIMINKAN):
                raise RecordError(f"tenhou6: {where}: {item!r} cannot be taken from a discard")
            takes.append(call)
        else:
            takes.append(_tile(item, f"{where} takes"))
    discards: list[tuple[str, Any]] = []
    for item in discards_raw:
        if item == _NORTH_ASIDE:
            discards.append(("north", None))
        elif isinstance(item, str) and item.startswith("r"):
            code = int(item[1:]) if item[1:].isdigit() else -1
            discards.append(("riichi", None if code == TSUMOGIRI_CODE else _tile(code, f"{where} riichi")))
        elif isinstance(item, str):
            call = _parse_call(item, f"{where} discards")
            if call.type not in (MeldType.ANKAN, MeldType.KAKAN):
                raise RecordError(f"tenhou6: {where}: {item!r} cannot be declared in turn")
            discards.append(("kan", call))
        elif item == TSUMOGIRI_CODE and not isinstance(item, bool):
            discards.append(("tsumogiri", None))
        elif item == 0 and not isinstance(item, bool):
            discards.append(("none", None))
        else:
            discards.append(("tile", _tile(item, f"{where} discards")))
    return SeatLists(dealt, takes, discards)


def _deltas(raw: Any, where: str, n: int) -> tuple[int, ...]:
    deltas = tuple(int_list(raw, where, length=4))
    if any(deltas[n:]):
        raise RecordError(f"tenhou6: {where}: an empty fourth seat changes score")
    return deltas[:n]


def _result(
    result: list[Any],
    state: ReplayState,
    dora: tuple[Tile, ...],
    ura: tuple[Tile, ...],
    where: str,
    *,
    n: int,
) -> tuple[tuple[Win, ...], DrawResult | None]:
    label, tracker = result[0], state.tracker
    if label not in WIN_LABELS:
        deltas = _deltas(result[1], f"{where} deltas", n) if len(result) > 1 else (0,) * n
        name = draw_name(label)  # an unknown label is noted by the caller; the table tells then
        reason = name.reason if name is not None else infer_draw_reason(tracker)
        tenpai: tuple[int, ...] | None = None
        if name is not None and name.all_tenpai is not None:
            tenpai = tuple(range(n)) if name.all_tenpai else ()
        elif reason is DrawReason.EXHAUSTIVE and any(deltas) and not (name is not None and name.nagashi):
            tenpai = tuple(s for s in range(n) if deltas[s] > 0)
        nagashi = tracker.nagashi_seats() if name is not None and name.nagashi else ()
        declarer = tracker.seat if reason is DrawReason.KYUUSHU_KYUUHAI else None
        return (), DrawResult(reason, deltas, tenpai, nagashi, declarer=declarer)
    if len(result) < 3 or len(result) % 2 == 0:
        raise RecordError(f"tenhou6: {where}: a win result needs deltas and details per winner")
    wins: list[Win] = []
    for deltas_raw, info in zip(result[1::2], result[2::2], strict=True):
        deltas = _deltas(deltas_raw, f"{where} win deltas", n)
        if not isinstance(info, list) or len(info) < 4 or not all(isinstance(v, str) for v in info[3:]):
            raise RecordError(f"tenhou6: {where}: win details must be [who, from, pao, summary, yaku...]")
        who, from_seat, pao = int_list(info[:3], f"{where} win seats", length=3)
        if not all(0 <= v < n for v in (who, from_seat, pao)):
            raise RecordError(f"tenhou6: {where}: win seats {info[:3]} out of range")
        wins.append(
            _win(
                who=who,
                from_seat=from_seat,
                pao=pao,
                summary=info[3],
                yaku_labels=info[4:],
                deltas=deltas,
                state=state,
                dora=dora,
                ura=ura,
                seats=n,
            )
        )
    return tuple(wins), None


def _win(
    *,
    who: int,
    from_seat: int,
    pao: int,
    summary: str,
    yaku_labels: Sequence[str],
    deltas: tuple[int, ...],
    state: ReplayState,
    dora: tuple[Tile, ...],
    ura: tuple[Tile, ...],
    seats: int = 4,
) -> Win:
    tracker = state.tracker
    win_tile, hand = tracker.winning_hand(who, from_seat) or (0, ())
    yaku = tuple(_yaku(label) for label in yaku_labels)
    match = _SUMMARY.search(summary)
    fu = han = points = None
    limit = ""
    if match:
        fu_text, han_text, limit_text, first, second, all_pay = match.groups()
        fu = int(fu_text) if fu_text else None
        han = int(han_text) if han_text else None
        limit = LIMIT_LABELS.get(limit_text or "", "")
        # "A-B点": a non-dealer's tsumo (A from each non-dealer, B from the dealer); "X点∀": the
        # dealer's tsumo, X from each; "X点": a ron. Three players have one payer fewer.
        others = seats - 1
        points = (
            int(first) * (others - 1) + int(second) if second else int(first) * (others if all_pay else 1)
        )
    yakuman = sum(y.han // 13 for y in yaku if y.yakuman)
    if han is None:
        han = sum(y.han for y in yaku)
    if limit == "yakuman" and not yakuman:
        limit = "kazoe_yakuman"
    return Win(
        seat=who,
        from_seat=from_seat,
        win_tile=win_tile,
        hand=hand,
        melds=tuple(tracker.melds[who]),
        han=han,
        fu=fu,
        points=points,
        limit=limit,
        yaku=yaku,
        yakuman=yakuman,
        dora_indicators=dora,
        ura_indicators=ura if tracker.riichi[who] else (),
        deltas=deltas,
        pao_seat=None if pao == who else pao,
    )


def _yaku(text: str) -> RecordedYaku:
    match = _YAKU.fullmatch(text)
    if not match:
        return RecordedYaku(text, 0, text)
    label, han_text, multiple = match.groups()
    known = yaku_from_label(label)
    our_id = known.id if known else label
    if han_text is not None:
        return RecordedYaku(our_id, int(han_text), label)
    return RecordedYaku(our_id, 13 * (int(multiple) if multiple else 1), label, yakuman=True)
