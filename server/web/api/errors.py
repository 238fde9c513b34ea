"""The review API's errors: typed JSON answers (``{"error": {"code": ..., "message": ...}}``) with the
status of their code, the handlers that make every failure one, and the security headers.

The store's own "could not answer" exceptions (:attr:`~server.domain.ports.ReadModel.unavailable_errors`:
SQLAlchemy's for the SQL store) are answered 503 ``unavailable`` like
:class:`~server.domain.errors.UnavailableError`; this module names no database library.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.domain.errors import UnavailableError
from server.services.review import GameLiveError, GameNotFoundError, NotExportableError
from server.web.api import models as m

log = logging.getLogger(__name__)

STATUS_OF: dict[m.ErrorCode, int] = {
    m.ErrorCode.UNAUTHENTICATED: 401,
    m.ErrorCode.FORBIDDEN: 403,
    m.ErrorCode.NOT_FOUND: 404,
    m.ErrorCode.METHOD_NOT_ALLOWED: 405,
    m.ErrorCode.GAME_LIVE: 409,
    m.ErrorCode.NOT_EXPORTABLE: 409,
    m.ErrorCode.INVALID_REQUEST: 422,
    m.ErrorCode.UPGRADE_REQUIRED: 426,
    m.ErrorCode.NAME_TAKEN: 409,
    m.ErrorCode.CONFLICT: 409,
    m.ErrorCode.RATE_LIMITED: 429,
    m.ErrorCode.UNAVAILABLE: 503,
    m.ErrorCode.INTERNAL: 500,
}
NO_STORE = {"Cache-Control": "no-store"}


class ApiError(Exception):
    def __init__(self, code: m.ErrorCode, message: str, details: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


def error_response(
    code: m.ErrorCode, message: str, details: list[dict[str, Any]] | None = None
) -> JSONResponse:
    body = m.ErrorResponse(error=m.ErrorBody(code=code, message=message, details=details))
    headers = dict(NO_STORE)
    if code is m.ErrorCode.UNAUTHENTICATED:
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse(
        body.model_dump(mode="json", exclude_none=True), status_code=STATUS_OF[code], headers=headers
    )


def error_docs(*codes: int) -> dict[int | str, dict[str, Any]]:
    text = {
        401: "no token, or an unknown, expired or revoked one (code unauthenticated)",
        403: "the token lacks the admin scope (code forbidden)",
        404: "no such game (code not_found)",
        409: "the game is still being played (code game_live), or its log cannot be exported; "
        "register: the name is taken (code name_taken)",
        429: "too many failed sign-ins for the account or the address (code rate_limited)",
        422: "a parameter is missing, malformed or out of range (code invalid_request)",
        503: "the database is unavailable; retry (code unavailable)",
    }
    return {c: {"model": m.ErrorResponse, "description": text[c]} for c in codes}


def install_error_handlers(app: FastAPI, unavailable_errors: tuple[type[Exception], ...]) -> None:
    """Answer every failure with a typed error; ``unavailable_errors`` (the store's) with 503."""

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_response(exc.code, exc.message, exc.details)

    async def review_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, GameNotFoundError):
            return error_response(m.ErrorCode.NOT_FOUND, str(exc))
        if isinstance(exc, GameLiveError):
            return error_response(m.ErrorCode.GAME_LIVE, str(exc))
        return error_response(m.ErrorCode.NOT_EXPORTABLE, str(exc))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 405:
            return error_response(m.ErrorCode.METHOD_NOT_ALLOWED, "this route does not answer that method")
        if exc.status_code == 404:
            return error_response(m.ErrorCode.NOT_FOUND, f"no route {request.url.path}")
        if exc.status_code in (401, 403):
            return error_response(m.ErrorCode.UNAUTHENTICATED, str(exc.detail))
        return error_response(m.ErrorCode.INVALID_REQUEST, str(exc.detail))

    async def validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        details = [
            {
                "loc": [str(p) for p in e.get("loc", ())],
                "msg": str(e.get("msg", "")),
                "type": str(e.get("type", "")),
            }
            for e in exc.errors()
        ]
        where = ", ".join(".".join(d["loc"]) for d in details) or "the request"
        return error_response(m.ErrorCode.INVALID_REQUEST, f"invalid {where}", details)

    async def unavailable(request: Request, exc: Exception) -> Response:
        log.warning("review API: the store is unavailable: %s: %s", type(exc).__name__, exc)
        return error_response(m.ErrorCode.UNAVAILABLE, "the database is unavailable; retry shortly")

    async def bug(request: Request, exc: Exception) -> Response:
        # Starlette logs it (uvicorn) or re-raises it to the hub's bridge, which logs it
        return error_response(m.ErrorCode.INTERNAL, "the server failed to answer; this is a bug")

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(Exception, bug)
    app.add_exception_handler(GameNotFoundError, review_error)
    app.add_exception_handler(GameLiveError, review_error)
    app.add_exception_handler(NotExportableError, review_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(UnavailableError, unavailable)
    for error in unavailable_errors:
        app.add_exception_handler(error, unavailable)
    app.add_exception_handler(OSError, unavailable)


class SecurityHeaders:
    """``Cache-Control: no-store`` on every API answer (they hold private data), ``nosniff`` and
    ``no-referrer`` everywhere. Plain ASGI, so errors pass through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = str(scope.get("path", "")).startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if api and "cache-control" not in headers:
                    headers["Cache-Control"] = "no-store"
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "no-referrer")
            await send(message)

        await self.app(scope, receive, send_with_headers)
