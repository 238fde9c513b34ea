"""Write mjai JSON lines in Mortal's schema and event order (what Mortal, akochan and mjai.app read).

One event per line. The fields are Mortal's (``libriichi``'s ``mjai::Event``)::

    start_game {names}              start_kyoku {bakaze, dora_marker, kyoku (1-based), honba,
                                                 kyotaku, oya, scores, tehais}
    tsumo {actor, pai}              dahai {actor, pai, tsumogiri}
    chi / pon / daiminkan {actor, target, pai, consumed}
    kakan {actor, pai, consumed}    ankan {actor, consumed}
    dora {dora_marker}              reach {actor}     reach_accepted {actor}
    hora {actor, target, deltas, ura_markers}         ryukyoku {deltas}
    end_kyoku                       end_game

Extra fields that Mortal ignores and other readers use: ``start_game`` carries ``kyoku_first``
(0 hanchan, 4 east only) and ``aka_flag`` as mjai-reviewer writes them, and ``ruleset``, the whole
Jantaku ruleset; ``reach_accepted`` carries the original mjai ``deltas`` and ``scores``; ``hora``
repeats ``ura_markers`` as the original mjai's ``uradora_markers`` and names the liable seat
(``pao``) when there is one; ``ryukyoku`` says its
``reason`` (and ``tenpais`` after an exhaustive draw); ``end_game`` has the final ``scores``.

Event order, as Mortal's own table (``libriichi`` ``arena/board.rs``) produces it:

* ``reach``, then the ``dahai``; ``reach_accepted`` after the ``dahai`` once nobody rons, before
  the next ``tsumo`` or the call on that tile;
* ``ankan``, then its ``dora``, then the replacement ``tsumo``; an open kan's indicator still
  pending from before is turned just before the ``ankan``;
* ``daiminkan``/``kakan``, the replacement ``tsumo``, then the ``dora`` just before that player's
  next ``dahai``; a pending indicator at a ``kakan`` is turned after it, before the replacement
  ``tsumo``.

Hidden tiles are ``"?"`` in a player's view (:func:`export_mjai` with ``viewer``): which tiles a
seat may see is decided by :func:`server.engine.views.redact`, nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from server.engine.events import DrawReason, Event, RoundStarted, TileDrawn
from server.engine.melds import MeldType
from server.engine.rules import GameLength
from server.engine.views import Viewer, redact
from server.records.from_events import record_from_events
from server.records.model import (
    CallStep,
    DiscardStep,
    DoraStep,
    DrawStep,
    GameRecord,
    HandRecord,
    RiichiAcceptedStep,
    Step,
)
from server.records.tiles import mjai_from_face

WINDS = "ESWN"
HIDDEN = "?"


def export_mjai(events: Sequence[Event], *, names: Sequence[str] | None = None, viewer: Viewer = None) -> str:
    """A match's events as mjai JSON lines: omniscient (``viewer=None``), or what seat ``viewer``
    may see, every tile that :func:`~server.engine.views.redact` hides written as ``"?"``."""
    lines = mjai_events(record_from_events(events, names=names))
    if viewer is not None:
        lines = _hide(lines, [redact(e, viewer) for e in events])
    return _jsonl(lines)


def mjai_views(events: Sequence[Event], *, names: Sequence[str] | None = None) -> tuple[str, ...]:
    """The four players' views (seat 0..3) of a match, as mjai JSON lines."""
    lines = mjai_events(record_from_events(events, names=names))
    return tuple(_jsonl(_hide(lines, [redact(e, seat) for e in events])) for seat in range(4))


def write_mjai(record: GameRecord) -> str:
    """A :class:`GameRecord` as omniscient mjai JSON lines."""
    return _jsonl(mjai_events(record))


def _jsonl(lines: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in lines)


def _hide(lines: list[dict[str, Any]], redacted: Sequence[Event]) -> list[dict[str, Any]]:
    """Replace in ``lines`` what the redacted events hide: the k-th ``start_kyoku`` is the k-th
    ``RoundStarted``, the k-th ``tsumo`` the k-th ``TileDrawn``."""
    starts: Iterator[RoundStarted] = (e for e in redacted if isinstance(e, RoundStarted))
    draws: Iterator[TileDrawn] = (e for e in redacted if isinstance(e, TileDrawn))
    out: list[dict[str, Any]] = []
    for line in lines:
        shown = line
        if line["type"] == "start_kyoku":
            seen = next(starts)
            tehais = [
                h if seen.hands[s] is not None else [HIDDEN] * len(h) for s, h in enumerate(line["tehais"])
            ]
            shown = {**line, "tehais": tehais}
        elif line["type"] == "tsumo" and next(draws).tile is None:
            shown = {**line, "pai": HIDDEN}
        out.append(shown)
    return out


def mjai_events(record: GameRecord) -> list[dict[str, Any]]:
    """The record as mjai event objects, in Mortal's order (see the module docstring)."""
    ruleset = record.ruleset()
    out: list[dict[str, Any]] = [
        {
            "type": "start_game",
            "names": list(record.names),
            "kyoku_first": 4 if ruleset.game_length is GameLength.EAST else 0,
            "aka_flag": any(ruleset.red_fives),
            "ruleset": ruleset.to_dict(),
        }
    ]
    for hand in record.hands:
        out.extend(_hand_events(hand))
    if record.complete:
        end: dict[str, Any] = {"type": "end_game"}
        if record.final_scores is not None:
            end["scores"] = list(record.final_scores)
        out.append(end)
    return out


def _tiles(tiles: Sequence[int]) -> list[str]:
    return [mjai_from_face(t) for t in tiles]


def _hand_events(hand: HandRecord) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {
            "type": "start_kyoku",
            "bakaze": WINDS[hand.round_wind % 4],
            "dora_marker": mjai_from_face(hand.dora_indicators[0]),
            "kyoku": hand.kyoku + 1,
            "honba": hand.honba,
            "kyotaku": hand.riichi_sticks,
            "oya": hand.dealer,
            "scores": list(hand.start_scores),
            "tehais": [_tiles(h) for h in hand.dealt],
        }
    ]
    scores = list(hand.start_scores)
    for step in mortal_order(hand.steps):
        match step:
            case ("reach", seat):
                out.append({"type": "reach", "actor": seat})
            case DrawStep(seat, tile, _):
                out.append({"type": "tsumo", "actor": seat, "pai": mjai_from_face(tile)})
            case DiscardStep(seat, tile, tsumogiri, _):
                out.append(
                    {"type": "dahai", "actor": seat, "pai": mjai_from_face(tile), "tsumogiri": tsumogiri}
                )
            case CallStep():
                out.append(_call_event(step))
            case DoraStep(indicator):
                out.append({"type": "dora", "dora_marker": mjai_from_face(indicator)})
            case RiichiAcceptedStep(seat):
                scores[seat] -= 1000
                deltas = [-1000 if s == seat else 0 for s in range(4)]
                out.append(
                    {"type": "reach_accepted", "actor": seat, "deltas": deltas, "scores": list(scores)}
                )
    for win in hand.wins:
        ura = _tiles(win.ura_indicators)
        out.append(
            {
                "type": "hora",
                "actor": win.seat,
                "target": win.from_seat,
                "deltas": list(win.deltas),
                "ura_markers": ura,
                "uradora_markers": ura,
            }
        )
        if win.pao_seat is not None:
            out[-1]["pao"] = win.pao_seat
    if hand.draw is not None:
        draw = hand.draw
        reason = "nagashi_mangan" if draw.nagashi else str(draw.reason)
        event: dict[str, Any] = {"type": "ryukyoku", "deltas": list(draw.deltas), "reason": reason}
        if draw.reason is DrawReason.EXHAUSTIVE and draw.tenpai is not None:
            event["tenpais"] = [s in draw.tenpai for s in range(4)]
        out.append(event)
    if hand.complete:
        out.append({"type": "end_kyoku"})
    return out


def mortal_order(steps: Sequence[Step]) -> list[Step | tuple[str, int]]:
    """The steps (in the order the Tenhou readers give) in Mortal's event order, with each riichi
    declaration as a ``("reach", seat)`` item before its discard and the dora reveals it precedes.

    An ankan followed by more than one dora reveal turned the earlier ones for a pending open kan:
    Mortal turns those before the ``ankan``.
    """
    items: list[Step | tuple[str, int]] = []
    i = 0
    while i < len(steps):
        step = steps[i]
        if isinstance(step, CallStep) and step.type is MeldType.ANKAN:
            j = i + 1
            while j < len(steps) and isinstance(steps[j], DoraStep):
                j += 1
            reveals = list(steps[i + 1 : j])
            items.extend(reveals[:-1])
            items.append(step)
            items.extend(reveals[-1:])
            i = j
            continue
        if isinstance(step, DiscardStep) and step.riichi:
            k = len(items)
            while k > 0 and isinstance(items[k - 1], DoraStep):
                k -= 1
            items.insert(k, ("reach", step.seat))
        items.append(step)
        i += 1
    return items


def _call_event(step: CallStep) -> dict[str, Any]:
    event: dict[str, Any] = {"type": str(step.type), "actor": step.seat}
    if step.type is MeldType.ANKAN:
        event["consumed"] = _tiles(step.consumed)
    elif step.type is MeldType.KAKAN:
        assert step.called is not None
        pon = list(step.tiles)
        pon.remove(step.called)
        event["pai"] = mjai_from_face(step.called)
        event["consumed"] = _tiles(pon)
    else:
        assert step.called is not None
        event["target"] = step.from_seat
        event["pai"] = mjai_from_face(step.called)
        event["consumed"] = _tiles(step.consumed)
    return event
