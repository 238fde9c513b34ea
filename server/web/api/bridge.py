"""The players' part of the review API on the game port: ``/api/me/...`` answered in-process.

The browser client lives on the hub's port, and the review API on its own (``--http-port``, which
an operator may keep to localhost: it also serves the admin pages). A player's own games
(``/api/me/games``, their replays and exports) must be reachable where the client is, so the hub
hands those GETs to :func:`player_api`, which calls the same FastAPI application directly through
ASGI (no socket, no second server): one API, the same authentication, the same audit log.
Nothing but ``/api/me`` and ``/api/me/...`` is passed on, so the admin routes stay on the admin port.

>>> is_player_path("/api/me/games"), is_player_path("/api/admin/games"), is_player_path("/api/meow")
(True, False, False)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from starlette.types import ASGIApp, Message

PLAYER_PREFIX = "/api/me"

HttpAnswer = tuple[int, list[tuple[str, str]], bytes]
PlayerApi = Callable[[str, Sequence[tuple[str, str]]], Awaitable[HttpAnswer | None]]


def is_player_path(path: str) -> bool:
    return path == PLAYER_PREFIX or path.startswith(PLAYER_PREFIX + "/")


def player_api(app: ASGIApp) -> PlayerApi:
    """``(target, headers) -> (status, headers, body)`` for a GET of ``target`` (path and query),
    or None when the path is not the players' API."""

    async def answer(target: str, headers: Sequence[tuple[str, str]]) -> HttpAnswer | None:
        parts = urlsplit(target)
        if not is_player_path(parts.path):
            return None
        return await call_asgi(app, parts.path, parts.query, headers)

    return answer


async def call_asgi(app: ASGIApp, path: str, query: str, headers: Sequence[tuple[str, str]]) -> HttpAnswer:
    """One GET through ``app`` in this event loop."""
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": unquote(path),
        "raw_path": path.encode("latin-1", "replace"),
        "query_string": query.encode("latin-1", "replace"),
        "root_path": "",
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1", "replace")) for k, v in headers],
        "client": None,
        "server": None,
    }
    status = 500
    out_headers: list[tuple[str, str]] = []
    body = bytearray()

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status, out_headers
        if message["type"] == "http.response.start":
            status = int(message["status"])
            out_headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", [])]
        elif message["type"] == "http.response.body":
            body.extend(message.get("body", b""))

    await app(scope, receive, send)
    return status, out_headers, bytes(body)
