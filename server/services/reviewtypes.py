"""What the review service returns: plain dataclasses, one per document.

The web package turns each into its pydantic model of the same name and fields
(:mod:`server.web.api.models`, which FastAPI documents); ``jantaku admin games ... --json`` prints
the same JSON from these. Times are UTC datetimes, tiles mpsz strings, seats 0..3.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any


class GameStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    ABORTED = "aborted"


class ExportFormat(StrEnum):
    TENHOU6 = "tenhou6"  # tenhou.net/6 JSON
    MJAI = "mjai"  # mjai JSON lines


@dataclass(slots=True, kw_only=True)
class Seat:
    seat: int
    name: str
    kind: str
    account_id: str | None
    bot: str | None
    is_bot: bool


@dataclass(slots=True, kw_only=True)
class Standing:
    rank: int
    seat: int
    name: str
    score: int
    final_points: float


@dataclass(slots=True, kw_only=True)
class GameSummary:
    id: str
    status: GameStatus
    live: bool
    ruleset: str
    ruleset_hash: str
    source: str
    created_at: datetime
    ended_at: datetime | None
    status_reason: str | None
    seats: list[Seat]
    standings: list[Standing]


@dataclass(slots=True, kw_only=True)
class GameList:
    games: list[GameSummary]
    total: int
    limit: int
    offset: int


@dataclass(slots=True, kw_only=True)
class Yaku:
    name: str
    han: int


@dataclass(slots=True, kw_only=True)
class Meld:
    type: str
    tiles: list[str]
    called: str | None
    from_seat: int
    added: str | None = None


@dataclass(slots=True, kw_only=True)
class Win:
    seat: int
    from_seat: int
    tsumo: bool
    win_tile: str | None
    hand: list[str]
    melds: list[Meld]
    yaku: list[Yaku]
    han: int
    fu: int
    points: int
    limit: str
    yakuman: int
    pao_seat: int | None
    deltas: list[int]
    dora_indicators: list[str]
    ura_indicators: list[str]


@dataclass(slots=True, kw_only=True)
class HandResult:
    hand_index: int
    label: str
    round_wind: int
    kyoku: int
    honba: int
    riichi_sticks: int
    dealer: int
    scores_before: list[int]
    outcome: str | None
    draw_reason: str | None
    wins: list[Win]
    deltas: list[int] | None
    scores_after: list[int] | None
    tenpai: list[bool] | None
    nagashi: list[int] | None
    start_step: int
    end_step: int | None
    timeouts: list[int] = field(default_factory=list)
    disconnects: list[int] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class AutoPlayed:
    step: int
    seat: int
    name: str
    hand_index: int | None
    applied_at: datetime
    action: dict[str, Any] | None
    source: str | None


@dataclass(slots=True, kw_only=True)
class SeatAutoPlayed:
    seat: int
    name: str
    timeouts: int
    disconnects: int
    total: int


@dataclass(slots=True, kw_only=True)
class GameDetail(GameSummary):
    engine_version: str
    wall_algorithm: str
    seed_commitment: str
    seed: str | None
    steps: int
    hands: list[HandResult]
    auto_played: list[AutoPlayed]
    auto_by_seat: list[SeatAutoPlayed] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class ReplayStep:
    step: int
    seat: int | None
    action: dict[str, Any] | None
    request_id: int | None
    auto: bool
    source: str | None
    applied_at: datetime
    events: list[dict[str, Any]]


@dataclass(slots=True, kw_only=True)
class Replay:
    game: GameSummary
    steps: list[ReplayStep]


@dataclass(slots=True, kw_only=True)
class HandWall:
    hand_index: int
    label: str
    commitment: str
    revealed: bool
    salt: str | None
    wall: list[str] | None
    commitment_ok: bool | None
    from_seed: bool | None
    deal_ok: bool | None
    ok: bool


@dataclass(slots=True, kw_only=True)
class WallReport:
    game_id: str
    wall_algorithm: str
    seed_commitment: str
    seed: str | None
    seed_ok: bool | None
    hands: list[HandWall]
    all_ok: bool


@dataclass(slots=True, kw_only=True)
class ViewerLink:
    hand_index: int
    label: str
    url: str


@dataclass(slots=True, kw_only=True)
class ViewerLinks:
    game_id: str
    links: list[ViewerLink]


@dataclass(slots=True, kw_only=True)
class AuditEntry:
    id: int | None
    at: datetime
    actor: str
    actor_id: str | None
    action: str
    match_id: str | None
    detail: Any


@dataclass(slots=True, kw_only=True)
class AuditList:
    entries: list[AuditEntry]
