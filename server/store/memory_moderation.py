"""Lobby lines and reports in memory: the :class:`~server.domain.moderation.ModerationStore` half of
``InMemoryRepository`` (the same answers as :mod:`server.store.moderation`)."""

from __future__ import annotations

from dataclasses import replace

from server.domain.moderation import LobbyLineRecord, ReportRecord


class MemoryModeration:
    """Mixed into ``InMemoryRepository`` (``_init_moderation`` from its constructor)."""

    _lobby_lines: list[LobbyLineRecord]
    _lobby_next: int
    _reports: list[ReportRecord]

    def _init_moderation(self) -> None:
        self._lobby_lines = []
        self._lobby_next = 1
        self._reports = []

    async def add_lobby_line(self, line: LobbyLineRecord) -> LobbyLineRecord:
        stored = replace(line, id=self._lobby_next)
        self._lobby_next += 1
        self._lobby_lines.append(stored)
        return stored

    async def lobby_lines(self, channel: str, *, limit: int, since: float) -> list[LobbyLineRecord]:
        found = [r for r in self._lobby_lines if r.channel == channel and r.at >= since]
        return found[-limit:] if limit > 0 else []

    async def lobby_lines_around(self, line_id: int, *, before: int, after: int) -> list[LobbyLineRecord]:
        target = next((r for r in self._lobby_lines if r.id == line_id), None)
        if target is None:
            return []
        same = [r for r in self._lobby_lines if r.channel == target.channel]
        i = same.index(target)
        return same[max(0, i - before) : i + after + 1]

    async def prune_lobby(self, before: float, *, keep: frozenset[int] = frozenset()) -> int:
        kept = [r for r in self._lobby_lines if r.at >= before or r.id in keep]
        dropped = len(self._lobby_lines) - len(kept)
        self._lobby_lines = kept
        return dropped

    async def add_report(self, report: ReportRecord) -> ReportRecord:
        stored = replace(report, id=len(self._reports) + 1)
        self._reports.append(stored)
        return stored

    async def reports(self, *, status: str | None = None) -> list[ReportRecord]:
        return [r for r in self._reports if status is None or r.status == status]

    async def resolve_report(
        self, report_id: int, *, status: str, by: str, at: float, resolution: str, sanction_id: int | None
    ) -> ReportRecord | None:
        if not 1 <= report_id <= len(self._reports):
            return None
        found = self._reports[report_id - 1]
        if found.status == "open":
            found = replace(
                found,
                status=status,
                resolved_by=by,
                resolved_at=at,
                resolution=resolution,
                sanction_id=sanction_id,
            )
            self._reports[report_id - 1] = found
        return found
