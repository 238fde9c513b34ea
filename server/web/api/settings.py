"""The knobs of the review API (``docs/admin.md``)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from server.domain.records import MatchRecord
from server.services.review import TENHOU6_VIEWER
from server.services.tournaments import EventService

DEFAULT_HTTP_PORT = 8766  # the hub's default port + 1


@dataclass(frozen=True, slots=True)
class ApiSettings:
    host: str = "127.0.0.1"
    port: int = DEFAULT_HTTP_PORT
    tenhou_viewer: str = TENHOU6_VIEWER  # where the "open in the tenhou.net/6 viewer" links point
    clock: Callable[[], float] = field(default=time.time)  # audit timestamps, session expiry
    audit_listings: bool = True  # also write an audit entry for each admin listing / search
    session_ttl_s: float = 24 * 3600.0  # a session made by signing in (docs/ranking.md) lasts this long
    # Cluster mode: the status document of GET /api/cluster (server/cluster/status.py, wired by the
    # composition root; the web layer never imports the cluster). None: not a cluster node.
    cluster: Callable[[], Awaitable[dict[str, Any]]] | None = None
    # The event service (tournaments, /api/events; server/web/api/events.py), wired by the
    # composition root on the hub's table factory. None: events are not served here.
    events: EventService | None = None
    # Which finished games are sealed as live ones are (their event's round still plays the same
    # walls: server.services.eventrules.sealed_games). None: none.
    sealed: Callable[[MatchRecord], Awaitable[bool]] | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"the HTTP port must be 0..65535, got {self.port}")
