"""Per-hand results, projected from the step log (the ``hand_results`` table).

The log is the truth; this projection makes "every hand of this game with yaku, han, fu, points and
deltas" one indexed query for the admin pages. The group-commit writer applies it in the same
transaction as the steps, so the two never disagree; :meth:`SqlRepository.rebuild_hand_results`
recomputes it from the log.

Events are the wire vocabulary as dicts (``{"type": "round_started", ...}``). A hand starts with
``round_started`` (a row is inserted) and ends, within one step, with one ``hand_won`` per winner or
one ``hand_drawn``, then ``wall_revealed`` (the row is completed). Unknown or malformed events are
ignored: the projection never makes an append fail.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

WIN_FIELDS = (
    "seat",
    "from_seat",
    "win_tile",
    "yaku",
    "han",
    "fu",
    "points",
    "limit",
    "yakuman",
    "pao_seat",
    "deltas",
)


@dataclass(slots=True)
class HandStart:
    """Insert a hand row."""

    values: dict[str, Any]


@dataclass(slots=True)
class HandEnd:
    """Complete a hand row: the one with ``hand_index``, or the match's latest when None."""

    hand_index: int | None
    end_step: int
    outcome: str | None = None
    draw_reason: str | None = None
    wins: list[dict[str, Any]] = field(default_factory=list)
    deltas: list[int] | None = None
    scores_after: list[int] | None = None
    tenpai: list[bool] | None = None
    nagashi: list[int] | None = None
    wall_salt: str | None = None
    wall: list[str] | None = None

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {"end_step": self.end_step}
        if self.outcome is not None:
            out |= {
                "outcome": self.outcome,
                "draw_reason": self.draw_reason,
                "wins": self.wins,
                "deltas": self.deltas,
                "scores_after": self.scores_after,
                "tenpai": self.tenpai,
                "nagashi": self.nagashi,
            }
        if self.wall is not None:
            out |= {"wall_salt": self.wall_salt, "wall": self.wall}
        return out


HandOp = HandStart | HandEnd


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _ints(value: Any) -> list[int] | None:
    if isinstance(value, list | tuple) and all(_int(v) is not None for v in value):
        return list(value)
    return None


def _add(a: list[int] | None, b: list[int] | None) -> list[int] | None:
    if a is None:
        return b
    if b is None or len(a) != len(b):
        return a
    return [x + y for x, y in zip(a, b, strict=True)]


def hand_ops(match_id: str, step: int, events: Iterable[Any]) -> list[HandOp]:
    """The hand_results changes that the events of one step imply, in order."""
    ops: list[HandOp] = []
    current: int | None = None  # the hand started earlier in this step, if any
    end: HandEnd | None = None
    for e in events:
        if not isinstance(e, Mapping):
            continue
        kind = e.get("type")
        if kind == "round_started":
            start = _hand_start(match_id, step, e)
            if start is None:
                continue
            if end is not None:
                ops.append(end)
                end = None
            ops.append(start)
            current = start.values["hand_index"]
        elif kind in ("hand_won", "hand_drawn", "wall_revealed"):
            if end is None:
                end = HandEnd(hand_index=current, end_step=step)
            _apply_end(end, e)
    if end is not None:
        ops.append(end)
    return ops


def _hand_start(match_id: str, step: int, e: Mapping[str, Any]) -> HandStart | None:
    ints = {k: _int(e.get(k)) for k in ("hand_index", "round_wind", "kyoku", "honba", "riichi_sticks")}
    dealer = _int(e.get("dealer"))
    scores = _ints(e.get("scores"))
    commitment = e.get("wall_commitment")
    if any(v is None for v in ints.values()) or dealer is None or scores is None:
        return None
    if not isinstance(commitment, str):
        return None
    return HandStart(
        {
            "match_id": match_id,
            **ints,
            "dealer": dealer,
            "scores_before": scores,
            "wall_commitment": commitment,
            "start_step": step,
            "end_step": None,
            "outcome": None,
            "draw_reason": None,
            "wins": [],
            "deltas": None,
            "scores_after": None,
            "tenpai": None,
            "nagashi": None,
            "wall_salt": None,
            "wall": None,
        }
    )


def _apply_end(end: HandEnd, e: Mapping[str, Any]) -> None:
    kind = e.get("type")
    if kind == "hand_won":
        end.outcome = "won"
        end.wins.append({k: e.get(k) for k in WIN_FIELDS})
        end.deltas = _add(end.deltas, _ints(e.get("deltas")))
        end.scores_after = _ints(e.get("scores")) or end.scores_after
    elif kind == "hand_drawn":
        end.outcome = "drawn"
        reason = e.get("reason")
        end.draw_reason = reason if isinstance(reason, str) else None
        end.deltas = _ints(e.get("deltas"))
        end.scores_after = _ints(e.get("scores"))
        tenpai = e.get("tenpai")
        end.tenpai = list(tenpai) if isinstance(tenpai, list | tuple) else None
        end.nagashi = _ints(e.get("nagashi"))
    elif kind == "wall_revealed":
        wall = e.get("wall")
        salt = e.get("salt")
        if isinstance(wall, list | tuple) and isinstance(salt, str):
            end.wall = [str(t) for t in wall]
            end.wall_salt = salt


def replay_ops(match_id: str, steps: Sequence[tuple[int, Sequence[Any]]]) -> list[HandOp]:
    """The ops of a whole log (for rebuilding the projection)."""
    out: list[HandOp] = []
    for step, events in steps:
        out.extend(hand_ops(match_id, step, events))
    return out
