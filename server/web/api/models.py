"""The documents of the review API, as pydantic models.

FastAPI turns them into the OpenAPI document (``/api/openapi.json``). The review service returns
dataclasses of the same names and fields (:mod:`server.services.reviewtypes`), read into these by
:mod:`server.web.api.review`; ``jantaku admin games ... --json`` prints the same JSON from them.
Times are ISO 8601 in UTC. Tiles are mpsz strings (``"5m"``, ``"0p"`` = red five of circles,
``"7z"`` = chun). Seats are 0..3; seat 0 deals the first hand.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from server.domain import reads
from server.services import reviewtypes

# The read model's filters, under the names the API documents them by.
StatusFilter = reads.StatusFilter
Lineup = reads.Lineup
# The review service's enums (its results are these models' dataclasses: server.services.reviewtypes).
GameStatus = reviewtypes.GameStatus
ExportFormat = reviewtypes.ExportFormat


class ErrorCode(StrEnum):
    """The ``error.code`` of every error answer."""

    UNAUTHENTICATED = "unauthenticated"  # 401: no, unknown, expired or revoked token
    FORBIDDEN = "forbidden"  # 403: the token lacks the scope (admin, create_private), a foreign Origin
    NOT_FOUND = "not_found"  # 404: no such game (or not one of yours, or not finished), no such route
    METHOD_NOT_ALLOWED = "method_not_allowed"  # 405
    GAME_LIVE = "game_live"  # 409: the game is still being played: its hidden information is sealed
    NOT_EXPORTABLE = "not_exportable"  # 409: the stored log cannot be written in that format
    INVALID_REQUEST = "invalid_request"  # 422: a parameter is missing, malformed or out of range
    UPGRADE_REQUIRED = "upgrade_required"  # 426: a plain GET of a websocket path (/ws, /mjai)
    NAME_TAKEN = "name_taken"  # 409: register: a player or bot has that name
    CONFLICT = "conflict"  # 409: not now (events: a round is running...), or already so (friends)
    UNSUPPORTED = "unsupported"  # 409: events: not possible where asked (a live table from the CLI)
    SUSPENDED = "suspended"  # 403: events: a moderator's suspension runs (no entry, check-in or seat)
    BUSY = "busy"  # 503: events: a table could not be made now; nothing was made, retry
    RATE_LIMITED = "rate_limited"  # 429: too many failed sign-ins, or websocket connects, per address
    UNAVAILABLE = "unavailable"  # 503: the database cannot be reached, or the hub is draining; retry
    INTERNAL = "internal"  # 500: a bug (logged)


class ErrorBody(BaseModel):
    code: ErrorCode
    message: str
    details: list[dict[str, Any]] | None = Field(
        default=None, description="For invalid_request: what was wrong with which parameter."
    )


class ErrorResponse(BaseModel):
    """Every error is answered with this document and the status code of its ``code``."""

    error: ErrorBody


class Account(BaseModel):
    """Who a bearer token belongs to."""

    id: str
    name: str
    kind: str = Field(description="guest, player or bot (an admin is a player account with the admin scope)")
    scopes: list[str]
    admin: bool


class Seat(BaseModel):
    seat: int
    name: str
    kind: str = Field(description="guest, player or bot")
    account_id: str | None = Field(description="null for a built-in bot")
    bot: str | None = Field(description="the built-in bot's name, if it was one")
    is_bot: bool


class Standing(BaseModel):
    rank: int
    seat: int
    name: str
    score: int
    final_points: float


class GameSummary(BaseModel):
    id: str
    status: GameStatus
    live: bool = Field(description="still being played: its hidden information is not served")
    ruleset: str = Field(description="the ruleset's name (e.g. tenhou)")
    ruleset_hash: str
    source: str = Field(description="how the table was made: queue:<ruleset>, private:<code>, ...")
    created_at: datetime
    ended_at: datetime | None
    status_reason: str | None = Field(
        description='why it ended when that is not obvious: "diverged: ..." (flagged by crash recovery: '
        'replaying its log did not give the stored events), "unrecoverable: ...", "table failed"'
    )
    seats: list[Seat]
    standings: list[Standing] = Field(description="final ranking, best first; empty until the game ends")


class GameList(BaseModel):
    games: list[GameSummary]
    total: int = Field(description="games matching the filters, over all pages")
    limit: int
    offset: int


class Yaku(BaseModel):
    name: str
    han: int


class Meld(BaseModel):
    type: str
    tiles: list[str]
    called: str | None
    from_seat: int
    added: str | None = None


class Win(BaseModel):
    seat: int
    from_seat: int = Field(description="the discarder; equals seat for a tsumo")
    tsumo: bool
    win_tile: str | None
    hand: list[str] = Field(description="the concealed tiles, winning tile included")
    melds: list[Meld]
    yaku: list[Yaku]
    han: int
    fu: int
    points: int = Field(description="the hand's value before honba and riichi sticks")
    limit: str = Field(description='"", "mangan", "haneman", "baiman", "sanbaiman", "yakuman", ...')
    yakuman: int
    pao_seat: int | None
    deltas: list[int] = Field(description="this win's score changes, honba and sticks included")
    dora_indicators: list[str]
    ura_indicators: list[str]


class HandResult(BaseModel):
    hand_index: int
    label: str = Field(description='e.g. "East 2, 1 honba"')
    round_wind: int
    kyoku: int
    honba: int
    riichi_sticks: int
    dealer: int
    scores_before: list[int]
    outcome: str | None = Field(description="won, drawn, or null if the game ended during the hand")
    draw_reason: str | None
    wins: list[Win]
    deltas: list[int] | None
    scores_after: list[int] | None
    tenpai: list[bool] | None
    nagashi: list[int] | None
    start_step: int
    end_step: int | None
    timeouts: list[int] = Field(
        default_factory=list,
        description="by seat: the decisions the server played in this hand because the seat's time ran out",
    )
    disconnects: list[int] = Field(
        default_factory=list,
        description="by seat: the decisions the server played in this hand because the seat was disconnected",
    )


SOURCE_DESCRIPTION = (
    'who decided: "player" (the seat\'s client), "bot" (a built-in bot seat), "timeout" (the seat\'s '
    'time and bank ran out while connected), "disconnected" (the seat was not connected), "left" (its '
    "player had left the table on purpose); null for the deal and for steps stored before the server "
    "recorded it"
)


class AutoPlayed(BaseModel):
    """A human seat's decision the server made: its time ran out, or it was disconnected."""

    step: int
    seat: int
    name: str
    hand_index: int | None
    applied_at: datetime
    action: dict[str, Any] | None
    source: str | None = Field(
        description='"timeout", "disconnected" or "left"; null: stored before the server recorded why'
    )


class SeatAutoPlayed(BaseModel):
    """How many of a seat's decisions the server played, and why."""

    seat: int
    name: str
    timeouts: int = Field(description="its time and bank ran out while it was connected")
    disconnects: int = Field(description="it was not connected: the table played its default action")
    total: int = Field(
        description="every decision the server played for it (timeouts, disconnects, and those "
        "stored before the server recorded why)"
    )


class GameDetail(GameSummary):
    engine_version: str
    wall_algorithm: str
    seed_commitment: str
    seed: str | None = Field(description="the match seed (hex), revealed when the game ended")
    steps: int = Field(description="stored steps (0 while live: not served)")
    hands: list[HandResult] = Field(description="every hand, in order; empty while live")
    auto_played: list[AutoPlayed] = Field(description="timeouts and disconnects of human seats")
    auto_by_seat: list[SeatAutoPlayed] = Field(
        default_factory=list,
        description="per seat: the counts of timeouts, disconnects and all decisions the server played",
    )


class ReplayStep(BaseModel):
    step: int = Field(description="0 is the deal; step k >= 1 applied an action at engine step k - 1")
    seat: int | None
    action: dict[str, Any] | None
    request_id: int | None = Field(description="the client's request id; null: the server played it")
    auto: bool = Field(description="a human seat's decision made by the server (timeout, disconnect)")
    source: str | None = Field(description=SOURCE_DESCRIPTION)
    applied_at: datetime
    events: list[dict[str, Any]] = Field(
        description="omniscient events, the wire vocabulary (docs/protocol.md)"
    )


class Replay(BaseModel):
    game: GameSummary
    steps: list[ReplayStep]


class HandWall(BaseModel):
    hand_index: int
    label: str
    commitment: str = Field(description="sha256(salt || wall), published when the hand started")
    revealed: bool = Field(description="the hand ended and revealed its salt and wall")
    salt: str | None
    wall: list[str] | None
    commitment_ok: bool | None = Field(description="sha256(salt || wall) equals the commitment")
    from_seed: bool | None = Field(
        description="the wall and salt are the ones the revealed match seed derives (null: no seed)"
    )
    deal_ok: bool | None = Field(description="the dealt hands are the ones this wall deals")
    ok: bool = Field(description="revealed and every check that could run passed")


class WallReport(BaseModel):
    game_id: str
    wall_algorithm: str
    seed_commitment: str
    seed: str | None
    seed_ok: bool | None = Field(description="sha256(seed) equals the seed commitment (null: no seed)")
    hands: list[HandWall]
    all_ok: bool


class ViewerLink(BaseModel):
    hand_index: int
    label: str
    url: str


class ViewerLinks(BaseModel):
    game_id: str
    links: list[ViewerLink] = Field(description="one tenhou.net/6 viewer URL per finished hand")


class AuditEntry(BaseModel):
    id: int | None
    at: datetime
    actor: str
    actor_id: str | None
    action: str
    match_id: str | None
    detail: Any


class AuditList(BaseModel):
    entries: list[AuditEntry]


class ClusterNode(BaseModel):
    """One node of the cluster's registry (docs/scaling.md)."""

    node_id: str
    live: bool = Field(description="its registry entry has not expired")
    url: str = ""
    draining: bool = False
    tables: int = Field(0, description="tables running there, as it last reported")
    connections: int = 0
    leases: int = Field(0, description="running matches whose lease it holds")
    up_s: float = 0.0


class ClusterMatch(BaseModel):
    """One running match of a cluster and the node that owns it now."""

    match_id: str
    owner: str | None = Field(description="the node holding its lease; null: between owners, taken over soon")
    source: str = Field("", description='how it was made: "queue:tenhou", "private:CODE", ...')
    players: list[str] = Field(default_factory=list, description="the seats' names, seat 0 first")
    started: float = Field(0.0, description="when it was created (Unix time)")


class ClusterStatus(BaseModel):
    """The nodes of a cluster, their health and load, and every running match with its owner."""

    nodes: list[ClusterNode]
    running_matches: int
    unowned: list[str] = Field(default_factory=list, description="running, no lease: taken over soon")
    matches: list[ClusterMatch] = Field(default_factory=list, description="every running match, oldest first")
