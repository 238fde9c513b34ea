"""The hub's own HTTP routes, on the game port: probes, metrics, private and live tables.

Declared here, in the one application (``server.web.api.app``), and answered for the hub attached
to it (:func:`attach_hub`; ``request.app.state.hub``):

* ``GET /healthz``: ``200 ok`` while the process runs;
* ``GET /readyz``: ``200 ready``, or 503 ``unavailable`` while starting, draining or stopping;
* ``GET /metrics``: the Prometheus text format (docs/operations.md);
* ``GET /stats``: the benchmarks' latency summary (``JANTAKU_HUB_STATS=1``; else 404);
* ``GET /private/new``: open a private table (docs/hub.md "Private tables");
* ``GET /tables/live``: the tables a spectator may watch (docs/hub.md "Live tables").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, Protocol

from fastapi import APIRouter, Depends, FastAPI, Path, Query, Request, Security
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from fastapi.security import HTTPAuthorizationCredentials

from client_protocol.codec import decode_json
from client_protocol.errors import ErrorCode as WireCode
from client_protocol.errors import ProtocolError
from server.domain.records import Account
from server.services.auth import AuthError
from server.services.errors import LobbyError
from server.web.api import models as m
from server.web.api.errors import NO_STORE, ApiError, error_docs
from server.web.api.params import bearer, refuse_unknown_parameters
from server.web.api.ports import GameRoute

game_router = APIRouter(route_class=GameRoute, tags=["game port"])


class _Metrics(Protocol):
    def expose(self) -> tuple[bytes, str]: ...


class _LiveTables(Protocol):
    def listing(self) -> dict[str, Any]: ...

    def overlay(self, match_id: str, viewer: Account | None) -> dict[str, Any] | None: ...


class _Bearers(Protocol):
    async def account_for_bearer(self, token: str) -> Account: ...


class _Invite(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def preset(self) -> str: ...
    @property
    def bots(self) -> int: ...
    @property
    def humans(self) -> int: ...
    @property
    def expires_at(self) -> float: ...
    @property
    def chat_mode(self) -> str: ...


class _PrivateTables(Protocol):
    async def create_private(
        self,
        creator: Account,
        *,
        preset: str = ...,
        rules: Mapping[str, Any] | None = ...,
        bots: int = ...,
        bot: str | None = ...,
        timers: Mapping[str, int] | None = ...,
        spectators: bool = ...,
        watch: Mapping[str, Any] | None = ...,
        chat: str | None = ...,
    ) -> _Invite: ...


class _Clock(Protocol):
    def now(self) -> float: ...


class GameHub(Protocol):
    """What the game port's routes ask of the hub (``server.hub.server.Hub`` is one): the web
    package names no hub module, so this is the whole of what it may use."""

    @property
    def metrics(self) -> _Metrics: ...
    @property
    def live_tables(self) -> _LiveTables: ...
    @property
    def auth(self) -> _Bearers: ...
    @property
    def lobby(self) -> _PrivateTables: ...
    @property
    def clock(self) -> _Clock: ...

    def not_ready_reason(self) -> str | None: ...

    def stats_document(self, *, heap: bool = False, reset: bool = False) -> dict[str, Any] | None: ...


def attach_hub(app: FastAPI, hub: GameHub) -> None:
    """Answer the game port's routes of ``app`` for ``hub`` (which hands it its HTTP requests)."""
    app.state.hub = hub


def _hub(request: Request) -> GameHub:
    hub: GameHub | None = getattr(request.app.state, "hub", None)
    if hub is None:  # pragma: no cover - the game port's requests come from a hub
        raise ApiError(m.ErrorCode.NOT_FOUND, f"no route {request.url.path}")
    return hub


@game_router.head("/healthz", include_in_schema=False)  # load balancers may probe with HEAD
@game_router.get("/healthz", response_class=PlainTextResponse, summary="200 while the process runs")
async def healthz() -> str:
    return "ok\n"


@game_router.head("/readyz", include_in_schema=False)
@game_router.get(
    "/readyz",
    response_class=PlainTextResponse,
    summary="200 once started; 503 while starting, draining (after SIGTERM) or stopping",
    responses=error_docs(503),
)
async def readyz(request: Request) -> str:
    why = _hub(request).not_ready_reason()
    if why is not None:
        raise ApiError(m.ErrorCode.UNAVAILABLE, why)
    return "ready\n"


@game_router.get("/metrics", response_class=Response, summary="Prometheus text format")
async def metrics(request: Request) -> Response:
    body, content_type = _hub(request).metrics.expose()
    return Response(body, media_type=content_type)


@game_router.get("/stats", include_in_schema=False)
async def stats(request: Request, heap: bool = False, reset: bool = False) -> JSONResponse:
    document = _hub(request).stats_document(heap=heap, reset=reset)
    if document is None:  # JANTAKU_HUB_STATS is off: as if there were no such route
        raise ApiError(m.ErrorCode.NOT_FOUND, f"no route {request.url.path}")
    return JSONResponse(document, headers=NO_STORE)


@game_router.get("/tables/live", summary="The tables a spectator may watch (docs/hub.md)")
async def live_tables(request: Request) -> JSONResponse:
    return JSONResponse(_hub(request).live_tables.listing(), headers=NO_STORE)


@game_router.get(
    "/tables/{match_id}/overlay",
    summary="A live table's stream overlay, after the spectator delay (docs/social.md)",
    responses=error_docs(401, 404),
)
async def table_overlay(
    request: Request,
    match_id: Annotated[str, Path(min_length=1, max_length=64)],
    creds: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)],
) -> JSONResponse:
    """Public information only, as a spectator sees it at the same moment; a table for named
    observers answers only with one of their tokens (otherwise 404, as for no such table)."""
    hub = _hub(request)
    viewer = None
    if creds is not None:
        try:
            viewer = await hub.auth.account_for_bearer(creds.credentials.strip())
        except AuthError as exc:
            raise ApiError(m.ErrorCode.UNAUTHENTICATED, exc.message) from None
    refuse_unknown_parameters(request)
    document = hub.live_tables.overlay(match_id, viewer)
    if document is None:
        raise ApiError(m.ErrorCode.NOT_FOUND, f"no live table {match_id!r} to watch")
    return JSONResponse(document, headers=NO_STORE)


async def hub_account(
    request: Request, creds: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)]
) -> Account:
    """The account of a bearer token, as the hub knows it (a guest that has not sat at a table yet
    included); then, and only then, the parameters are checked (authentication comes first)."""
    if creds is None:
        raise ApiError(m.ErrorCode.UNAUTHENTICATED, "send Authorization: Bearer <token>")
    try:
        account = await _hub(request).auth.account_for_bearer(creds.credentials.strip())
    except AuthError as exc:
        raise ApiError(m.ErrorCode.UNAUTHENTICATED, exc.message) from None
    refuse_unknown_parameters(request)
    return account


Timer = Annotated[int | None, Query(ge=0, le=3_600_000, description="milliseconds (docs/hub.md timers)")]
TIMERS = ("action_ms", "bank_ms", "min_call_ms", "disconnect_grace_ms", "bot_delay_ms", "hand_pause_ms")
_LOBBY_ERRORS = {
    WireCode.FORBIDDEN: m.ErrorCode.FORBIDDEN,
    WireCode.BUSY_RETRY: m.ErrorCode.UNAVAILABLE,
}


def _invalid(name: str, message: str) -> ApiError:
    details = [{"loc": ["query", name], "msg": message, "type": "value_error"}]
    return ApiError(m.ErrorCode.INVALID_REQUEST, f"{name}: {message}", details)


@game_router.get(
    "/private/new",
    summary="Open a private table and get its invite code (docs/hub.md)",
    responses=error_docs(401, 403, 422, 503),
)
async def private_new(
    request: Request,
    *,
    account: Annotated[Account, Depends(hub_account)],
    preset: Annotated[str, Query(max_length=64, description="the ruleset preset")] = "tenhou",
    rules: Annotated[str | None, Query(max_length=4096, description="a JSON object of rule options")] = None,
    bots: Annotated[int, Query(ge=0, le=3, description="built-in bots taking seats")] = 0,
    bot: Annotated[str | None, Query(max_length=64, description="which built-in bot")] = None,
    spectators: Annotated[bool, Query(description="allow spectators")] = True,
    delay_hands: Annotated[
        int, Query(ge=0, le=16, description="spectators see each hand once this many more have begun")
    ] = 0,
    delay_s: Annotated[
        float | None, Query(ge=0, le=3600, description="spectators see each event this many seconds late")
    ] = None,
    caster: Annotated[bool, Query(description="offer the caster view (needs a delay)")] = False,
    observers: Annotated[
        str | None, Query(max_length=4096, description="comma-separated account names: only they may watch")
    ] = None,
    action_ms: Timer = None,
    bank_ms: Timer = None,
    min_call_ms: Timer = None,
    disconnect_grace_ms: Timer = None,
    bot_delay_ms: Timer = None,
    hand_pause_ms: Timer = None,
    chat: Annotated[
        Literal["on", "between_hands", "off"] | None,
        Query(description="seated players' free text (docs/social.md): no more than the server allows"),
    ] = None,
) -> JSONResponse:
    hub = _hub(request)
    options: Any = None
    if rules:
        try:
            options = decode_json(rules)
        except ProtocolError as exc:
            raise _invalid("rules", f"not JSON: {exc.message}") from None
        if not isinstance(options, dict):
            raise _invalid("rules", "must be a JSON object of rule options")
    given = (action_ms, bank_ms, min_call_ms, disconnect_grace_ms, bot_delay_ms, hand_pause_ms)
    timers = {name: value for name, value in zip(TIMERS, given, strict=True) if value is not None}
    names = tuple(n.strip() for n in (observers or "").split(",") if n.strip())
    watch: dict[str, Any] = {"delay_hands": delay_hands, "caster": caster, "observers": names}
    if delay_s is not None:
        watch["delay_s"] = delay_s
    try:
        invite = await hub.lobby.create_private(
            account,
            preset=preset,
            rules=options,
            bots=bots,
            bot=bot,
            timers=timers,
            spectators=spectators,
            watch=watch,
            chat=chat,
        )
    except LobbyError as exc:
        if exc.code is WireCode.NOT_FOUND:  # the only thing the lobby looks up by name: the preset
            raise _invalid("preset", exc.message) from None
        raise ApiError(_LOBBY_ERRORS.get(exc.code, m.ErrorCode.INVALID_REQUEST), exc.message) from None
    document = {
        "code": invite.code,
        "preset": invite.preset,
        "bots": invite.bots,
        "players_needed": invite.humans,
        "chat": invite.chat_mode,
        "expires_in_s": round(invite.expires_at - hub.clock.now()),
        "join": {"type": "join", "target": {"type": "private", "code": invite.code}},
    }
    return JSONResponse(document, headers=NO_STORE)
