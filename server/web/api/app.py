"""The one HTTP application: every HTTP route of both ports (docs/architecture.md "One route table").

Each route is declared once, for its ports (:mod:`server.web.api.ports`): the game port's (the
hub's probes, metrics, private and live tables: :mod:`server.web.api.gameport`; the browser client
and the players' pages: :mod:`server.web.api.files`), the admin port's (the review API, ranked
play, the admin pages) and the players' own games on both. This module holds the review API:

* ``/api/admin/...``: every game, for tokens with the ``admin`` scope. Every read of a game (its
  detail, replay, walls, exports, viewer links) and every listing is written to the audit log
  first; if the audit entry cannot be written, nothing is served.
* ``/api/me/...``: any authenticated account (players, bots, even guests with a session token)
  lists, reads and exports the finished games it played in.
* ``/api/games/{id}/replay``: a shared link's replay, with or without a token, for whoever may read
  the game's log (:meth:`server.services.review.Review.reader_access` decides).
* ``/api/openapi.json``: the OpenAPI document. ``/admin/``: the admin pages (static HTML + JS).

Authentication is ``Authorization: Bearer <token>``: an API token (``jantaku admin create-player /
create-bot / create-admin``) or a session token from the hub's ``welcome``, checked by
:class:`server.services.auth.Authenticator`; a revoked account's tokens are refused.

A live game (status ``running``) never gives away hidden information: its detail is its public
header only (no hands, no steps), and its replay, walls and exports answer 409 ``game_live`` to
admins; ``/api/me`` routes answer 404 for it, as for anybody else's game.

Errors are typed JSON, ``{"error": {"code": ..., "message": ...}}``, with the status of the code
(:class:`~server.web.api.models.ErrorCode`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, FastAPI, Query, Request, Security
from fastapi.responses import Response
from fastapi.security import HTTPAuthorizationCredentials

from server.domain.ports import Store
from server.domain.records import Account
from server.domain.records import Scope as AccountScope
from server.services.accounts import Accounts
from server.services.auth import Authenticator, AuthError
from server.services.review import EXPORT_MEDIA_TYPES, EXPORT_SUFFIX, Access, GameLiveError, GameNotFoundError
from server.web.api import models as m
from server.web.api.botevents import bot_events_router
from server.web.api.errors import NO_STORE, ApiError, SecurityHeaders, error_docs, install_error_handlers
from server.web.api.eventops import eventops_router
from server.web.api.events import events_router
from server.web.api.files import admin_files, game_files
from server.web.api.gameport import game_router
from server.web.api.params import (
    ID_PATTERN,
    TEXT_PATTERN,
    Download,
    Format,
    GameId,
    Limit,
    Offset,
    Since,
    Until,
    bearer,
    filters,
    refuse_unknown_parameters,
)
from server.web.api.ports import AdminRoute, BothPortsRoute
from server.web.api.ranked import SameHostCors, ranked_router
from server.web.api.reports import player_reports_router, reports_router
from server.web.api.review import Review
from server.web.api.settings import ApiSettings
from server.web.api.social import social_router

T = TypeVar("T")

API_VERSION = "1"
OPENAPI_PATH = "/api/openapi.json"
_TOKEN = re.compile(r"^[A-Za-z0-9_\-]{1,64}\.[A-Za-z0-9_\-]{1,128}$")

# -- dependencies ---------------------------------------------------------------------------------------


def _review(request: Request) -> Review:
    review: Review = request.app.state.review
    return review


def _settings(request: Request) -> ApiSettings:
    settings: ApiSettings = request.app.state.settings
    return settings


async def current_account(
    request: Request, creds: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)]
) -> Account:
    if creds is None:
        raise ApiError(m.ErrorCode.UNAUTHENTICATED, "send Authorization: Bearer <token>")
    token = creds.credentials
    if not _TOKEN.fullmatch(token):
        raise ApiError(m.ErrorCode.UNAUTHENTICATED, "unknown or invalid token")
    authenticator: Authenticator = request.app.state.authenticator
    try:
        account = await authenticator.account_for_bearer(token)
    except AuthError as exc:
        raise ApiError(m.ErrorCode.UNAUTHENTICATED, exc.message) from None
    refuse_unknown_parameters(request)
    return account


async def admin_account(account: Annotated[Account, Depends(current_account)]) -> Account:
    if AccountScope.ADMIN not in account.scopes:
        raise ApiError(m.ErrorCode.FORBIDDEN, "this route needs a token with the admin scope")
    return account


async def optional_account(
    request: Request, creds: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)]
) -> Account | None:
    """The account of a valid token, or None: on a route that anyone may read, a stale token (a
    guest's expired session left in the browser) must not turn a public answer into a 401."""
    refuse_unknown_parameters(request)
    if creds is None or not _TOKEN.fullmatch(creds.credentials):
        return None
    authenticator: Authenticator = request.app.state.authenticator
    try:
        return await authenticator.account_for_bearer(creds.credentials)
    except AuthError:
        return None


CurrentAccount = Annotated[Account, Depends(current_account)]
AnyReader = Annotated[Account | None, Depends(optional_account)]
AdminAccount = Annotated[Account, Depends(admin_account)]


def _account_model(a: Account) -> m.Account:
    return m.Account(
        id=a.id,
        name=a.name,
        kind=a.kind.value,
        scopes=sorted(s.value for s in a.scopes),
        admin=AccountScope.ADMIN in a.scopes,
    )


async def _audited(
    request: Request,
    account: Account,
    action: str,
    read: Callable[[], Awaitable[T]],
    *,
    match_id: str | None = None,
    detail: Mapping[str, Any] | None = None,
) -> T:
    """Run ``read`` and write the audit entry (with its outcome) before anything is served: if the
    entry cannot be written the request fails and nothing is returned."""
    return await _review(request).audited(
        read, actor=account.name, actor_id=account.id, action=action, match_id=match_id, detail=detail
    )


def _export_response(review_text: str, game_id: str, fmt: m.ExportFormat, download: bool) -> Response:
    headers = dict(NO_STORE)
    if download:
        headers["Content-Disposition"] = f'attachment; filename="{game_id}{EXPORT_SUFFIX[fmt]}"'
    media = EXPORT_MEDIA_TYPES[fmt]
    return Response(review_text.encode("utf-8"), media_type=f"{media}; charset=utf-8", headers=headers)


EXPORT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "the game in the requested format",
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "application/x-ndjson": {"schema": {"type": "string"}},
        },
    }
}


# -- routes: whoami --------------------------------------------------------------------------------------

router = APIRouter(prefix="/api", route_class=AdminRoute)
# a player's own games: on the admin port and on the game port, where the browser client is
me_router = APIRouter(prefix="/api", route_class=BothPortsRoute)


@me_router.get(
    "/me",
    response_model=m.Account,
    summary="Who this token belongs to",
    tags=["me"],
    responses=error_docs(401, 503),
)
async def whoami(account: CurrentAccount) -> m.Account:
    return _account_model(account)


# -- routes: admin ---------------------------------------------------------------------------------------


@router.get(
    "/admin/games",
    response_model=m.GameList,
    summary="List, filter and search games (newest first)",
    tags=["admin"],
    responses=error_docs(401, 403, 422, 503),
)
async def admin_list_games(
    request: Request,
    *,
    account: AdminAccount,
    status: Annotated[m.StatusFilter | None, Query(description="finished = completed or aborted")] = None,
    player: Annotated[
        str | None,
        Query(max_length=64, pattern=TEXT_PATTERN, description="an account id or an exact player name"),
    ] = None,
    q: Annotated[
        str | None,
        Query(max_length=64, pattern=TEXT_PATTERN, description="search: part of a player name"),
    ] = None,
    ruleset: Annotated[
        str | None,
        Query(max_length=64, pattern=TEXT_PATTERN, description="a ruleset name (tenhou, ...) or its hash"),
    ] = None,
    since: Since = None,
    until: Until = None,
    lineup: Annotated[m.Lineup | None, Query(description="humans, bots or both at the table")] = None,
    seats: Annotated[int | None, Query(ge=3, le=4, description="3 or 4: games of that many seats")] = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> m.GameList:
    f = filters(
        status=status,
        player=player,
        q=q,
        ruleset=ruleset,
        since=since,
        until=until,
        lineup=lineup,
        seats=seats,
        limit=limit,
        offset=offset,
    )
    review = _review(request)
    if not _settings(request).audit_listings:
        return await review.list_games(f)
    return await _audited(request, account, "games.list", lambda: review.list_games(f), detail=f.describe())


@router.get(
    "/admin/games/{game_id}",
    response_model=m.GameDetail,
    summary="A game: ranking, every hand's result, timeouts (only the public header while live)",
    tags=["admin"],
    responses=error_docs(401, 403, 404, 422, 503),
)
async def admin_game(request: Request, account: AdminAccount, game_id: GameId) -> m.GameDetail:
    review = _review(request)
    return await _audited(request, account, "game.read", lambda: review.detail(game_id), match_id=game_id)


@router.get(
    "/admin/games/{game_id}/replay",
    response_model=m.Replay,
    summary="The omniscient replay: every step and event with all hands visible (finished games only)",
    tags=["admin"],
    responses=error_docs(401, 403, 404, 409, 422, 503),
)
async def admin_replay(request: Request, account: AdminAccount, game_id: GameId) -> m.Replay:
    review = _review(request)
    return await _audited(request, account, "game.replay", lambda: review.replay(game_id), match_id=game_id)


@router.get(
    "/admin/games/{game_id}/walls",
    response_model=m.WallReport,
    summary="Verify every hand's revealed wall against its commitment (finished games only)",
    tags=["admin"],
    responses=error_docs(401, 403, 404, 409, 422, 503),
)
async def admin_walls(request: Request, account: AdminAccount, game_id: GameId) -> m.WallReport:
    review = _review(request)
    return await _audited(request, account, "game.verify", lambda: review.walls(game_id), match_id=game_id)


@router.get(
    "/admin/games/{game_id}/export",
    response_class=Response,
    summary="Export as tenhou.net/6 JSON or mjai JSON lines (finished games only)",
    tags=["admin"],
    responses={**EXPORT_RESPONSES, **error_docs(401, 403, 404, 409, 422, 503)},
)
async def admin_export(
    request: Request, account: AdminAccount, game_id: GameId, format: Format, download: Download = False
) -> Response:
    review = _review(request)
    text = await _audited(
        request,
        account,
        "game.export",
        lambda: review.export(game_id, format),
        match_id=game_id,
        detail={"format": format.value},
    )
    return _export_response(text, game_id, format, download)


@router.get(
    "/admin/games/{game_id}/viewer",
    response_model=m.ViewerLinks,
    summary="Links that open each hand in the tenhou.net/6 viewer (finished games only)",
    tags=["admin"],
    responses=error_docs(401, 403, 404, 409, 422, 503),
)
async def admin_viewer(request: Request, account: AdminAccount, game_id: GameId) -> m.ViewerLinks:
    review = _review(request)
    return await _audited(
        request,
        account,
        "game.export",
        lambda: review.viewer_links(game_id),
        match_id=game_id,
        detail={"format": "tenhou6-viewer"},
    )


@router.get(
    "/admin/audit",
    response_model=m.AuditList,
    summary="The audit log, most recent first",
    tags=["admin"],
    responses=error_docs(401, 403, 422, 503),
)
async def admin_audit(
    request: Request,
    account: AdminAccount,
    game_id: Annotated[str | None, Query(max_length=64, pattern=ID_PATTERN, description="one game")] = None,
    actor_id: Annotated[
        str | None, Query(max_length=64, pattern=ID_PATTERN, description="one account")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> m.AuditList:
    return await _review(request).audit_log(match_id=game_id, actor_id=actor_id, limit=limit)


@router.get(
    "/cluster",
    summary="Cluster mode: the nodes, their health and load, and who owns each running match",
    tags=["admin"],
    responses=error_docs(401, 403, 404, 503),
)
async def admin_cluster(request: Request, account: AdminAccount) -> m.ClusterStatus:
    status = request.app.state.settings.cluster
    if status is None:
        raise ApiError(m.ErrorCode.NOT_FOUND, "this server is not a cluster node (see docs/scaling.md)")
    try:
        document = await status()
    except (OSError, TimeoutError, ConnectionError) as exc:  # the cluster's Redis: retry later
        raise ApiError(m.ErrorCode.UNAVAILABLE, f"the cluster's state cannot be read now: {exc}") from exc
    return m.ClusterStatus.model_validate(document)


# -- routes: one's own games -----------------------------------------------------------------------------


async def _own_finished(request: Request, account: Account, game_id: str) -> None:
    """404 unless ``account`` sat at this game and it is over (a live game is nobody's to read)."""
    review = _review(request)
    try:
        match = await review.finished_match(game_id)
    except (GameNotFoundError, GameLiveError):
        match = None
    if match is None or not any(s.account_id == account.id for s in match.seats):
        raise GameNotFoundError(f"no finished game {game_id!r} of yours")


@me_router.get(
    "/me/games",
    response_model=m.GameList,
    summary="The finished games this account played (newest first)",
    tags=["me"],
    responses=error_docs(401, 422, 503),
)
async def my_games(
    request: Request,
    *,
    account: CurrentAccount,
    q: Annotated[
        str | None, Query(max_length=64, pattern=TEXT_PATTERN, description="part of a player name")
    ] = None,
    since: Since = None,
    until: Until = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> m.GameList:
    f = filters(
        status=m.StatusFilter.FINISHED,
        player=None,
        q=q,
        ruleset=None,
        since=since,
        until=until,
        lineup=None,
        limit=limit,
        offset=offset,
        account_id=account.id,
    )
    return await _review(request).list_games(f)


@me_router.get(
    "/me/games/{game_id}",
    response_model=m.GameDetail,
    summary="One of this account's finished games",
    tags=["me"],
    responses=error_docs(401, 404, 422, 503),
)
async def my_game(request: Request, account: CurrentAccount, game_id: GameId) -> m.GameDetail:
    await _own_finished(request, account, game_id)
    review = _review(request)
    return await _audited(
        request,
        account,
        "game.read",
        lambda: review.detail(game_id),
        match_id=game_id,
        detail={"as": "player"},
    )


@me_router.get(
    "/me/games/{game_id}/replay",
    response_model=m.Replay,
    summary="The replay of one of this account's finished games: every step, every hand open",
    tags=["me"],
    responses=error_docs(401, 404, 422, 503),
)
async def my_replay(request: Request, account: CurrentAccount, game_id: GameId) -> m.Replay:
    await _own_finished(request, account, game_id)
    review = _review(request)
    return await _audited(
        request,
        account,
        "game.replay",
        lambda: review.replay(game_id),
        match_id=game_id,
        detail={"as": "player"},
    )


@me_router.get(
    "/me/games/{game_id}/export",
    response_class=Response,
    summary="Export one of this account's finished games",
    tags=["me"],
    responses={**EXPORT_RESPONSES, **error_docs(401, 404, 409, 422, 503)},
)
async def my_export(
    request: Request, account: CurrentAccount, game_id: GameId, format: Format, download: Download = False
) -> Response:
    await _own_finished(request, account, game_id)
    review = _review(request)
    text = await _audited(
        request,
        account,
        "game.export",
        lambda: review.export(game_id, format),
        match_id=game_id,
        detail={"as": "player", "format": format.value},
    )
    return _export_response(text, game_id, format, download)


@me_router.get(
    "/me/games/{game_id}/viewer",
    response_model=m.ViewerLinks,
    summary="tenhou.net/6 viewer links for one of this account's finished games",
    tags=["me"],
    responses=error_docs(401, 404, 409, 422, 503),
)
async def my_viewer(request: Request, account: CurrentAccount, game_id: GameId) -> m.ViewerLinks:
    await _own_finished(request, account, game_id)
    review = _review(request)
    return await _audited(
        request,
        account,
        "game.export",
        lambda: review.viewer_links(game_id),
        match_id=game_id,
        detail={"as": "player", "format": "tenhou6-viewer"},
    )


# -- routes: shared links (anyone allowed to see the game) ---------------------------------------------


@me_router.get(
    "/games/{game_id}/replay",
    response_model=m.Replay,
    summary="A finished game's replay, every hand open, for anyone allowed to see it",
    description=(
        "The token is optional. Its players and admins may read a finished game; anyone, with or "
        "without a token, may read a finished game whose table allowed spectators. A running game, "
        "a private one (its table refused spectators) and an unknown one all answer 404."
    ),
    tags=["games"],
    responses=error_docs(404, 422, 503),
    openapi_extra={"security": [{}]},  # beside the bearer scheme: {} (no token at all) is fine too
)
async def shared_replay(request: Request, reader: AnyReader, game_id: GameId) -> m.Replay:
    review = _review(request)
    admin = reader is not None and AccountScope.ADMIN in reader.scopes
    access = await review.reader_access(
        game_id, account_id=None if reader is None else reader.id, admin=admin
    )
    if reader is None or access is Access.PUBLIC:
        # A public log is read by anyone, like a page of the site: no audit entry per view.
        return await review.replay(game_id)
    return await _audited(
        request,
        reader,
        "game.replay",
        lambda: review.replay(game_id),
        match_id=game_id,
        detail={"as": access.value},
    )


# -- the application ------------------------------------------------------------------------------------


def create_app(repo: Store, settings: ApiSettings | None = None) -> FastAPI:
    """The one HTTP application of the server on ``repo``: every route of both ports, each declared
    for its port (:mod:`server.web.api.ports`). uvicorn serves it on the admin port
    (:func:`server.web.api.http.serve_http`, in the hub's event loop, since ``repo`` lives there);
    the hub it is attached to (:func:`server.web.api.gameport.attach_hub`) hands it the game port's
    plain HTTP requests. Any :class:`~server.domain.ports.Store` will do: the SQL one or the
    in-memory one."""
    settings = settings or ApiSettings()
    app = FastAPI(
        title="Jantaku HTTP API",
        version=API_VERSION,
        description=(
            "Find, replay, verify and export stored games (docs/admin.md), ranked play "
            "(docs/ranking.md), and the game port's routes (docs/hub.md). Authenticate with "
            "`Authorization: Bearer <token>`; `/api/admin/...` needs the admin scope. Every error "
            'on both ports is `{"error": {"code", "message"}}`.'
        ),
        openapi_url=None,  # served below, on the admin port only
        docs_url=None,  # the Swagger UI would load its assets from the internet
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=None,
    )
    app.state.review = Review(
        repo, clock=settings.clock, viewer_base=settings.tenhou_viewer, sealed=settings.sealed
    )
    app.state.authenticator = Authenticator(repo, session_ttl_s=0, wall=settings.clock)
    app.state.settings = settings
    app.state.store = repo
    app.state.session_ttl_s = settings.session_ttl_s
    app.state.accounts = Accounts(
        repo,
        Authenticator(repo, session_ttl_s=settings.session_ttl_s, wall=settings.clock),
        wall=settings.clock,
    )
    app.state.hub = None  # the game port's routes answer for the hub attached (gameport.attach_hub)

    async def openapi() -> dict[str, Any]:
        return app.openapi()

    app.router.add_api_route(OPENAPI_PATH, openapi, include_in_schema=False, route_class_override=AdminRoute)
    for part in (
        router,
        me_router,
        ranked_router,
        events_router,
        eventops_router,
        bot_events_router,
        social_router,
        reports_router,
        player_reports_router,
        game_router,
        game_files,
        admin_files,
    ):
        app.include_router(part)
    install_error_handlers(app, repo.unavailable_errors)

    app.add_middleware(SecurityHeaders)
    app.add_middleware(SameHostCors)
    return app
