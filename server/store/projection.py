"""Per-hand results, projected from the step log (the ``hand_results`` table).

The log is the truth; this projection makes "every hand of this game with yaku, han, fu, points and
deltas" one indexed query for the admin pages. The group-commit writer applies it in the same
transaction as the steps, so the two never disagree; :meth:`SqlRepository.rebuild_hand_results`
recomputes it from the log, and the in-memory repository computes it from its log when asked.

A hand starts with ``round_started`` (a row is inserted) and ends, within one step, with one
``hand_won`` per winner or one ``hand_drawn``, then ``wall_revealed`` (the row is completed). The
hub's step records carry their engine events (``StepRecord.engine_events``), so on the write path
nothing is decoded; otherwise only those four kinds are decoded
(:func:`server.eventlog.codec.decode_kinds`) and the others, and malformed events, are skipped
unread: the projection never makes an append fail.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.domain.reads import HandResult
from server.engine import events as ev
from server.eventlog.codec import EventKind, decode_kinds
from server.eventlog.summary import tiles_json, win_summary

_PROJECTED = frozenset(
    {EventKind.ROUND_STARTED, EventKind.HAND_WON, EventKind.HAND_DRAWN, EventKind.WALL_REVEALED}
)
_PROJECTED_TYPES = (ev.RoundStarted, ev.HandWon, ev.HandDrawn, ev.WallRevealed)


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


def _add(a: list[int] | None, b: list[int]) -> list[int]:
    if a is None or len(a) != len(b):
        return b if a is None else a
    return [x + y for x, y in zip(a, b, strict=True)]


def hand_ops(
    match_id: str,
    step: int,
    events: Iterable[Any],
    version: int,
    engine_events: Iterable[ev.Event] | None = None,
) -> list[HandOp]:
    """The hand_results changes that the stored events of one step (in format ``version``) imply;
    from ``engine_events`` instead when the step still has them (nothing to decode)."""
    ops: list[HandOp] = []
    current: int | None = None  # the hand started earlier in this step, if any
    end: HandEnd | None = None
    if engine_events is not None:
        # most steps (a draw, a discard) have none of the projected events: one check per event
        typed: Iterable[Any] = [e for e in engine_events if isinstance(e, _PROJECTED_TYPES)]
        if not typed:
            return []
    else:
        typed = decode_kinds(events, version, _PROJECTED)
    for e in typed:
        if isinstance(e, ev.RoundStarted):
            if end is not None:
                ops.append(end)
                end = None
            ops.append(_hand_start(match_id, step, e))
            current = e.hand_index
        elif isinstance(e, ev.HandWon | ev.HandDrawn | ev.WallRevealed):
            if end is None:
                end = HandEnd(hand_index=current, end_step=step)
            _apply_end(end, e)
    if end is not None:
        ops.append(end)
    return ops


def _hand_start(match_id: str, step: int, e: ev.RoundStarted) -> HandStart:
    return HandStart(
        {
            "match_id": match_id,
            "hand_index": e.hand_index,
            "round_wind": e.round_wind,
            "kyoku": e.kyoku,
            "honba": e.honba,
            "riichi_sticks": e.riichi_sticks,
            "dealer": e.dealer,
            "scores_before": list(e.scores),
            "wall_commitment": e.wall_commitment,
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


def _apply_end(end: HandEnd, e: ev.Event) -> None:
    match e:
        case ev.HandWon():
            end.outcome = "won"
            end.wins.append(win_summary(e))
            end.deltas = _add(end.deltas, list(e.deltas))
            end.scores_after = list(e.scores) or end.scores_after
        case ev.HandDrawn():
            end.outcome = "drawn"
            end.draw_reason = e.reason.value
            end.deltas = list(e.deltas)
            end.scores_after = list(e.scores)
            end.tenpai = list(e.tenpai)
            end.nagashi = list(e.nagashi)
        case ev.WallRevealed():
            end.wall = tiles_json(e.wall)
            end.wall_salt = e.salt
        case _:
            pass


def replay_ops(match_id: str, steps: Sequence[tuple[int, Sequence[Any], int]]) -> list[HandOp]:
    """The ops of a whole log, ``(step, events, format_version)`` per step (to rebuild the projection)."""
    out: list[HandOp] = []
    for step, events, version in steps:
        out.extend(hand_ops(match_id, step, events, version))
    return out


def _opt_tuple(value: Any) -> tuple[Any, ...] | None:
    return None if value is None else tuple(value)


def hand_result(row: Mapping[Any, Any]) -> HandResult:
    """The record of one projected hand row (its columns by name, JSON as a database gives it)."""
    return HandResult(
        match_id=row["match_id"],
        hand_index=row["hand_index"],
        round_wind=row["round_wind"],
        kyoku=row["kyoku"],
        honba=row["honba"],
        riichi_sticks=row["riichi_sticks"],
        dealer=row["dealer"],
        scores_before=tuple(row["scores_before"]),
        wall_commitment=row["wall_commitment"],
        start_step=row["start_step"],
        end_step=row["end_step"],
        outcome=row["outcome"],
        draw_reason=row["draw_reason"],
        wins=tuple(row["wins"]),
        deltas=_opt_tuple(row["deltas"]),
        scores_after=_opt_tuple(row["scores_after"]),
        tenpai=_opt_tuple(row["tenpai"]),
        nagashi=_opt_tuple(row["nagashi"]),
        wall_salt=row["wall_salt"],
        wall=_opt_tuple(row["wall"]),
    )
