"""The events HTTP API (server/web/api/events.py) on a real hub: every action, who may do it, and
every malformed or unauthorised request answered with a typed error that changes nothing."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import pytest_asyncio

from server.domain.records import Account, AccountKind, Scope
from server.hub.tables import LocalTable
from server.services.auth import hash_token, make_token
from server.services.social import SocialService
from server.social.moderation import SanctionKind
from server.web.api import ApiSettings, create_app
from server.web.static import static_response
from tests.events.kit import World
from tests.hub.helpers import EAST

pytestmark = pytest.mark.asyncio


@dataclass
class Env:
    w: World
    client: httpx.AsyncClient
    tokens: dict[str, str]

    def as_(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}

    async def post(self, who: str | None, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        headers = self.as_(who) if who else {}
        return await self.client.post(path, json=body if body is not None else {}, headers=headers)

    async def state(self, event_id: str) -> tuple[Any, ...]:
        """Everything an action could change (to check that a refused one changed nothing)."""
        store = self.w.service._store
        return (
            await store.event(event_id),
            await store.entrants(event_id),
            await store.rounds(event_id),
            await store.adjustments(event_id),
            len(await store.audit(event_id)),
        )


@pytest_asyncio.fixture
async def env() -> AsyncIterator[Env]:
    w = World()
    tokens: dict[str, str] = {}
    for name, admin in (("root", True), ("org", False), ("ann", False), ("bob", False)):
        token = make_token(f"a-{name}")
        scopes = frozenset({Scope.ADMIN}) if admin else frozenset({Scope.PLAY})
        await w.repo.create_account(
            Account(f"a-{name}", name, AccountKind.PLAYER, scopes, 0.0, token_hash=hash_token(token))
        )
        tokens[name] = token
    app = create_app(w.repo, ApiSettings(events=w.service))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield Env(w, client, tokens)


def code(r: httpx.Response) -> str:
    return str(r.json()["error"]["code"])


SETTINGS: dict[str, Any] = {"name": "Bot night", "ruleset_json": None, "rounds": 2, "duplicate": "round"}


def settings(**kw: Any) -> dict[str, Any]:
    return SETTINGS | {"ruleset_json": EAST.to_dict()} | kw


async def organized(env: Env) -> str:
    r = await env.post("root", "/api/admin/organizers", {"name": "org", "reason": "runs the club"})
    assert r.status_code == 200, r.text
    r = await env.post("org", "/api/events", settings())
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


async def test_roles_and_creation(env: Env) -> None:
    assert code(await env.post(None, "/api/events", settings())) == "unauthenticated"
    assert code(await env.post("org", "/api/events", settings())) == "forbidden"  # no role yet
    r = await env.post("ann", "/api/admin/organizers", {"name": "org", "reason": ""})
    assert r.status_code == 403 and code(r) == "forbidden"
    assert code(await env.post("root", "/api/admin/organizers", {"name": "nobody"})) == "not_found"
    assert (await env.client.get("/api/events")).json() == []  # nothing was made
    event_id = await organized(env)
    # malformed settings: typed errors, nothing created
    for bad in (
        settings(rounds=0),
        settings(name=""),
        settings(formula="best_consecutive"),  # needs best_n
        settings(ruleset_json=None, ruleset="no-such-preset"),
        settings(extra_field=1),
        settings(ruleset_json={"seats": 7}),
    ):
        r = await env.post("org", "/api/events", bad)
        assert r.status_code == 422 and code(r) == "invalid_request", (bad, r.text)
    r = await env.client.post("/api/events", content=b"{not json", headers=env.as_("org"))
    assert code(r) == "invalid_request"
    listed = (await env.client.get("/api/events")).json()
    assert [e["id"] for e in listed] == [event_id]
    shown = (await env.client.get(f"/api/events/{event_id}")).json()
    assert shown["name"] == "Bot night" and shown["organizers"] == ["a-org"]
    assert "secret" not in str(shown)
    assert code(await env.client.get("/api/events/ev-missing")) == "not_found"
    assert code(await env.client.get("/api/events/not-an-id")) == "invalid_request"
    # settings change before the first round; co-organizers; the log is the organizers'
    r = await env.client.put(
        f"/api/events/{event_id}/settings", json=settings(name="Bot night II"), headers=env.as_("ann")
    )
    assert code(r) == "forbidden"
    r = await env.client.put(
        f"/api/events/{event_id}/settings", json=settings(name="Bot night II"), headers=env.as_("org")
    )
    assert r.status_code == 200 and r.json()["name"] == "Bot night II"
    r = await env.post("org", f"/api/events/{event_id}/organizers", {"account": "a-bob", "reason": "helps"})
    assert r.json()["organizers"] == ["a-org", "a-bob"]
    assert code(await env.client.get(f"/api/events/{event_id}/log", headers=env.as_("ann"))) == "forbidden"
    log = (await env.client.get(f"/api/events/{event_id}/log", headers=env.as_("bob"))).json()
    assert [a["action"] for a in log] == ["create", "settings", "add_organizer"]


async def test_entry_withdraw_and_check_in(env: Env) -> None:
    event_id = await organized(env)
    assert code(await env.post(None, f"/api/events/{event_id}/entry")) == "unauthenticated"
    r = await env.post("ann", f"/api/events/{event_id}/entry")
    assert r.status_code == 200 and r.json()["status"] == "entered"
    r = await env.post("ann", f"/api/events/{event_id}/checkin")
    assert r.json()["checked_in"] == [1]
    assert code(await env.post("bob", f"/api/events/{event_id}/withdraw")) == "not_found"
    r = await env.post("ann", f"/api/events/{event_id}/withdraw")
    assert r.status_code == 200
    entrants = (await env.client.get(f"/api/events/{event_id}")).json()["entrants"]
    assert [(e["id"], e["status"]) for e in entrants] == [("a-ann", "withdrawn")]


async def test_a_round_run_over_http(env: Env) -> None:
    event_id = await organized(env)
    base = f"/api/events/{event_id}"
    assert code(await env.post("ann", f"{base}/bots", {"count": 8})) == "forbidden"
    r = await env.post("org", f"{base}/bots", {"count": 8, "reason": "fill"})
    assert r.status_code == 200 and len(r.json()) == 8
    before = await env.state(event_id)
    for who, path, body, expected in (
        ("ann", "seat", {}, "forbidden"),
        ("org", "start", {}, "conflict"),  # nothing seated
        ("org", "seat", {"script": "bot:greedy:1,bot:greedy:1"}, "conflict"),
        ("org", "seat", {"bogus": 1}, "invalid_request"),
        ("org", "adjust", {"entrant": "bot:greedy:1", "amount": 5, "reason": " "}, "invalid_request"),
        ("org", "adjust", {"entrant": "nobody", "amount": 5, "reason": "x"}, "not_found"),
        ("org", "pause", {}, "conflict"),  # no round running
        ("org", "finish-round", {}, "conflict"),
        ("org", "notice", {"text": ""}, "invalid_request"),
        (None, "notice", {"text": "hello"}, "unauthenticated"),
    ):
        r = await env.post(who, f"{base}/{path}", body)
        assert code(r) == expected, (path, body, r.text)
    assert await env.state(event_id) == before  # nothing changed
    r = await env.post("org", f"{base}/seat", {"key": "seat-1"})
    assert r.status_code == 200 and r.json()["status"] == "seated"
    assert (await env.post("org", f"{base}/seat", {"key": "seat-1"})).json() == r.json()  # idempotent
    r = await env.post("org", f"{base}/start", {"key": "start-1"})
    assert r.status_code == 200 and r.json()["status"] == "running"
    tables = r.json()["tables"]
    assert len(tables) == 2 and all(t["match_id"] for t in tables)
    r = await env.post("org", f"{base}/pause", {"table": 0, "reason": "a dispute"})
    assert r.status_code == 200
    live = await env.w.hub.tables.find(tables[0]["match_id"])
    assert isinstance(live, LocalTable)
    assert live.status().paused or live.status().finished
    assert (await env.post("org", f"{base}/resume", {"table": 0})).status_code == 200
    assert not live.status().paused
    assert code(await env.post("org", f"{base}/tables/9/end", {"reason": "x"})) == "not_found"
    assert code(await env.post("org", f"{base}/tables/0/end", {"reason": ""})) == "invalid_request"
    r = await env.post("org", f"{base}/adjust", {"entrant": "bot:greedy:1", "amount": -50, "reason": "slow"})
    assert r.status_code == 200
    assert (await env.post("org", f"{base}/notice", {"text": "Round 2 at nine"})).status_code == 200
    for t in tables:
        found = await env.w.hub.tables.find(t["match_id"])
        if isinstance(found, LocalTable):
            await found.actor.ended.wait()
    r = await env.post("org", f"{base}/finish-round", {"reason": "all done"})
    assert r.status_code == 200 and r.json()["sets"][0]["seed_hex"]
    rows = (await env.client.get(f"{base}/standings")).json()
    assert len(rows) == 8 and [row["rank"] for row in rows] == sorted(row["rank"] for row in rows)
    assert sum(row["adjustments"] for row in rows) == -50
    r = await env.client.get(f"{base}/standings", params={"format": "csv"})
    assert r.headers["content-type"].startswith("text/csv")
    parsed = list(csv.reader(io.StringIO(r.text)))
    assert parsed[0][:3] == ["rank", "name", "total"] and len(parsed) == 9
    assert [p[1] for p in parsed[1:]] == [row["name"] for row in rows]
    assert code(await env.client.get(f"{base}/standings", params={"format": "xml"})) == "invalid_request"
    shown = (await env.client.get(base)).json()
    assert shown["notices"][0]["text"] == "Round 2 at nine"
    assert shown["rounds"][0]["status"] == "finished"
    log = (await env.client.get(f"{base}/log", headers=env.as_("org"))).json()
    actions = [a["action"] for a in log]
    assert actions[-6:] == ["start", "pause", "unpause", "adjust", "notice", "finish_round"]
    assert log[-1]["reason"] == "all done"


async def test_the_browser_page_may_call_the_api_from_the_game_port(env: Env) -> None:
    page = static_response("/static/events.html")
    assert page is not None and page[0] == 200
    script = static_response("/static/js/events.js")
    assert script is not None and script[0] == 200
    origin = {"Origin": "http://testserver:8765"}  # the game port of the same host
    r = await env.client.get("/api/events", headers=origin)
    assert r.headers["access-control-allow-origin"] == "http://testserver:8765"
    r = await env.client.get("/api/events", headers={"Origin": "http://elsewhere.example"})
    assert "access-control-allow-origin" not in r.headers


async def test_scripted_seating_substitutes_and_drops_over_http(env: Env) -> None:
    r = await env.post("root", "/api/admin/organizers", {"name": "org", "reason": "club"})
    r = await env.post("org", "/api/events", settings(seating="scripted", duplicate="off"))
    base = f"/api/events/{r.json()['id']}"
    await env.post("org", f"{base}/bots", {"count": 4})
    for who in ("ann", "bob"):
        assert (await env.post(who, f"{base}/entry")).status_code == 200
    r = await env.post("org", f"{base}/seat", {})
    assert code(r) == "conflict" and "scripted" in r.json()["error"]["message"]
    r = await env.post("org", f"{base}/drop", {"entrant": "a-bob", "reason": ""})
    assert code(r) == "invalid_request"
    assert (
        await env.post("org", f"{base}/drop", {"entrant": "a-bob", "reason": "no-show"})
    ).status_code == 200
    script = "# table 1, in seat order\nbot:greedy:1,bot:greedy:2,a-ann,bot:greedy:3\n"
    r = await env.post("org", f"{base}/seat", {"script": script})
    assert code(r) == "conflict" and "bot:greedy:4" in r.json()["error"]["message"]  # not seated
    await env.post("org", f"{base}/drop", {"entrant": "bot:greedy:4", "reason": "four make one table"})
    r = await env.post("org", f"{base}/seat", {"script": script})
    assert r.status_code == 200 and r.json()["tables"][0]["entrants"][2] == "a-ann"
    r = await env.post("org", f"{base}/substitute", {"table": 0, "seat": 2, "substitute": "bot:greedy"})
    assert code(r) == "invalid_request"  # a substitution needs a reason
    body = {"table": 0, "seat": 2, "substitute": "bot:greedy", "reason": "ann is ill"}
    r = await env.post("org", f"{base}/substitute", body)
    assert r.status_code == 200
    table = r.json()["tables"][0]
    assert table["entrants"][2] == "a-ann" and table["substitutes"] == [2]
    assert table["stand_ins"][0]["by"].startswith("bot:greedy:sub")


async def test_the_organizer_role_is_listed_with_its_log(env: Env) -> None:
    """GET /api/admin/organizers (the admin page's): who holds the role, and every grant and
    revocation with who made it and why; administrators only."""
    assert code(await env.client.get("/api/admin/organizers")) == "unauthenticated"
    r = await env.client.get("/api/admin/organizers", headers=env.as_("org"))
    assert r.status_code == 403 and code(r) == "forbidden"
    empty = (await env.client.get("/api/admin/organizers", headers=env.as_("root"))).json()
    assert empty == {"organizers": [], "log": []}
    await env.post("root", "/api/admin/organizers", {"name": "org", "reason": "runs the club"})
    await env.post("root", "/api/admin/organizers", {"name": "ann", "reason": "helps"})
    await env.post("root", "/api/admin/organizers", {"name": "ann", "granted": False, "reason": "moved away"})
    shown = (await env.client.get("/api/admin/organizers", headers=env.as_("root"))).json()
    assert [(o["account"], o["name"]) for o in shown["organizers"]] == [("a-org", "org")]
    assert [(e["name"], e["granted"], e["reason"], e["actor"]) for e in shown["log"]] == [
        ("org", True, "runs the club", "a-root"),
        ("ann", True, "helps", "a-root"),
        ("ann", False, "moved away", "a-root"),
    ]


async def test_a_suspended_player_is_refused_with_a_typed_error_and_shown_to_organizers(env: Env) -> None:
    """A moderator's suspension (given as ``jantaku admin moderation suspend`` does): entry and
    check-in answer 403 ``suspended`` and change nothing; the organizers' view of the event marks
    the entrant, the public view does not say."""
    event_id = await organized(env)
    base = f"/api/events/{event_id}"
    assert (await env.post("bob", f"{base}/entry")).status_code == 200
    social = SocialService(time.time, store=env.w.repo)
    for who in ("a-ann", "a-bob"):
        await social.sanction(who, SanctionKind.SUSPENSION, "abuse", given_by="a-root", minutes=None)
    before = await env.state(event_id)
    for who, path in (("ann", "entry"), ("bob", "checkin")):
        r = await env.post(who, f"{base}/{path}")
        assert r.status_code == 403 and code(r) == "suspended", r.text
        assert "suspended until lifted" in r.json()["error"]["message"]
    assert await env.state(event_id) == before
    public = (await env.client.get(base)).json()["entrants"]
    assert [e["id"] for e in public] == ["a-bob"] and "suspended" not in public[0]
    assert "suspended" not in (await env.client.get(base, headers=env.as_("ann"))).json()["entrants"][0]
    shown = (await env.client.get(base, headers=env.as_("org"))).json()["entrants"]
    assert [(e["id"], e["suspended"]) for e in shown] == [("a-bob", True)]
    await social.lift(social.sanctions("a-bob")[0].id, by="a-root")
    shown = (await env.client.get(base, headers=env.as_("root"))).json()["entrants"]
    assert [(e["id"], e["suspended"]) for e in shown] == [("a-bob", False)]
    assert (await env.post("bob", f"{base}/checkin")).json()["checked_in"] == [1]
