"""What a game's review takes from its stored log, beyond the per-hand projection: each hand's deal
and wins (decoded through the event log's codec), which hand each step belongs to, and the
decisions the server played for human seats (timeouts, disconnects).

Reading a damaged log never fails here: events that do not decode are left out (the export, which
needs every event, refuses such a log instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from server.domain.reads import HandResult, is_bot
from server.domain.records import SERVER_PLAYED_SOURCES, MatchRecord, StepRecord
from server.engine import events as ev
from server.engine.melds import Meld
from server.eventlog.codec import EventKind, StoredEventError, decode_kinds
from server.eventlog.convert import tile_to_wire, tiles_to_wire
from server.eventlog.summary import win_from_summary
from server.services import reviewtypes as m

WINDS = ("East", "South", "West", "North")
_SCANNED = frozenset({EventKind.ROUND_STARTED, EventKind.HAND_WON})


def hand_label(round_wind: int, kyoku: int, honba: int) -> str:
    wind = WINDS[round_wind] if 0 <= round_wind < 4 else f"Round {round_wind}"
    label = f"{wind} {kyoku + 1}"
    return f"{label}, {honba} honba" if honba else label


@dataclass(slots=True)
class LogScan:
    """What the step log says beyond the hand_results projection."""

    wins: dict[int, list[ev.HandWon]] = field(default_factory=dict)  # hand_index -> its wins
    deals: dict[int, ev.RoundStarted] = field(default_factory=dict)  # hand_index -> its deal
    hand_at_step: dict[int, int] = field(default_factory=dict)  # step -> current hand_index


def scan(steps: Sequence[StepRecord]) -> LogScan:
    out = LogScan()
    current: int | None = None
    for s in steps:
        for e in decode_kinds(s.events, s.format_version, _SCANNED):
            if isinstance(e, ev.RoundStarted):
                current = e.hand_index
                out.deals[current] = e
            elif isinstance(e, ev.HandWon) and current is not None:
                out.wins.setdefault(current, []).append(e)
        if current is not None:
            out.hand_at_step[s.step] = current
    return out


def _meld(meld: Meld) -> m.Meld:
    return m.Meld(
        type=meld.type.value,
        tiles=list(tiles_to_wire(meld.tiles)),
        called=None if meld.called is None else tile_to_wire(meld.called),
        from_seat=meld.from_seat,
        added=None if meld.added is None else tile_to_wire(meld.added),
    )


def win_model(w: ev.HandWon) -> m.Win:
    return m.Win(
        seat=w.seat,
        from_seat=w.from_seat,
        tsumo=w.from_seat == w.seat,
        win_tile=tile_to_wire(w.win_tile),
        hand=list(tiles_to_wire(w.hand)),
        melds=[_meld(md) for md in w.melds],
        yaku=[m.Yaku(name=y.name, han=y.han) for y in w.yaku],
        han=w.han,
        fu=w.fu,
        points=w.points,
        limit=w.limit,
        yakuman=w.yakuman,
        pao_seat=w.pao_seat,
        deltas=list(w.deltas),
        dora_indicators=list(tiles_to_wire(w.dora_indicators)),
        ura_indicators=list(tiles_to_wire(w.ura_indicators)),
    )


def _projected_wins(h: HandResult) -> list[ev.HandWon]:
    wins = []
    for summary in h.wins:
        try:
            wins.append(win_from_summary(summary))
        except StoredEventError:
            continue
    return wins


def hand_model(h: HandResult, log: LogScan) -> m.HandResult:
    # The hand_won events carry the hands and indicators; the projection alone is the fallback.
    wins = log.wins.get(h.hand_index) or _projected_wins(h)
    return m.HandResult(
        hand_index=h.hand_index,
        label=hand_label(h.round_wind, h.kyoku, h.honba),
        round_wind=h.round_wind,
        kyoku=h.kyoku,
        honba=h.honba,
        riichi_sticks=h.riichi_sticks,
        dealer=h.dealer,
        scores_before=list(h.scores_before),
        outcome=h.outcome,
        draw_reason=h.draw_reason,
        wins=[win_model(w) for w in wins],
        deltas=None if h.deltas is None else list(h.deltas),
        scores_after=None if h.scores_after is None else list(h.scores_after),
        tenpai=None if h.tenpai is None else list(h.tenpai),
        nagashi=None if h.nagashi is None else list(h.nagashi),
        start_step=h.start_step,
        end_step=h.end_step,
    )


def spectators_allowed(table: object) -> bool:
    """Whether a match's table let spectators watch, from its stored settings
    (``RecoveryRecord.table``: ``{"spectate": {"allowed": ...}, ...}``). A match stored without
    settings, or with settings this server cannot read, counts as private: publishing its log is
    the one answer that cannot be taken back."""
    spectate = table.get("spectate") if isinstance(table, dict) else None
    return isinstance(spectate, dict) and spectate.get("allowed") is True


def server_played(match: MatchRecord, step: StepRecord) -> bool:
    """A human seat's decision the server played: its ``source`` says timeout or disconnected; a
    step stored before sources were recorded (null) counts when no client sent it (no request id)."""
    if step.seat is None:
        return False
    if step.source is not None:
        return step.source in SERVER_PLAYED_SOURCES
    if step.request_id is not None:
        return False
    seat = next((s for s in match.seats if s.seat == step.seat), None)
    return seat is not None and not is_bot(seat)


def count_by_seat(auto: Sequence[m.AutoPlayed], source: str, seats: int, hand_index: int) -> list[int]:
    counts = [0] * seats
    for a in auto:
        if a.hand_index == hand_index and a.source == source and 0 <= a.seat < seats:
            counts[a.seat] += 1
    return counts


def auto_by_seat(match: MatchRecord, auto: Sequence[m.AutoPlayed]) -> list[m.SeatAutoPlayed]:
    return [
        m.SeatAutoPlayed(
            seat=s.seat,
            name=s.name,
            timeouts=sum(1 for a in auto if a.seat == s.seat and a.source == "timeout"),
            disconnects=sum(1 for a in auto if a.seat == s.seat and a.source == "disconnected"),
            total=sum(1 for a in auto if a.seat == s.seat),
        )
        for s in sorted(match.seats, key=lambda s: s.seat)
    ]
