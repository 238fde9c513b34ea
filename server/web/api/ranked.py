"""Ranked play over HTTP: accounts players make themselves, rooms, leaderboards, public profiles
(``docs/ranking.md``).

* ``POST /api/accounts/register`` ``{name, password[, guest_session]}``, ``POST /api/accounts/signin``
  ``{name, password}``: a session token in the answer and in the ``jantaku_session`` cookie
  (HttpOnly, SameSite=Strict, Secure when served over TLS). ``hello`` with ``{"type": "session"}``
  and that token plays as the account.
* ``POST /api/accounts/signout``, ``POST /api/accounts/password`` ``{old_password, new_password}``,
  ``GET /api/accounts/me``: with the cookie or ``Authorization: Bearer``.
* ``GET /api/rooms``, ``GET /api/leaderboard?room=&length=``, ``GET /api/players/{name}``: public
  information only (no token needed).

Sign-in failures are rate-limited per account and per address (429 ``rate_limited``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Path, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from client_protocol.errors import ErrorCode as WireCode
from server.domain.playcounts import PlayCounts
from server.domain.ports import Store
from server.domain.ranked import Board, RatingChange, board_of_room, hand_stats
from server.domain.records import Account, AccountKind
from server.ranking import (
    CURRENT,
    CURRENT_SANMA,
    CURRENT_SETS,
    Length,
    RankingTables,
    Standing,
    tables_of_room,
)
from server.services.accounts import AccountInputError, Accounts
from server.services.auth import Authenticated, Authenticator, AuthError
from server.services.ranked import all_queue_names, requirement
from server.web.api import models as m
from server.web.api.errors import ApiError, error_docs
from server.web.api.ports import AdminRoute

COOKIE = "jantaku_session"
NAME = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,31}$"

ranked_router = APIRouter(prefix="/api", tags=["ranked"], route_class=AdminRoute)  # the admin port


PASSWORD = r"^[^\x00]*\S[^\x00]*$"  # 8-128 characters, not only spaces, no NUL


class SignIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1024)


class Registration(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME, description="1-32 letters, digits, _ . -; unique among players and bots")
    password: str = Field(min_length=8, max_length=128, pattern=PASSWORD)
    guest_session: str | None = Field(
        default=None, max_length=300, description="a guest's session token: make this guest the player"
    )


class PasswordChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    old_password: str = Field(min_length=1, max_length=1024)
    new_password: str = Field(min_length=8, max_length=128, pattern=PASSWORD)


class AccountOut(BaseModel):
    id: str
    name: str
    kind: str


class SignedIn(BaseModel):
    account: AccountOut
    session_token: str = Field(description="say hello with {type: session, session_token} to play as it")


class StandingOut(BaseModel):
    length: str
    rank: str
    rank_label: str
    points: int
    target: int | None
    rating: float
    games: int
    placements: list[int]
    average_placement: float | None


class RoomOut(BaseModel):
    key: str
    label: str
    seats: int = Field(description="players a match: 4, or 3 for the sanma-... rooms")
    length: str
    queue: str = Field(description="the quick-match preset to queue for")
    requirement: str
    bots_only: bool
    may_enter: bool | None = Field(default=None, description="for the signed-in account, if any")


class Me(BaseModel):
    account: AccountOut
    standings: list[StandingOut]
    sanma_standings: list[StandingOut] = Field(description="the three-player (sanma) ranks, kept apart")
    rooms: list[RoomOut]


class LeaderRow(BaseModel):
    position: int
    name: str
    standing: StandingOut


class Leaderboard(BaseModel):
    room: str
    seats: int
    length: str
    total: int
    entries: list[LeaderRow]


class HistoryPoint(BaseModel):
    match_id: str
    placement: int
    rating: float
    rank: str
    points: int
    at: float


class StatsOut(BaseModel):
    """Over the hands of the player's most recent rated matches (``matches`` of them)."""

    matches: int
    hands: int
    win_rate: float | None
    deal_in_rate: float | None
    tsumo_share: float | None = Field(description="of the wins, those by tsumo")
    average_win: float | None = Field(description="average value of a win, in points")
    average_deal_in: float | None = Field(description="average cost of a deal-in, in points")
    tenpai_at_draws: float | None = Field(
        description="of the exhaustive draws, those the player was tenpai at"
    )
    riichi_rate: float | None = Field(
        default=None, description="of the hands (of matches with play counts), those with a riichi declared"
    )
    call_rate: float | None = Field(
        default=None, description="of the hands (of matches with play counts), those with an open call"
    )


class BoardProfile(BaseModel):
    """A player's figures on one kind of board (four- or three-player), per game length."""

    standings: list[StandingOut]
    history: dict[str, list[HistoryPoint]]
    stats: dict[str, StatsOut]


class Profile(BaseModel):
    name: str
    kind: str
    standings: list[StandingOut]
    history: dict[str, list[HistoryPoint]]
    stats: dict[str, StatsOut]
    sanma: BoardProfile = Field(description="the three-player (sanma) figures, kept apart from the above")


def _standing_out(s: Standing, length: Length, tables: RankingTables = CURRENT) -> StandingOut:
    rank = tables.ranks[s.rank]
    places = s.placements[: tables.seats]
    games = sum(places)
    avg = sum((i + 1) * n for i, n in enumerate(places)) / games if games else None
    return StandingOut(
        length=length.value,
        rank=rank.key,
        rank_label=rank.label,
        points=s.points,
        target=rank.target,
        rating=round(s.rating, 2),
        games=s.games,
        placements=list(places),
        average_placement=None if avg is None else round(avg, 3),
    )


def _account_out(a: Account) -> AccountOut:
    return AccountOut(id=a.id, name=a.name, kind=a.kind.value)


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def _accounts(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


def _secure(request: Request) -> bool:
    return request.url.scheme == "https" or request.headers.get("x-forwarded-proto", "") == "https"


def _signed_in(request: Request, response: Response, done: Authenticated, ttl_s: float) -> SignedIn:
    response.set_cookie(
        COOKIE,
        done.session_token,
        max_age=int(ttl_s),
        httponly=True,
        samesite="strict",
        secure=_secure(request),
        path="/",
    )
    return SignedIn(account=_account_out(done.account), session_token=done.session_token)


def _token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return request.cookies.get(COOKIE)


async def signed_in(request: Request) -> tuple[Account, str]:
    """The account signed in on ``request`` (its session cookie or bearer token) and the token;
    ``unauthenticated`` without one."""
    token = _token(request)
    if not token or len(token) > 300:
        raise ApiError(m.ErrorCode.UNAUTHENTICATED, "sign in first (cookie or Authorization: Bearer)")
    authenticator: Authenticator = request.app.state.authenticator
    try:
        return await authenticator.account_for_bearer(token), token
    except AuthError as exc:
        raise ApiError(m.ErrorCode.UNAUTHENTICATED, exc.message) from None


def _auth_error(exc: AuthError) -> ApiError:
    codes = {WireCode.RATE_LIMITED: m.ErrorCode.RATE_LIMITED, WireCode.FORBIDDEN: m.ErrorCode.FORBIDDEN}
    return ApiError(codes.get(exc.code, m.ErrorCode.UNAUTHENTICATED), exc.message)


def _input_error(exc: AccountInputError) -> ApiError:
    code = m.ErrorCode.NAME_TAKEN if "taken" in exc.message else m.ErrorCode.INVALID_REQUEST
    return ApiError(
        code, exc.message, [{"loc": ["body", exc.field], "msg": exc.message, "type": "value_error"}]
    )


def _ttl(request: Request) -> float:
    ttl: float = request.app.state.session_ttl_s
    return ttl


@ranked_router.post(
    "/accounts/register", response_model=SignedIn, status_code=201, responses=error_docs(401, 409, 422, 503)
)
async def register(body: Registration, request: Request, response: Response) -> SignedIn:
    """Make a player account (or make the guest of ``guest_session`` a player, keeping its games)."""
    try:
        done = await _accounts(request).register(body.name, body.password, guest_session=body.guest_session)
    except AccountInputError as exc:
        raise _input_error(exc) from None
    except AuthError as exc:
        raise _auth_error(exc) from None
    return _signed_in(request, response, done, _ttl(request))


@ranked_router.post("/accounts/signin", response_model=SignedIn, responses=error_docs(401, 422, 429, 503))
async def sign_in(body: SignIn, request: Request, response: Response) -> SignedIn:
    address = request.client.host if request.client else "unknown"
    try:
        done = await _accounts(request).sign_in(body.name, body.password, address)
    except AuthError as exc:
        raise _auth_error(exc) from None
    return _signed_in(request, response, done, _ttl(request))


@ranked_router.post("/accounts/signout", status_code=204, responses=error_docs(422, 503))
async def sign_out(request: Request, response: Response) -> Response:
    """End this session (idempotent) and clear the cookie."""
    token = _token(request)
    if token and len(token) <= 300:
        await _accounts(request).sign_out(token)
    out = Response(status_code=204)
    out.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict", secure=_secure(request))
    return out


@ranked_router.post("/accounts/password", response_model=SignedIn, responses=error_docs(401, 403, 422, 503))
async def change_password(body: PasswordChange, request: Request, response: Response) -> SignedIn:
    """Change the password: every session of the account ends; a new one is returned."""
    account, _ = await signed_in(request)
    try:
        done = await _accounts(request).change_password(account, body.old_password, body.new_password)
    except AccountInputError as exc:
        raise _input_error(exc) from None
    except AuthError as exc:
        raise _auth_error(exc) from None
    return _signed_in(request, response, done, _ttl(request))


async def _standings(
    store: Store, account: Account, board: Board, tables: RankingTables = CURRENT
) -> list[StandingOut]:
    return [
        _standing_out(await store.standing(account.id, board, length), length, tables) for length in Length
    ]


def _board(account: Account, tables: RankingTables = CURRENT) -> Board:
    """The account's board in ``tables``' rooms: the bot ladder's for a bot."""
    return Board(tables.ladder_board if account.kind is AccountKind.BOT else tables.board)


async def _rooms(store: Store, account: Account | None) -> list[RoomOut]:
    out = []
    for room in (r for tables in CURRENT_SETS for r in tables.rooms):
        for length in Length:
            allowed: bool | None = None
            if account is not None:
                if room.bots_only != (account.kind is AccountKind.BOT) or account.kind is AccountKind.GUEST:
                    allowed = False
                else:
                    s = await store.standing(account.id, board_of_room(room.key), length)
                    allowed = s.rank >= room.min_rank and s.rating >= room.min_rating
            out.append(
                RoomOut(
                    key=room.key,
                    label=room.label,
                    seats=tables_of_room(room.key).seats,
                    length=length.value,
                    queue=f"ranked:{room.key}:{length.value}",
                    requirement=requirement(room),
                    bots_only=room.bots_only,
                    may_enter=allowed,
                )
            )
    assert [r.queue for r in out] == all_queue_names()
    return out


@ranked_router.get("/accounts/me", response_model=Me, responses=error_docs(401, 503))
async def me(request: Request) -> Me:
    account, _ = await signed_in(request)
    store = _store(request)
    return Me(
        account=_account_out(account),
        standings=await _standings(store, account, _board(account)),
        sanma_standings=await _standings(store, account, _board(account, CURRENT_SANMA), CURRENT_SANMA),
        rooms=await _rooms(store, account),
    )


@ranked_router.get("/rooms", response_model=list[RoomOut], responses=error_docs(503))
async def rooms(request: Request) -> list[RoomOut]:
    """Every ranked room per game length, its queue and its entry requirement."""
    return await _rooms(_store(request), None)


@ranked_router.get("/leaderboard", response_model=Leaderboard, responses=error_docs(404, 422, 503))
async def leaderboard(
    request: Request,
    room: Annotated[str, Query(pattern=r"^[a-z][a-z\-]{0,23}$")] = "open",
    length: Length = Length.EAST_SOUTH,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> Leaderboard:
    """Rank, then points, then R, highest first. Every ranked room of one length shares a board;
    ``room=ladder`` is the bot ladder's. The three-player rooms (``room=sanma-open``, ...) share
    a board of their own (``room=sanma-ladder``: the three-player bot ladder's)."""
    try:
        tables = tables_of_room(room)
    except KeyError:
        raise ApiError(m.ErrorCode.NOT_FOUND, f"no room {room!r}") from None
    entries, total = await _store(request).leaderboard(
        board_of_room(room), length, limit=limit, offset=offset
    )
    return Leaderboard(
        room=room,
        seats=tables.seats,
        length=length.value,
        total=total,
        entries=[
            LeaderRow(position=e.position, name=e.name, standing=_standing_out(e.standing, length, tables))
            for e in entries
        ],
    )


def _point(c: RatingChange, tables: RankingTables = CURRENT) -> HistoryPoint:
    return HistoryPoint(
        match_id=c.match_id,
        placement=c.placement,
        rating=round(c.after.rating, 2),
        rank=tables.ranks[c.after.rank].key,
        points=c.after.points,
        at=c.rated_at,
    )


@ranked_router.get("/players/{name}", response_model=Profile, responses=error_docs(404, 422, 503))
async def player(request: Request, name: Annotated[str, Path(pattern=NAME)]) -> Profile:
    """A registered player's or bot's public profile: rank, points, R, placements, rating history,
    four-player and (``sanma``) three-player apart."""
    store = _store(request)
    account = await store.account_by_name(name)
    if account is None or not account.active:
        raise ApiError(m.ErrorCode.NOT_FOUND, f"no player {name!r}")
    four, three = (
        await _board_profile(store, account, CURRENT),
        await _board_profile(store, account, CURRENT_SANMA),
    )
    return Profile(
        name=account.name,
        kind=account.kind.value,
        standings=four.standings,
        history=four.history,
        stats=four.stats,
        sanma=three,
    )


async def _board_profile(store: Store, account: Account, tables: RankingTables) -> BoardProfile:
    board = _board(account, tables)
    changes = {length: await store.rating_history(account.id, board, length) for length in Length}
    return BoardProfile(
        standings=await _standings(store, account, board, tables),
        history={length.value: [_point(c, tables) for c in cs] for length, cs in changes.items()},
        stats={length.value: await _stats(store, cs[-STATS_MATCHES:]) for length, cs in changes.items()},
    )


STATS_MATCHES = 20  # a profile's statistics are over this many of the most recent rated matches


async def _stats(store: Store, changes: Sequence[RatingChange]) -> StatsOut:
    pairs = [(c.seat, h) for c in changes for h in await store.hand_results(c.match_id)]
    s = hand_stats(pairs)
    counted = await store.play_counts([c.match_id for c in changes])
    play = sum(
        (counted[c.match_id][c.seat] for c in changes if len(counted.get(c.match_id, ())) > c.seat),
        PlayCounts(),
    )
    return StatsOut(
        matches=len(changes),
        hands=s.hands,
        win_rate=s.rate(s.wins, s.hands),
        deal_in_rate=s.rate(s.deal_ins, s.hands),
        tsumo_share=s.rate(s.tsumo_wins, s.wins),
        average_win=round(s.win_points / s.wins, 1) if s.wins else None,
        average_deal_in=round(s.deal_in_points / s.deal_ins, 1) if s.deal_ins else None,
        tenpai_at_draws=s.rate(s.tenpai_at_draws, s.draws),
        riichi_rate=s.rate(play.riichi, play.hands),
        call_rate=s.rate(play.calls, play.hands),
    )


RANKED_PATHS = (
    "/api/accounts/",
    "/api/rooms",
    "/api/leaderboard",
    "/api/players/",
    # the browser's Friends card (server/web/api/social.py): its changes cannot use the game port,
    # whose HTTP side answers GETs only
    "/api/me/friends",
    "/api/me/blocks/",
    "/api/me/mutes/",
    "/api/me/social/",
    "/api/me/invites",
    "/api/events",  # the events page (docs/tournaments.md), served on the game port
)


class SameHostCors:
    """Cross-origin access to the ranked routes for the browser client, which the hub serves on
    another port of the same host: an ``Origin`` whose host name is the request's gets
    ``Access-Control-Allow-Origin`` (no credentials: the client sends its session token as a
    Bearer header), and preflights are answered. Any other origin gets no CORS headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith(RANKED_PATHS):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        allowed = origin is not None and _same_host(origin, headers.get("host", ""))
        if allowed and scope["method"] == "OPTIONS":
            response = Response(
                status_code=204,
                headers={
                    "Access-Control-Allow-Origin": str(origin),
                    "Access-Control-Allow-Methods": "GET, POST, PUT, DELETE",
                    "Access-Control-Allow-Headers": "authorization, content-type",
                    "Access-Control-Max-Age": "600",
                    "Vary": "Origin",
                },
            )
            await response(scope, receive, send)
            return

        async def send_with_cors(message: Message) -> None:
            if allowed and message["type"] == "http.response.start":
                out = MutableHeaders(scope=message)
                out["Access-Control-Allow-Origin"] = str(origin)
                out["Vary"] = "Origin"
            await send(message)

        await self.app(scope, receive, send_with_cors)


def _same_host(origin: str, host: str) -> bool:
    try:
        a = urlsplit(origin).hostname
        b = urlsplit(f"//{host}").hostname
    except ValueError:
        return False
    return a is not None and a == b
