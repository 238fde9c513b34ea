"""The game port's plain HTTP requests, handed to the one HTTP application in-process.

The websockets server parses every request on the game port (it must, to see the websocket
upgrades). Only the upgrades to the websocket paths are its own; every other request is given, as
websockets parsed it, to the ASGI application that declares every HTTP route of both ports
(``server.web.api.app``, docs/architecture.md "One route table"): :func:`answer` builds the ASGI
scope, runs the application in this event loop (no socket, no second parser) and turns what it
sends into a websockets :class:`~websockets.http11.Response`. The scope carries
:data:`PORT_KEY` = :data:`GAME_PORT`, so the application answers only the game port's routes.

Errors the hub itself answers on the websocket paths (a refused upgrade) have the body every HTTP
error of both ports has (:func:`error_response`)::

    {"error": {"code": "rate_limited", "message": "too many connections; wait a little"}}

>>> r = error_response(429, "rate_limited", "slow down")
>>> r.status_code, r.headers["Content-Type"], r.body
(429, 'application/json', b'{"error": {"code": "rate_limited", "message": "slow down"}}')
"""

from __future__ import annotations

import http
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import unquote, urlsplit

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.domain.httpports import GAME_PORT, PORT_KEY

log = logging.getLogger(__name__)

Message = MutableMapping[str, Any]
AsgiApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]
"""An ASGI 3 application (FastAPI's, in ``jantaku serve``)."""

JSON = "application/json"


def error_response(status: int, code: str, message: str) -> Response:
    """An HTTP error in the one shape of both ports (``{"error": {"code", "message"}}``)."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = Headers(
        [
            ("Content-Type", JSON),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
            ("Connection", "close"),
        ]
    )
    return Response(status, _phrase(status), headers, body)


HANDSHAKE_CODES = {400: "invalid_request", 426: "upgrade_required", 500: "internal", 503: "unavailable"}


def as_error(response: Response) -> Response | None:
    """websockets' own refusal of a bad upgrade (a text body) in the one error shape; None for
    anything else (the 101 of an upgrade, or a response already in that shape)."""
    if response.status_code < 400 or response.headers.get("Content-Type", "").startswith(JSON):
        return None
    code = HANDSHAKE_CODES.get(response.status_code, "invalid_request")
    text = response.body.decode("utf-8", "replace").strip() or _phrase(response.status_code)
    return error_response(response.status_code, code, text)


async def answer(
    app: AsgiApp,
    request: Request,
    *,
    client: str | None,
    server: tuple[str, int] | None,
) -> Response:
    """``app``'s answer to ``request`` (a GET, HEAD, ...: websockets refuses request bodies)."""
    target = urlsplit(request.path)
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": request.protocol.removeprefix("HTTP/") if request.protocol else "1.1",
        "method": request.method,
        "scheme": "http",
        "path": unquote(target.path),
        "raw_path": target.path.encode("latin-1", "replace"),
        "query_string": target.query.encode("latin-1", "replace"),
        "root_path": "",
        "headers": [
            (k.lower().encode("latin-1"), v.encode("latin-1", "replace"))
            for k, v in request.headers.raw_items()
        ],
        "client": (client, 0) if client is not None else None,
        "server": server,
        PORT_KEY: GAME_PORT,
    }
    status = 0
    headers: list[tuple[str, str]] = []
    body = bytearray()

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status = int(message["status"])
            headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", ())]
        elif message["type"] == "http.response.body":
            body.extend(message.get("body", b""))

    try:
        await app(scope, receive, send)
    except Exception:
        # The application answers its own errors (a 500 in the one shape) and re-raises: log it;
        # if it could not even answer, answer for it.
        log.exception("HTTP %s %s failed", request.method, target.path)
        if not status:
            return error_response(500, "internal", "the server failed to answer; this is a bug")
    if not status:
        return error_response(500, "internal", "the server gave no answer; this is a bug")
    headers.append(("Connection", "close"))  # websockets closes the connection after any answer
    if request.method == "HEAD":
        body.clear()  # the headers (Content-Length included) of the GET, no body
    return Response(status, _phrase(status), Headers(headers), bytes(body))


def _phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ""
