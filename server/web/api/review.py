"""The review service (:mod:`server.services.review`) as the web package uses it: the same calls,
each answer turned into the API's pydantic model of the same name (:mod:`server.web.api.models`).

The service's errors, filters and constants are imported from the service itself.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from server.domain.ports import Store
from server.domain.records import MatchRecord
from server.services import review as service
from server.services.review import (
    TENHOU6_VIEWER,
    Access,
    GameFilters,
)
from server.web.api import models as m

__all__ = ["Review", "model", "summary", "viewer_links"]

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


def model(cls: type[M], result: object) -> M:
    """The API's model of a service result: the same field names, read attribute by attribute."""
    return cls.model_validate(result, from_attributes=True)


def summary(match: MatchRecord, result: Any) -> m.GameSummary:
    return model(m.GameSummary, service.summary(match, result))


def viewer_links(game_id: str, tenhou6: str, base: str = TENHOU6_VIEWER) -> m.ViewerLinks:
    return model(m.ViewerLinks, service.viewer_links(game_id, tenhou6, base))


class Review:
    """:class:`server.services.review.Review`, answering with the API's models."""

    def __init__(
        self,
        repo: Store,
        *,
        clock: Callable[[], float] = time.time,
        viewer_base: str = TENHOU6_VIEWER,
        sealed: Callable[[MatchRecord], Awaitable[bool]] | None = None,
    ) -> None:
        self.service = service.Review(repo, clock=clock, viewer_base=viewer_base, sealed=sealed)
        self.repo = repo

    async def list_games(self, f: GameFilters) -> m.GameList:
        return model(m.GameList, await self.service.list_games(f))

    async def match(self, match_id: str) -> MatchRecord:
        return await self.service.match(match_id)

    async def finished_match(self, match_id: str) -> MatchRecord:
        return await self.service.finished_match(match_id)

    async def reader_access(self, match_id: str, *, account_id: str | None, admin: bool = False) -> Access:
        return await self.service.reader_access(match_id, account_id=account_id, admin=admin)

    async def detail(self, match_id: str) -> m.GameDetail:
        return model(m.GameDetail, await self.service.detail(match_id))

    async def replay(self, match_id: str) -> m.Replay:
        return model(m.Replay, await self.service.replay(match_id))

    async def walls(self, match_id: str) -> m.WallReport:
        return model(m.WallReport, await self.service.walls(match_id))

    async def export(self, match_id: str, fmt: m.ExportFormat) -> str:
        return await self.service.export(match_id, fmt)

    async def viewer_links(self, match_id: str) -> m.ViewerLinks:
        return model(m.ViewerLinks, await self.service.viewer_links(match_id))

    async def audit(
        self,
        *,
        actor: str,
        actor_id: str | None,
        action: str,
        match_id: str | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> int:
        return await self.service.audit(
            actor=actor, actor_id=actor_id, action=action, match_id=match_id, detail=detail
        )

    async def audited(
        self,
        read: Callable[[], Awaitable[T]],
        *,
        actor: str,
        actor_id: str | None,
        action: str,
        match_id: str | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> T:
        return await self.service.audited(
            read, actor=actor, actor_id=actor_id, action=action, match_id=match_id, detail=detail
        )

    async def audit_log(
        self, *, match_id: str | None = None, actor_id: str | None = None, limit: int = 100
    ) -> m.AuditList:
        return model(
            m.AuditList, await self.service.audit_log(match_id=match_id, actor_id=actor_id, limit=limit)
        )
