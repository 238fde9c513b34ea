"""The routes of the server's files: the browser client and the players' pages on the game port,
the admin pages on the admin port (the files themselves: :mod:`server.web.static`,
:mod:`server.web.api.pages`)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from server.web.api import models as m
from server.web.api.errors import ApiError
from server.web.api.pages import PageResponse, admin_page_response, games_page_response
from server.web.api.ports import AdminRoute, GameRoute
from server.web.static import static_response

game_files = APIRouter(route_class=GameRoute, include_in_schema=False)
admin_files = APIRouter(route_class=AdminRoute, include_in_schema=False)


def _answer(found: PageResponse | None, request: Request) -> Response:
    if found is None:
        raise ApiError(m.ErrorCode.NOT_FOUND, f"no page {request.url.path}")
    status, headers, body = found
    return Response(body, status_code=status, headers=dict(headers))


@game_files.get("/")
@game_files.get("/index.html")
async def client_page(request: Request) -> Response:
    """The browser client (``server/web/static/index.html``)."""
    return _answer(static_response("/"), request)


@game_files.get("/static/{path:path}")
async def client_file(request: Request, path: str) -> Response:
    return _answer(static_response("/static/" + path), request)


@game_files.get("/games")
@game_files.get("/games/{path:path}")
async def games_page(request: Request) -> Response:
    """*My games*: the admin pages in their players' mode."""
    return _answer(games_page_response(request.url.path), request)


@admin_files.get("/")
@admin_files.get("/admin")
async def admin_root() -> RedirectResponse:
    return RedirectResponse("/admin/", status_code=307)


@admin_files.get("/admin/{path:path}")
async def admin_page(request: Request, path: str) -> Response:
    return _answer(admin_page_response(path), request)
