"""Write tenhou.net/6 JSON: the format of the tenhou.net/6 viewer, mjai-reviewer and tensoul.

The document is one JSON object::

    {"title": [line1, line2], "name": [4 names], "rule": {"disp": "般南喰赤", "aka": 1, ...},
     "log": [hand, ...], "sc": [score, points, ...], "ruleset": {...}}

Each hand is a list of 17 entries (see :mod:`server.records.tenhou6` for how it reads back):
``[kyoku index, honba, sticks]`` (``kyoku index`` counts from east 1 = 0), the four start scores,
the dora indicators turned in the hand, the ura indicators (only after a riichi win), then for each
seat its 13 dealt tiles, its *takes* and its *discards*, and last the result.

* Tiles are codes: 11-19 man, 21-29 pin, 31-39 sou, 41-47 E S W N haku hatsu chun, 51-53 red fives.
* Takes: drawn tiles, and calls on discards: ``"c" + called + the two others`` (chi, always from
  the left), pon ``"p"`` and daiminkan ``"m"`` placed by where the tile came from: first = left
  (``"p252525"``), second = across (``"12p1212"``), last = right (``"3737p37"``, ``"131313m13"``).
* Discards: a tile code, ``60`` for the tile just drawn (tsumogiri), ``"r"`` + code (``"r60"``) for
  the riichi discard, ``0`` for the discard slot a daiminkan skips, ankan ``"121212a12"`` and kakan
  (the pon's string with ``"p"`` replaced by ``"k"`` and the added tile: ``"k25252525"``).
* Result: ``["和了", deltas, [who, from, pao, "30符1飜1000点", "立直(1飜)", ...], ...]`` (one
  deltas/details pair per winner; ``pao`` is ``who`` when nobody is liable), ``["流局", deltas]``,
  ``["全員聴牌"]``, ``["全員不聴"]``, ``["流し満貫", deltas]``, or an abort label (``"九種九牌"``,
  ``"四風連打"``, ``"四家立直"``, ``"四槓散了"``, ``"三家和了"``).

``ruleset`` is our extension: the whole :class:`~server.engine.rules.Ruleset` of a Jantaku match, so
that a verifier replays it under its own rules (the viewer and mjai-reviewer ignore it). Hands that
did not reach a result are left out: the format has no way to write them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from server.engine.events import DrawReason, Event
from server.engine.melds import MeldType
from server.engine.payments import tsumo_points
from server.engine.rules import GameLength, Ruleset
from server.engine.scoring import LIMIT_BASE
from server.engine.tiles import Tile, sort_key
from server.records.from_events import record_from_events
from server.records.model import (
    CallStep,
    DiscardStep,
    DrawStep,
    GameRecord,
    HandRecord,
    NorthStep,
    RecordedYaku,
    Win,
)
from server.records.tiles import TSUMOGIRI_CODE, tenhou6_from_face

LIMIT_WORDS: dict[str, str] = {
    "mangan": "満貫",
    "haneman": "跳満",
    "baiman": "倍満",
    "sanbaiman": "三倍満",
    "yakuman": "役満",
    "kazoe_yakuman": "役満",  # Tenhou writes a counted yakuman like any yakuman
}
ABORT_LABELS: dict[DrawReason, str] = {
    DrawReason.KYUUSHU_KYUUHAI: "九種九牌",
    DrawReason.SUUFON_RENDA: "四風連打",
    DrawReason.SUUCHA_RIICHI: "四家立直",
    DrawReason.SUUKAIKAN: "四槓散了",
    DrawReason.SANCHAHOU: "三家和了",
}
TITLE = "Jantaku"
SLOTS = 4  # the format keeps four seats; a three-player game leaves the last one empty (scores 0)
NORTH_ASIDE = "f44"  # a north set aside (three players), in the discards


def export_tenhou6(events: Sequence[Event], *, names: Sequence[str] | None = None) -> str:
    """A match's omniscient events as one tenhou.net/6 JSON document (one line, no trailing newline)."""
    return write_tenhou6(record_from_events(events, names=names))


def write_tenhou6(record: GameRecord) -> str:
    """A :class:`GameRecord` as one tenhou.net/6 JSON document."""
    ruleset = record.ruleset()
    doc: dict[str, Any] = {
        "title": [TITLE, ruleset.name],
        "name": _slots([*record.names], ""),
        "rule": rule_object(ruleset),
        "log": [_hand(hand, ruleset) for hand in record.hands if hand.complete],
    }
    if record.final_scores is not None and record.final_points is not None:
        pairs = zip(_slots(list(record.final_scores), 0), _slots(list(record.final_points), 0.0), strict=True)
        doc["sc"] = [v for pair in pairs for v in pair]
    doc["ruleset"] = ruleset.to_dict(complete=True)
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def _slots(values: list[Any], empty: Any) -> list[Any]:
    """Four entries: a three-player game's values and an empty fourth seat."""
    return values + [empty] * (SLOTS - len(values))


def rule_object(ruleset: Ruleset) -> dict[str, Any]:
    """``{"disp": ..., "aka": ...}``: a Tenhou-style lobby name for the length, kuitan and red fives
    (``般南喰赤``: ordinary lobby, east-south, open tanyao, red fives; ``三般南喰赤`` with three
    players) and the red five counts."""
    reds = ruleset.red_fives
    disp = (
        ("三" if ruleset.seats == 3 else "")
        + "般"
        + ("東" if ruleset.game_length is GameLength.EAST else "南")
    )
    disp += ("喰" if ruleset.open_tanyao else "") + ("赤" if any(reds) else "")
    out: dict[str, Any] = {"disp": disp, "aka": 1 if any(reds) else 0}
    if reds not in ((1, 1, 1), (0, 0, 0)):
        out.update({"aka51": reds[0], "aka52": reds[1], "aka53": reds[2]})
    return out


def _code(tile: Tile) -> int:
    return tenhou6_from_face(tile)


def _codes(tiles: Sequence[Tile]) -> list[int]:
    return [_code(t) for t in tiles]


def _hand(hand: HandRecord, ruleset: Ruleset) -> list[Any]:
    takes: list[list[Any]] = [[] for _ in range(SLOTS)]
    discards: list[list[Any]] = [[] for _ in range(SLOTS)]
    pons: dict[tuple[int, int], str] = {}  # (seat, kind of the pon's first tile) -> the pon's string
    for step in hand.steps:
        match step:
            case DrawStep(seat, tile, _):
                takes[seat].append(_code(tile))
            case DiscardStep(seat, tile, tsumogiri, riichi):
                code: int | str = TSUMOGIRI_CODE if tsumogiri else _code(tile)
                discards[seat].append(f"r{code}" if riichi else code)
            case NorthStep(seat):
                discards[seat].append(NORTH_ASIDE)
            case CallStep():
                call = call_string(step, pons)
                if step.type in (MeldType.ANKAN, MeldType.KAKAN):
                    discards[step.seat].append(call)
                else:
                    takes[step.seat].append(call)
                    if step.type is MeldType.DAIMINKAN:
                        discards[step.seat].append(0)
    out: list[Any] = [
        # Three players keep four-player numbering (south 1 is 4), as Tenhou's records do.
        [hand.round_wind * SLOTS + hand.kyoku, hand.honba, hand.riichi_sticks],
        _slots(list(hand.start_scores), 0),
        _codes(hand.dora_indicators),
        _codes(hand.ura_indicators),
    ]
    for seat in range(SLOTS):
        dealt = _codes(sorted(hand.dealt[seat], key=sort_key)) if seat < hand.seats else []
        out += [dealt, takes[seat], discards[seat]]
    out.append(_result(hand, ruleset))
    return out


def call_string(step: CallStep, pons: dict[tuple[int, int], str]) -> str:
    """A call as tenhou.net/6 writes it; ``pons`` remembers each seat's pon strings for a kakan."""
    seat = step.seat
    if step.type is MeldType.ANKAN:
        codes = [f"{c:02d}" for c in _codes(step.consumed)]
        return "".join(codes[:3]) + "a" + codes[3]
    if step.type is MeldType.KAKAN:
        assert step.called is not None
        pon = pons.pop((seat, _kind_code(step.called)), None)
        added = f"{_code(step.called):02d}"
        if pon is None:  # a kakan without a recorded pon: write it as if the pon came from the left
            rest = list(step.tiles)
            rest.remove(step.called)
            return "k" + added + "".join(f"{c:02d}" for c in _codes(rest))
        return pon.replace("p", "k" + added)
    assert step.called is not None
    called = f"{_code(step.called):02d}"
    others = [f"{c:02d}" for c in _codes(step.consumed)]
    letter = {MeldType.CHI: "c", MeldType.PON: "p", MeldType.DAIMINKAN: "m"}[step.type]
    # 0: from the left, 1: across, 2: from the right. Three players count the places round four
    # seats as Tenhou does (seat 2 takes from seat 0 "across").
    position = (seat - step.from_seat) % SLOTS - 1
    if letter == "m" and position == 2:
        position = 3  # a daiminkan from the right: the called tile is the fourth
    parts = [*others]
    parts.insert(position, letter + called)
    text = "".join(parts)
    if step.type is MeldType.PON:
        pons[(seat, _kind_code(step.called))] = text
    return text


def _kind_code(tile: Tile) -> int:
    return _code(tile) if _code(tile) < 50 else (_code(tile) - 50) * 10 + 5


def _result(hand: HandRecord, ruleset: Ruleset) -> list[Any]:
    if hand.wins:
        out: list[Any] = ["和了"]
        for win in hand.wins:
            pao = win.pao_seat if win.pao_seat is not None else win.seat
            details: list[Any] = [win.seat, win.from_seat, pao, point_text(win, hand.dealer, ruleset)]
            details += [yaku_text(y) for y in win.yaku if y.han]
            out += [_slots(list(win.deltas), 0), details]
        return out
    draw = hand.draw
    assert draw is not None
    if draw.reason is not DrawReason.EXHAUSTIVE:
        return [ABORT_LABELS[draw.reason]]
    if draw.nagashi:
        return ["流し満貫", _slots(list(draw.deltas), 0)]
    if not any(draw.deltas) and draw.tenpai is not None and len(draw.tenpai) in (0, hand.seats):
        return ["全員聴牌" if draw.tenpai else "全員不聴"]
    return ["流局", _slots(list(draw.deltas), 0)]


def yaku_text(yaku: RecordedYaku) -> str:
    """``"立直(1飜)"``, ``"大三元(役満)"``, ``"四暗刻単騎(2倍役満)"``."""
    if yaku.yakuman:
        multiple = yaku.han // 13
        return f"{yaku.label}({'' if multiple == 1 else f'{multiple}倍'}役満)"
    return f"{yaku.label}({yaku.han}飜)"


def point_text(win: Win, dealer: int, ruleset: Ruleset | None = None) -> str:
    """Tenhou's summary of a win's value: ``"30符1飜1000点"`` (ron), ``"満貫2000-4000点"`` (a
    non-dealer's tsumo: from each non-dealer, then from the dealer), ``"30符3飜2000点∀"`` (the
    dealer's tsumo, from each)."""
    if win.limit in LIMIT_WORDS:
        head = LIMIT_WORDS[win.limit]
        base = (
            LIMIT_BASE["yakuman"] * max(win.yakuman, 1) if "yakuman" in win.limit else LIMIT_BASE[win.limit]
        )
    else:
        head = f"{win.fu}符{win.han}飜"
        base = (win.fu or 0) * 2 ** ((win.han or 0) + 2)
    if not win.tsumo:
        return f"{head}{win.points}点"
    from_dealer, from_other = tsumo_points(base, win.seat == dealer, ruleset)
    if win.seat == dealer:
        return f"{head}{from_other}点∀"
    return f"{head}{from_other}-{from_dealer}点"
