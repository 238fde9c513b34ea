"""Reports over HTTP (server/web/api/reports.py, docs/social.md): a player reports a player or a
lobby line; the admin review queue lists, shows (with the context) and resolves them, each
resolution given with a reason, audited, and a sanction given through the social service."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import argon2
import httpx
import pytest
import pytest_asyncio

from server.domain.moderation import LobbyLineRecord
from server.domain.records import Account, AccountKind, Scope
from server.services.accounts import Accounts
from server.services.auth import Authenticator, hash_token, make_token
from server.services.social import social_service
from server.store.memory import InMemoryRepository
from server.web.api import ApiSettings, create_app

pytestmark = pytest.mark.asyncio
FAST = argon2.PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@dataclass
class Env:
    repo: InMemoryRepository
    client: httpx.AsyncClient
    tokens: dict[str, str]
    ids: dict[str, str]

    def who(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}


@pytest_asyncio.fixture
async def env() -> AsyncIterator[Env]:
    repo = InMemoryRepository()
    app = create_app(repo, ApiSettings())
    app.state.accounts = Accounts(repo, Authenticator(repo, session_ttl_s=3600), hasher=FAST)
    token = make_token("a-root")
    await repo.create_account(
        Account(
            "a-root", "root", AccountKind.PLAYER, frozenset({Scope.ADMIN}), 0.0, token_hash=hash_token(token)
        )
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        tokens, ids = {"root": token}, {"root": "a-root"}
        for name in ("alice", "bob"):
            r = await client.post("/api/accounts/register", json={"name": name, "password": "correct horse"})
            assert r.status_code == 201, r.text
            tokens[name], ids[name] = r.json()["session_token"], r.json()["account"]["id"]
        yield Env(repo, client, tokens, ids)


def code(r: httpx.Response) -> str:
    return str(r.json()["error"]["code"])


async def test_a_report_reaches_the_queue_and_a_chat_ban_resolves_it(env: Env) -> None:
    c, repo = env.client, env.repo
    for n in range(3):
        await repo.add_lobby_line(
            LobbyLineRecord(0, "general", env.ids["alice"], "alice", f"<b>spam {n}</b>", None, 1.0)
        )
    r = await c.post(
        "/api/me/reports",
        json={"account_id": env.ids["alice"], "reason": "spam", "lobby_line_id": 2},
        headers=env.who("bob"),
    )
    assert r.status_code == 200, r.text
    report_id = r.json()["report_id"]
    r = await c.get("/api/admin/reports", params={"status": "open"}, headers=env.who("root"))
    assert r.status_code == 200, r.text
    [listed] = r.json()["reports"]
    assert (listed["id"], listed["reporter"], listed["target"], listed["place"]) == (
        report_id,
        "bob",
        "alice",
        "lobby",
    )
    r = await c.get(f"/api/admin/reports/{report_id}", headers=env.who("root"))
    detail = r.json()
    assert detail["context"]["channel"] == "general" and detail["context"]["line_id"] == 2
    assert [x["text"] for x in detail["context"]["lines"]] == [
        "<b>spam 0</b>",
        "<b>spam 1</b>",
        "<b>spam 2</b>",
    ]
    assert detail["sanctions"] == []
    r = await c.post(
        f"/api/admin/reports/{report_id}/resolve",
        json={"action": "chat_ban", "reason": "spam in general", "minutes": 60},
        headers=env.who("root"),
    )
    assert r.status_code == 200, r.text
    done = r.json()
    assert done["status"] == "actioned" and done["resolved_by"] == "root" and done["sanction_id"] == 1
    assert done["resolution"] == "spam in general"
    social = social_service(repo, ApiSettings().clock)
    [sanction] = social.sanctions(env.ids["alice"])
    assert sanction.kind == "chat_ban" and sanction.reason == f"report {report_id}: spam in general"
    r = await c.post(
        f"/api/admin/reports/{report_id}/resolve",
        json={"action": "dismiss", "reason": "x"},
        headers=env.who("root"),
    )
    assert (r.status_code, code(r)) == (409, "conflict")  # resolved once
    assert [e.action for e in repo._audit][-1] == "report.resolve"  # audited, with the reason
    assert repo._audit[-1].detail is not None and "spam in general" in str(repo._audit[-1].detail)


async def test_refusals_change_nothing(env: Env) -> None:
    c = env.client
    r = await c.get("/api/admin/reports", headers=env.who("bob"))
    assert (r.status_code, code(r)) == (403, "forbidden")
    c.cookies.clear()  # the last sign-up's session cookie
    r = await c.get("/api/admin/reports")
    assert r.status_code == 401
    r = await c.post(
        "/api/me/reports", json={"account_id": env.ids["bob"], "reason": "me"}, headers=env.who("bob")
    )
    assert (r.status_code, code(r)) == (422, "invalid_request")
    r = await c.post(
        "/api/me/reports",
        json={"account_id": env.ids["alice"], "reason": "x", "lobby_line_id": 77},
        headers=env.who("bob"),
    )
    assert (r.status_code, code(r)) == (404, "not_found")
    r = await c.post(
        "/api/me/reports", json={"account_id": env.ids["alice"], "reason": "rude"}, headers=env.who("bob")
    )
    report_id = r.json()["report_id"]
    r = await c.post(
        f"/api/admin/reports/{report_id}/resolve",
        json={"action": "ban", "reason": "x"},
        headers=env.who("root"),
    )
    assert r.status_code == 422
    r = await c.post(
        f"/api/admin/reports/{report_id}/resolve", json={"action": "dismiss"}, headers=env.who("root")
    )
    assert r.status_code == 422  # a reason is required
    r = await c.get("/api/admin/reports/99", headers=env.who("root"))
    assert (r.status_code, code(r)) == (404, "not_found")
    r = await c.post(
        f"/api/admin/reports/{report_id}/resolve",
        json={"action": "dismiss", "reason": "not abusive"},
        headers=env.who("root"),
    )
    assert r.json()["status"] == "dismissed" and r.json()["sanction_id"] is None
    assert [x.status for x in await env.repo.reports()] == ["dismissed"]
