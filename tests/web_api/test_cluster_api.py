"""``GET /api/cluster`` (admin): the status document the composition root plugs in for a cluster
node (``server/cluster/status.py``); 404 on a single process, 503 when Redis cannot be read."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from server.web.api import ApiSettings, create_app
from tests.web_api.conftest import SeededDb

DOCUMENT: dict[str, Any] = {
    "nodes": [
        {
            "node_id": "a",
            "live": True,
            "url": "ws://10.0.0.1:8765",
            "tables": 2,
            "connections": 5,
            "leases": 2,
        },
        {"node_id": "b", "live": False},
    ],
    "running_matches": 3,
    "unowned": ["m-1"],
    "matches": [
        {"match_id": "m-1", "owner": None, "source": "queue:tenhou", "players": ["p", "q", "r", "s"]},
        {"match_id": "m-2", "owner": "a", "source": "private:ABCD", "players": ["t", "u", "v", "w"]},
        {"match_id": "m-3", "owner": "a", "started": 1700000000.5},
    ],
}


async def _get(seeded_db: SeededDb, settings: ApiSettings, who: str | None) -> httpx.Response:
    repo = await seeded_db.open()
    try:
        app = create_app(repo, settings)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            headers = {"Authorization": f"Bearer {seeded_db.data.tokens[who]}"} if who else {}
            return await client.get("/api/cluster", headers=headers)
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_the_cluster_status_for_admins_only(seeded_db: SeededDb) -> None:
    async def status() -> dict[str, Any]:
        return DOCUMENT

    settings = ApiSettings(cluster=status)
    answer = await _get(seeded_db, settings, "admin")
    assert answer.status_code == 200
    body = answer.json()
    assert [n["node_id"] for n in body["nodes"]] == ["a", "b"] and body["nodes"][1]["tables"] == 0
    assert body["running_matches"] == 3 and body["unowned"] == ["m-1"]
    assert [(m["match_id"], m["owner"]) for m in body["matches"]] == [
        ("m-1", None),
        ("m-2", "a"),
        ("m-3", "a"),
    ]
    assert (
        body["matches"][1]["players"] == ["t", "u", "v", "w"]
        and body["matches"][1]["source"] == "private:ABCD"
    )
    assert (await _get(seeded_db, settings, None)).status_code == 401
    assert (await _get(seeded_db, settings, "alice")).status_code == 403


@pytest.mark.asyncio
async def test_not_a_cluster_node_or_redis_down(seeded_db: SeededDb) -> None:
    single = await _get(seeded_db, ApiSettings(), "admin")
    assert single.status_code == 404 and single.json()["error"]["code"] == "not_found"

    async def down() -> dict[str, Any]:
        raise ConnectionError("redis went away")

    unavailable = await _get(seeded_db, ApiSettings(cluster=down), "admin")
    assert unavailable.status_code == 503 and unavailable.json()["error"]["code"] == "unavailable"
