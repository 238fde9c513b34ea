"""Which port answers a route: each route of the one application is declared with its ports.

The application (``server.web.api.app.create_app``) holds every HTTP route of the server; the hub
hands it the game port's plain HTTP requests in-process (``server/hub/asgi.py``, scope key
``jantaku.port`` = ``game``) and uvicorn serves it on the admin port (no key: ``admin``). A route
declared for the other port does not match, so the request gets the 404 of an unknown path.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, ClassVar

from fastapi.routing import APIRoute
from starlette.routing import Match
from starlette.types import Scope

from server.domain.httpports import ADMIN_PORT, GAME_PORT, PORT_KEY


def port_of(scope: Scope) -> str:
    """The port a request came in on (``game`` or ``admin``)."""
    return str(scope.get(PORT_KEY, ADMIN_PORT))


class _PortRoute(APIRoute):
    ports: ClassVar[frozenset[str]] = frozenset()

    def matches(self, scope: Scope) -> tuple[Match, MutableMapping[str, Any]]:
        if port_of(scope) not in self.ports:
            return Match.NONE, {}
        return super().matches(scope)


class GameRoute(_PortRoute):
    """Answered on the game port only."""

    ports = frozenset({GAME_PORT})


class AdminRoute(_PortRoute):
    """Answered on the admin port only."""

    ports = frozenset({ADMIN_PORT})


class BothPortsRoute(_PortRoute):
    """Answered on both ports."""

    ports = frozenset({GAME_PORT, ADMIN_PORT})
