"""Lobby lines and reports on every store (memory, SQLite, PostgreSQL): the same answers."""

from __future__ import annotations

from typing import Any

import pytest

from server.domain.moderation import LobbyLineRecord, ReportRecord
from tests.store.conftest import BACKENDS, fresh_database, postgres  # noqa: F401  (postgres: a fixture)

pytestmark = pytest.mark.asyncio

T0 = 1_700_000_000.0


@pytest.fixture
def store(any_repo: Any) -> Any:
    """Every store (memory, SQLite, PostgreSQL): ``any_repo`` of tests/store/conftest.py."""
    return any_repo


def _line(channel: str, n: int, at: float) -> LobbyLineRecord:
    return LobbyLineRecord(0, channel, f"p-{n}", f"name{n}", f"line {n}", None, at)


async def test_lobby_lines_history_around_and_prune(store: Any) -> None:
    ids = []
    for n in range(6):
        stored = await store.add_lobby_line(_line("general", n, T0 + n))
        ids.append(stored.id)
        await store.add_lobby_line(_line("queue:east", 100 + n, T0 + n))
    assert len(set(ids)) == 6
    last = await store.lobby_lines("general", limit=3, since=0)
    assert [r.text for r in last] == ["line 3", "line 4", "line 5"]
    recent = await store.lobby_lines("general", limit=10, since=T0 + 4)
    assert [r.text for r in recent] == ["line 4", "line 5"]
    around = await store.lobby_lines_around(ids[2], before=1, after=2)
    assert [r.text for r in around] == ["line 1", "line 2", "line 3", "line 4"]
    assert await store.lobby_lines_around(999_999, before=1, after=1) == []
    assert await store.prune_lobby(T0 + 3, keep=frozenset({ids[0]})) == 5  # 2 general + 3 queue
    left = await store.lobby_lines("general", limit=10, since=0)
    assert [r.text for r in left] == ["line 0", "line 3", "line 4", "line 5"]
    assert left[0].at == T0 and left[0].name == "name0" and left[0].stamp is None


async def test_reports_are_stored_listed_and_resolved_once(store: Any) -> None:
    first = await store.add_report(ReportRecord(0, "p-a", "p-b", "lobby", "spam", '{"lines": []}', T0))
    second = await store.add_report(ReportRecord(0, "p-c", "p-b", "player", "rude", "{}", T0 + 1))
    assert (first.id, second.id) != (0, 0) and first.id != second.id
    assert first.status == "open" and first.context == '{"lines": []}' and first.created_at == T0
    done = await store.resolve_report(
        first.id, status="actioned", by="admin", at=T0 + 5, resolution="warned", sanction_id=7
    )
    assert done is not None and (done.status, done.resolved_by, done.sanction_id) == ("actioned", "admin", 7)
    again = await store.resolve_report(
        first.id, status="dismissed", by="other", at=T0 + 6, resolution="no", sanction_id=None
    )
    assert again == done  # a closed report stays as it was closed
    assert [r.id for r in await store.reports(status="open")] == [second.id]
    assert [r.id for r in await store.reports()] == [first.id, second.id]
    assert (
        await store.resolve_report(999, status="dismissed", by="x", at=T0, resolution="", sanction_id=None)
        is None
    )
