"""The stored side of lobby chat and reports (docs/social.md): the lobby's lines (kept for the
history shown on join and for moderation, pruned after the retention), the reports players file
and how an administrator resolved them, with the :class:`ModerationStore` port the memory and SQL
stores implement."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class LobbyLineRecord:
    """One line said in a lobby channel (``text`` or ``stamp`` is set)."""

    id: int
    channel: str
    account_id: str
    name: str
    text: str | None
    stamp: str | None
    at: float


@dataclass(frozen=True, slots=True)
class ReportRecord:
    """A player's report of a player, or of one chat line (``where``: ``lobby``, ``table`` or
    ``player``), with the context the server saw (``context``: a JSON document: the lines around,
    the channel or match, its step) and how it was resolved (``status`` ``open``, ``dismissed`` or
    ``actioned``; ``sanction_id`` when a sanction was given)."""

    id: int
    reporter_id: str
    target_id: str
    where: str
    reason: str
    context: str
    created_at: float
    status: str = "open"
    resolved_by: str | None = None
    resolved_at: float | None = None
    resolution: str | None = None  # the administrator's reason
    sanction_id: int | None = None


class ModerationStore(Protocol):
    async def add_lobby_line(self, line: LobbyLineRecord) -> LobbyLineRecord:
        """Store a line (its ``id`` is ignored); returns it with the id it was given."""
        ...

    async def lobby_lines(self, channel: str, *, limit: int, since: float) -> list[LobbyLineRecord]:
        """The last ``limit`` lines of ``channel`` said at ``since`` or later, oldest first."""
        ...

    async def lobby_lines_around(self, line_id: int, *, before: int, after: int) -> list[LobbyLineRecord]:
        """The line ``line_id`` of its channel with up to ``before`` lines before it and ``after``
        after it, oldest first (empty when there is no such line)."""
        ...

    async def prune_lobby(self, before: float, *, keep: frozenset[int] = frozenset()) -> int:
        """Delete the lines said before ``before`` (but the ids in ``keep``); returns how many."""
        ...

    async def add_report(self, report: ReportRecord) -> ReportRecord: ...

    async def reports(self, *, status: str | None = None) -> list[ReportRecord]:
        """Every report (or those of ``status``), oldest first."""
        ...

    async def resolve_report(
        self, report_id: int, *, status: str, by: str, at: float, resolution: str, sanction_id: int | None
    ) -> ReportRecord | None:
        """Close an open report; returns it as stored (unchanged when it was not open), None if
        there is none."""
        ...
