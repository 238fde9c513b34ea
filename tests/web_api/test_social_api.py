"""Friends, blocks and mutes over HTTP (server/web/api/social.py, docs/social.md), on the in-memory
store; and what a block changes for chat, through the very service the hub checks chat against."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import argon2
import httpx
import pytest
import pytest_asyncio

from server.services.accounts import Accounts
from server.services.auth import Authenticator
from server.services.social import social_service
from server.social.chat import Role
from server.social.relations import Presence
from server.store.memory import InMemoryRepository
from server.web.api import ApiSettings, create_app

pytestmark = pytest.mark.asyncio
FAST = argon2.PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)  # tests only: cheap hashes


@dataclass
class Env:
    repo: InMemoryRepository
    client: httpx.AsyncClient
    tokens: dict[str, str]
    ids: dict[str, str]

    def who(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}

    async def relations(self, name: str) -> dict[str, list[tuple[str, str | None]]]:
        r = await self.client.get("/api/me/friends", headers=self.who(name))
        assert r.status_code == 200, r.text
        return {k: [(p["name"], p["presence"]) for p in v] for k, v in r.json().items()}


@pytest_asyncio.fixture
async def env() -> AsyncIterator[Env]:
    repo = InMemoryRepository()
    app = create_app(repo, ApiSettings())
    app.state.accounts = Accounts(repo, Authenticator(repo, session_ttl_s=3600), hasher=FAST)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        tokens, ids = {}, {}
        for name in ("alice", "bob", "carol"):
            r = await client.post("/api/accounts/register", json={"name": name, "password": "correct horse"})
            assert r.status_code == 201, r.text
            tokens[name], ids[name] = r.json()["session_token"], r.json()["account"]["id"]
        yield Env(repo, client, tokens, ids)


def code(r: httpx.Response) -> str:
    return str(r.json()["error"]["code"])


async def test_request_accept_and_remove(env: Env) -> None:
    c = env.client
    r = await c.post("/api/me/friends/requests", json={"name": "bob"}, headers=env.who("alice"))
    assert r.json() == {"account_id": env.ids["bob"], "state": "requested"}
    assert (await env.relations("alice"))["requests_sent"] == [("bob", None)]
    assert (await env.relations("bob"))["requests_received"] == [("alice", None)]
    r = await c.post(f"/api/me/friends/requests/{env.ids['alice']}/accept", headers=env.who("bob"))
    assert r.status_code == 204, r.text
    assert (await env.relations("alice"))["friends"] == [("bob", "offline")]  # not connected to a hub
    r = await c.post("/api/me/friends/requests", json={"name": "bob"}, headers=env.who("alice"))
    assert (r.status_code, code(r)) == (409, "conflict")  # already friends
    r = await c.delete(f"/api/me/friends/{env.ids['alice']}", headers=env.who("bob"))
    assert r.status_code == 204
    assert (await env.relations("alice"))["friends"] == []
    r = await c.post("/api/me/friends/requests", json={"name": "nobody"}, headers=env.who("alice"))
    assert (r.status_code, code(r)) == (404, "not_found")
    c.cookies.clear()  # the client kept the last registration's session cookie
    r = await c.get("/api/me/friends")
    assert (r.status_code, code(r)) == (401, "unauthenticated")


async def test_decline_is_silent_and_a_sender_may_withdraw(env: Env) -> None:
    c = env.client
    await c.post("/api/me/friends/requests", json={"name": "bob"}, headers=env.who("alice"))
    r = await c.delete(f"/api/me/friends/requests/{env.ids['alice']}", headers=env.who("bob"))
    assert r.status_code == 204
    assert await env.relations("alice") == await env.relations("bob")  # nothing left, nothing said
    await c.post("/api/me/friends/requests", json={"name": "carol"}, headers=env.who("alice"))
    r = await c.delete(f"/api/me/friends/requests/{env.ids['carol']}", headers=env.who("alice"))
    assert r.status_code == 204
    assert (await env.relations("carol"))["requests_received"] == []


async def test_a_block_hides_everything_and_does_not_reveal_itself(env: Env) -> None:
    c = env.client
    await c.post("/api/me/friends/requests", json={"name": "bob"}, headers=env.who("alice"))
    await c.post(f"/api/me/friends/requests/{env.ids['alice']}/accept", headers=env.who("bob"))
    r = await c.put(f"/api/me/blocks/{env.ids['alice']}", headers=env.who("bob"))
    assert r.status_code == 204
    assert (await env.relations("bob"))["blocked"] == [("alice", None)]
    assert await env.relations("alice") == {k: [] for k in await env.relations("alice")}  # no sign of it
    for asker, asked in (("alice", "bob"), ("bob", "alice")):
        r = await c.post("/api/me/friends/requests", json={"name": asked}, headers=env.who(asker))
        assert (r.status_code, code(r)) == (403, "forbidden")
    # the hub's chat checks the same service: alice's lines no longer reach bob
    service = social_service(env.repo, ApiSettings().clock)
    line = service.compose(
        env.ids["alice"], "alice", Role.SEATED, 0, source="private:X", hand_live=False, text="hi"
    )
    assert not service.reaches(line, env.ids["bob"], Role.SEATED)
    assert service.reaches(line, env.ids["carol"], Role.SEATED)
    r = await c.delete(f"/api/me/blocks/{env.ids['alice']}", headers=env.who("bob"))
    assert r.status_code == 204
    assert service.reaches(line, env.ids["bob"], Role.SEATED)
    r = await c.delete(f"/api/me/blocks/{env.ids['alice']}", headers=env.who("bob"))
    assert (r.status_code, code(r)) == (404, "not_found")


async def test_mutes(env: Env) -> None:
    c = env.client
    r = await c.put(f"/api/me/mutes/{env.ids['carol']}", headers=env.who("alice"))
    assert r.status_code == 204
    assert (await env.relations("alice"))["muted"] == [("carol", None)]
    service = social_service(env.repo, ApiSettings().clock)
    line = service.compose(
        env.ids["carol"], "carol", Role.SPECTATOR, None, source="ranked:x", hand_live=True, text="hi"
    )
    assert not service.reaches(line, env.ids["alice"], Role.SPECTATOR)
    r = await c.delete(f"/api/me/mutes/{env.ids['carol']}", headers=env.who("alice"))
    assert r.status_code == 204 and (await env.relations("alice"))["muted"] == []
    r = await c.put(f"/api/me/mutes/{env.ids['alice']}", headers=env.who("alice"))
    assert (r.status_code, code(r)) == (409, "conflict")
    assert r.json()["error"]["message"] == "you cannot mute yourself"  # what the browser shows
    r = await c.put("/api/me/mutes/p-nobody", headers=env.who("alice"))
    assert (r.status_code, code(r)) == (404, "not_found")
    assert (await env.relations("alice"))["muted"] == []  # neither refusal changed anything


async def test_presence_setting_and_a_friends_table(env: Env) -> None:
    from server.social.presence import Whereabouts, at_table

    service = social_service(env.repo, lambda: 0.0)
    where = {env.ids["bob"]: at_table("m-7", watchable=True)}
    service.whereabouts = lambda account_id: where.get(account_id, Whereabouts(Presence.OFFLINE))
    await env.client.post("/api/me/friends/requests", json={"name": "bob"}, headers=env.who("alice"))
    await env.client.post(f"/api/me/friends/requests/{env.ids['alice']}/accept", headers=env.who("bob"))
    r = await env.client.get("/api/me/friends", headers=env.who("alice"))
    friend = r.json()["friends"][0]
    assert (friend["presence"], friend["match_id"], friend["watching"]) == ("at_table", "m-7", False)

    r = await env.client.get("/api/me/social/settings", headers=env.who("bob"))
    assert r.status_code == 200 and r.json() == {"hide_presence": False}
    r = await env.client.put("/api/me/social/settings", json={"hide_presence": True}, headers=env.who("bob"))
    assert r.status_code == 200 and r.json() == {"hide_presence": True}
    assert await env.repo.hidden() == [env.ids["bob"]]  # stored
    friend = (await env.client.get("/api/me/friends", headers=env.who("alice"))).json()["friends"][0]
    assert (friend["presence"], friend["match_id"]) == ("offline", None)
    # bad input changes nothing
    r = await env.client.put(
        "/api/me/social/settings", json={"hide_presence": "x", "y": 1}, headers=env.who("bob")
    )
    assert r.status_code == 422
    assert (await env.client.get("/api/me/social/settings", headers=env.who("bob"))).json()["hide_presence"]
    env.client.cookies.clear()  # signed out: no cookie, no token
    r = await env.client.get("/api/me/social/settings")
    assert r.status_code == 401
