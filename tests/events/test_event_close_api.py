"""An organizer checks an entrant in (``POST /api/events/{id}/entrants/{entrant}/checkin``) and
closes an event before its last round (``POST /api/events/{id}/close``) over HTTP, on a real hub:
idempotent with a key, every malformed or unauthorised request a typed error that changes nothing;
the closed event's view, standings and revealed seeds (server/web/api/eventops.py)."""

from __future__ import annotations

import asyncio

import pytest

from server.app.compose import event_store
from server.engine.rules import Ruleset
from server.hub.tables import LocalTable
from server.services.eventcheck import rebuild_check
from server.tournament.duplicate import PublishedSet, check_reveal
from tests.events.test_events_api import Env, code, env, settings

pytestmark = pytest.mark.asyncio
__all__ = ["env"]  # the fixture


async def created(env: Env, **kw: object) -> str:
    r = await env.post("root", "/api/admin/organizers", {"name": "org", "reason": "runs the club"})
    assert r.status_code == 200, r.text
    r = await env.post("org", "/api/events", settings(**kw))
    assert r.status_code == 201, r.text
    return f"/api/events/{r.json()['id']}"


async def test_an_organizer_checks_an_entrant_in_and_out(env: Env) -> None:
    base = await created(env, checkin=True, duplicate="off")
    event_id = base.rsplit("/", 1)[1]
    assert (await env.post("ann", f"{base}/entry")).status_code == 200
    await env.post("org", f"{base}/bots", {"count": 1})
    before = await env.state(event_id)
    for who, entrant, body, want in (
        (None, "a-ann", {}, "unauthenticated"),
        ("bob", "a-ann", {}, "forbidden"),
        ("ann", "a-ann", {}, "forbidden"),  # the entrant's own is POST .../checkin
        ("org", "a-nobody", {}, "not_found"),
        ("org", "a-bob", {}, "not_found"),  # not entered
        ("org", "bot:greedy:1", {}, "conflict"),  # bots need no check-in
        ("org", "a-ann", {"checked_in": "yes"}, "invalid_request"),
        ("org", "a-ann", {"extra": 1}, "invalid_request"),
        ("org", "bad id!", {}, "invalid_request"),
    ):
        r = await env.post(who, f"{base}/entrants/{entrant}/checkin", body)
        assert code(r) == want, (who, entrant, body, r.text)
    assert await env.state(event_id) == before
    body = {"reason": "phoned in", "key": "c1"}
    r = await env.post("org", f"{base}/entrants/a-ann/checkin", body)
    assert r.status_code == 200, r.text
    assert r.json() == {
        "id": "a-ann",
        "name": "ann",
        "kind": "player",
        "status": "entered",
        "checked_in": [1],
    }
    state = await env.state(event_id)
    assert (await env.post("org", f"{base}/entrants/a-ann/checkin", body)).json()["checked_in"] == [1]
    assert await env.state(event_id) == state  # the same key: nothing changed, not even the log
    r = await env.post("org", f"{base}/entrants/a-ann/checkin", {"checked_in": False, "reason": "left"})
    assert r.status_code == 200 and r.json()["checked_in"] == []
    view = (await env.client.get(base)).json()
    assert next(e for e in view["entrants"] if e["id"] == "a-ann")["checked_in"] == []
    log = (await env.client.get(f"{base}/log", headers=env.as_("org"))).json()
    assert [
        (a["action"], a["detail"], a["reason"]) for a in log if a["action"] == "checkin_by_organizer"
    ] == [
        ("checkin_by_organizer", {"entrant": "a-ann", "round": 1, "checked_in": True}, "phoned in"),
        ("checkin_by_organizer", {"entrant": "a-ann", "round": 1, "checked_in": False}, "left"),
    ]
    plain = await created(env, duplicate="off")
    assert (await env.post("ann", f"{plain}/entry")).status_code == 200
    assert code(await env.post("org", f"{plain}/entrants/a-ann/checkin")) == "conflict"  # no check-in


async def _play_round(env: Env, base: str, key: str) -> None:
    r = await env.post("org", f"{base}/seat", {"key": key})
    assert r.status_code == 200, r.text
    r = await env.post("org", f"{base}/start", {"key": key})
    assert r.status_code == 200, r.text
    for t in r.json()["tables"]:
        live = await env.w.hub.tables.find(t["match_id"])
        assert isinstance(live, LocalTable)
        await asyncio.wait_for(live.actor.ended.wait(), 60)
    r = await env.post("org", f"{base}/finish-round", {"key": key})
    assert r.status_code == 200, r.text


async def test_closing_an_event_before_its_last_round(env: Env) -> None:
    base = await created(env, rounds=3, duplicate="round")
    event_id = base.rsplit("/", 1)[1]
    await env.post("org", f"{base}/bots", {"count": 4})
    await _play_round(env, base, "r1")
    assert (await env.post("org", f"{base}/seat", {"key": "r2"})).status_code == 200
    assert (await env.post("org", f"{base}/start", {"key": "r2"})).status_code == 200
    before = await env.state(event_id)
    r = await env.post("org", f"{base}/close", {"reason": "venue closes", "key": "c"})
    assert code(r) == "conflict" and "running" in r.json()["error"]["message"]
    assert await env.state(event_id) == before
    for t in (await env.client.get(base)).json()["rounds"][1]["tables"]:
        live = await env.w.hub.tables.find(t["match_id"])
        assert isinstance(live, LocalTable)
        await asyncio.wait_for(live.actor.ended.wait(), 60)
    assert (await env.post("org", f"{base}/finish-round", {"key": "r2"})).status_code == 200
    assert (await env.post("org", f"{base}/seat", {"key": "r3"})).status_code == 200
    standings = (await env.client.get(f"{base}/standings")).json()
    before = await env.state(event_id)
    for who, body, want in (
        (None, {"reason": "x"}, "unauthenticated"),
        ("ann", {"reason": "x"}, "forbidden"),
        ("org", {}, "invalid_request"),  # a reason is required
        ("org", {"reason": " "}, "invalid_request"),
        ("org", {"reason": "x", "extra": 1}, "invalid_request"),
    ):
        r = await env.post(who, f"{base}/close", body)
        assert code(r) == want, (who, body, r.text)
    assert code(await env.post("org", "/api/events/ev-nope/close", {"reason": "x"})) == "not_found"
    assert await env.state(event_id) == before
    r = await env.post("org", f"{base}/close", {"reason": "venue closes", "key": "c"})
    assert r.status_code == 200, r.text
    closed = r.json()
    assert closed | {"at": 0} == {
        "id": event_id,
        "at": 0,
        "status": "finished",
        "rounds_played": 2,
        "dropped_round": 3,
    }
    state = await env.state(event_id)
    again = await env.post("org", f"{base}/close", {"reason": "venue closes", "key": "c"})
    assert again.status_code == 200 and again.json() == closed
    assert await env.state(event_id) == state
    assert code(await env.post("org", f"{base}/close", {"reason": "again"})) == "conflict"
    assert code(await env.post("org", f"{base}/seat", {"key": "r3b"})) == "conflict"
    view = (await env.client.get(base)).json()
    assert view["status"] == "finished" and view["closed"] == {k: closed[k] for k in closed if k != "id"}
    assert [r["number"] for r in view["rounds"]] == [1, 2]
    ruleset = Ruleset.from_dict(view["settings"]["ruleset"])
    for rnd in view["rounds"]:
        for s in rnd["sets"]:
            published = PublishedSet(
                s["set_id"], tuple(s["tables"]), s["seed_commitment"], tuple(s["wall_commitments"])
            )
            assert check_reveal(published, bytes.fromhex(s["seed_hex"]), ruleset) == []
    assert (await env.client.get(f"{base}/standings")).json() == standings
    assert (
        await rebuild_check(env.w.service, event_store(env.w.repo), env.w.service_results(), event_id) == []
    )
    listed = (await env.client.get("/api/events")).json()
    assert [e["status"] for e in listed if e["id"] == event_id] == ["finished"]
    fresh = await created(env)
    assert (await env.client.get(fresh)).json()["closed"] is None
