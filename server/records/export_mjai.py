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
    nukidora {actor, pai: "N"}      (three players: a north set aside, as Mortal's three-player
                                     libriichi and RiichiEnv's logs name it)

A three-player game has three ``names``, ``scores``, ``tehais``, ``deltas`` and ``tenpais``.
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

:class:`MjaiStream` writes the same lines live, batch by batch, from one receiver's redacted events
(the hub's mjai endpoint, ``server.hub.mjai``); ``start_game`` then carries the receiver's seat as
``id``, as mjai.app does.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from server.engine.events import (
    DrawReason,
    Event,
    MatchEnded,
    MatchStarted,
    RoundStarted,
    TileDrawn,
)
from server.engine.melds import MeldType
from server.engine.rules import GameLength, Ruleset
from server.engine.tiles import NORTH, Tile
from server.engine.views import Viewer, redact
from server.records.from_events import HIDDEN_TILE, LiveHand, record_from_events
from server.records.model import (
    CallStep,
    DiscardStep,
    DoraStep,
    DrawResult,
    DrawStep,
    GameRecord,
    HandRecord,
    NorthStep,
    RiichiAcceptedStep,
    Step,
    Win,
)
from server.records.tiles import mjai_from_face

WINDS = "ESWN"
HIDDEN = "?"
MJAI_EVENT_TYPES = frozenset(
    {
        "start_game",
        "start_kyoku",
        "tsumo",
        "dahai",
        "chi",
        "pon",
        "daiminkan",
        "kakan",
        "ankan",
        "dora",
        "reach",
        "reach_accepted",
        "hora",
        "ryukyoku",
        "end_kyoku",
        "end_game",
        "nukidora",
    }
)
"""The mjai events this module writes (and the hub's ``/mjai`` endpoint sends, converted live by
:class:`MjaiStream`); every other ``type`` that endpoint sends (``welcome``, ``queued``, ``seated``,
``request``, ``error``, ``match_end``) is its own and is not for the bot (``server.bots.connect``)."""


def export_mjai(events: Sequence[Event], *, names: Sequence[str] | None = None, viewer: Viewer = None) -> str:
    """A match's events as mjai JSON lines: omniscient (``viewer=None``), or what seat ``viewer``
    may see, every tile that :func:`~server.engine.views.redact` hides written as ``"?"``."""
    lines = mjai_events(record_from_events(events, names=names))
    if viewer is not None:
        lines = _hide(lines, [redact(e, viewer) for e in events])
    return _jsonl(lines)


def mjai_views(events: Sequence[Event], *, names: Sequence[str] | None = None) -> tuple[str, ...]:
    """Every player's view (seat 0..3, or 0..2 with three players) of a match, as mjai JSON lines."""
    record = record_from_events(events, names=names)
    lines = mjai_events(record)
    seats = range(record.ruleset().seats)
    return tuple(_jsonl(_hide(lines, [redact(e, seat) for e in events])) for seat in seats)


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
    out: list[dict[str, Any]] = [_start_game(record.ruleset(), record.names)]
    for hand in record.hands:
        out.extend(_hand_events(hand))
    if record.complete:
        out.append(_end_game(record.final_scores))
    return out


def _start_game(ruleset: Ruleset, names: Sequence[str]) -> dict[str, Any]:
    return {
        "type": "start_game",
        "names": list(names),
        "kyoku_first": 4 if ruleset.game_length is GameLength.EAST else 0,
        "aka_flag": any(ruleset.red_fives),
        "ruleset": ruleset.to_dict(complete=True),
    }


def _end_game(scores: Sequence[int] | None) -> dict[str, Any]:
    end: dict[str, Any] = {"type": "end_game"}
    if scores is not None:
        end["scores"] = list(scores)
    return end


class MjaiStream:
    """One receiver's mjai lines of a live match, written as its (redacted) events arrive.

    ``feed`` takes the next events of the receiver's stream (``MatchStarted`` first, each redacted
    by :func:`server.engine.views.redact` for ``seat``) and returns the mjai event objects that
    follow: batch after batch, the same lines in the same order as :func:`export_mjai` with
    ``viewer=seat`` writes for the whole log (plus ``id`` in ``start_game``). The lines from the
    last draw on are rewritten at every batch, so that Mortal's reorderings (see the module
    docstring) come out as in a whole log. Only a batch cut inside one engine transition (the hub
    never cuts where a decision is due) can make a line come early; the lines still missing then
    follow in their order.
    """

    def __init__(self, *, seat: int | None, names: Sequence[str]) -> None:
        self.seat = seat
        self.names = tuple(names)
        self._hand: LiveHand | None = None
        self._stable: list[dict[str, Any]] = []  # lines of the hand's steps before ``_cut``: final
        self._cut = 0
        self._scores: list[int] = []  # the running scores after the stable steps
        self._shown: list[dict[str, Any]] = []  # lines of the current hand the receiver has
        self._dirty = False  # events of the current hand came since the last flush

    def feed(self, events: Sequence[Event]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for event in events:
            if isinstance(event, MatchStarted):
                start = _start_game(Ruleset.from_json(event.ruleset_json), self.names)
                if self.seat is not None:
                    start = {"type": "start_game", "id": self.seat, **start}
                out.append(start)
            elif isinstance(event, RoundStarted):
                self._flush(out)
                self._hand = LiveHand(event)
                opening = self._hand.opening()
                self._stable, self._cut = [_start_kyoku(opening)], 0
                self._scores = list(opening.start_scores)
                self._shown, self._dirty = [], True
            elif isinstance(event, MatchEnded):
                self._flush(out)
                self._hand = None
                out.append(_end_game(event.scores))
            elif self._hand is not None:
                self._dirty = True
                if self._hand.add(event):
                    self._flush(out)
                    self._hand = None
        self._flush(out)
        return out

    def shown(self, line: dict[str, Any]) -> None:
        """The receiver was given ``line`` ahead of the events (the hub echoes a bot's ``reach``
        before its discard): it is not given again when the events bring it."""
        self._shown.append(line)

    def _lines(self, hand: LiveHand) -> list[dict[str, Any]]:
        steps = hand.steps
        cut = len(steps)
        while cut > self._cut and not isinstance(steps[cut - 1], DrawStep):
            cut -= 1
        if cut > self._cut:  # the steps up to the last draw are final
            self._stable.extend(_step_events(mortal_order(steps[self._cut : cut]), self._scores))
            self._cut = cut
        tail = _step_events(mortal_order([*steps[cut:], *hand.held]), list(self._scores))
        return [*self._stable, *tail, *_result_events(hand.wins, hand.draw, complete=hand.complete)]

    def _flush(self, out: list[dict[str, Any]]) -> None:
        if self._hand is None or not self._dirty:
            return
        self._dirty = False
        lines = self._lines(self._hand)
        shown = self._shown
        if lines[: len(shown)] == shown:
            out.extend(lines[len(shown) :])
            self._shown = lines
            return
        # Some line came early (or was echoed and never confirmed): give what is missing, in order.
        have = Counter(_key(line) for line in shown)
        for line in lines:
            key = _key(line)
            if have[key] > 0:
                have[key] -= 1
            else:
                out.append(line)
        leftovers = []
        for line in shown:
            key = _key(line)
            if have[key] > 0:
                have[key] -= 1
                leftovers.append(line)
        self._shown = lines + leftovers


def _key(line: dict[str, Any]) -> str:
    return json.dumps(line, sort_keys=True)


def _pai(tile: Tile) -> str:
    return HIDDEN if tile == HIDDEN_TILE else mjai_from_face(tile)


def _tiles(tiles: Sequence[int]) -> list[str]:
    return [_pai(t) for t in tiles]


def _hand_events(hand: HandRecord) -> list[dict[str, Any]]:
    scores = list(hand.start_scores)
    return [
        _start_kyoku(hand),
        *_step_events(mortal_order(hand.steps), scores),
        *_result_events(hand.wins, hand.draw, complete=hand.complete),
    ]


def _start_kyoku(hand: HandRecord) -> dict[str, Any]:
    return {
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


def _step_events(items: Sequence[Step | tuple[str, int]], scores: list[int]) -> list[dict[str, Any]]:
    """The lines of steps in Mortal's order; ``scores`` (the running scores) follow the deposits."""
    out: list[dict[str, Any]] = []
    for step in items:
        match step:
            case ("reach", seat):
                out.append({"type": "reach", "actor": seat})
            case DrawStep(seat, tile, _):
                out.append({"type": "tsumo", "actor": seat, "pai": _pai(tile)})
            case DiscardStep(seat, tile, tsumogiri, _):
                out.append(
                    {"type": "dahai", "actor": seat, "pai": mjai_from_face(tile), "tsumogiri": tsumogiri}
                )
            case CallStep():
                out.append(_call_event(step))
            case DoraStep(indicator):
                out.append({"type": "dora", "dora_marker": mjai_from_face(indicator)})
            case NorthStep(seat):
                out.append({"type": "nukidora", "actor": seat, "pai": mjai_from_face(NORTH)})
            case RiichiAcceptedStep(seat):
                scores[seat] -= 1000
                deltas = [-1000 if s == seat else 0 for s in range(len(scores))]
                out.append(
                    {"type": "reach_accepted", "actor": seat, "deltas": deltas, "scores": list(scores)}
                )
    return out


def _result_events(wins: Sequence[Win], draw: DrawResult | None, *, complete: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for win in wins:
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
    if draw is not None:
        reason = "nagashi_mangan" if draw.nagashi else str(draw.reason)
        event: dict[str, Any] = {"type": "ryukyoku", "deltas": list(draw.deltas), "reason": reason}
        if draw.reason is DrawReason.EXHAUSTIVE and draw.tenpai is not None:
            event["tenpais"] = [s in draw.tenpai for s in range(len(draw.deltas))]
        out.append(event)
    if complete:
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
