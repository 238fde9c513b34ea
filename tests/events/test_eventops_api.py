"""The organizers' newer actions over HTTP (server/web/api/eventops.py and the keys of
server/web/api/events.py): seat locks, start points, substitutes at a running table, the moves of a
game marked, the archive; each idempotent with its key, and every malformed or unauthorised
request a typed error that changes nothing."""

from __future__ import annotations

import asyncio
import io
import json
import zipfile
from typing import Any

import pytest

from server.hub.tables import LocalTable
from tests.events.test_events_api import Env, code, env, organized, settings

pytestmark = pytest.mark.asyncio
__all__ = ["env"]  # the fixture


async def seated(env: Env, **kw: object) -> str:
    r = await env.post("root", "/api/admin/organizers", {"name": "org", "reason": "runs the club"})
    r = await env.post("org", "/api/events", settings(rounds=1, duplicate="off", **kw))
    event_id = str(r.json()["id"])
    base = f"/api/events/{event_id}"
    await env.post("org", f"{base}/bots", {"count": 3})
    assert (await env.post("ann", f"{base}/entry")).status_code == 200
    assert (await env.post("org", f"{base}/seat", {"key": "r1"})).status_code == 200
    return base


async def test_refused_requests_change_nothing(env: Env) -> None:
    base = await seated(env)
    event_id = base.rsplit("/", 1)[1]
    before = await env.state(event_id)
    refused: list[tuple[str | None, str, dict[str, Any], str]] = [
        (None, "lock", {"table": 0, "seat": 0}, "unauthenticated"),
        ("ann", "lock", {"table": 0, "seat": 0}, "forbidden"),
        ("bob", "start-points", {"entrant": "a-ann", "points": 30000}, "forbidden"),
        ("org", "lock", {"table": 9, "seat": 0}, "not_found"),
        ("org", "lock", {"table": 0, "seat": 7}, "invalid_request"),
        ("org", "lock", {"table": 0}, "invalid_request"),
        ("org", "lock", {"table": 0, "seat": 0, "extra": 1}, "invalid_request"),
        ("org", "start-points", {"entrant": "a-ann", "points": 25050}, "malformed"),
        ("org", "start-points", {"entrant": "a-ann", "points": -100}, "invalid_request"),
        ("org", "start-points", {"entrant": "a-nobody", "points": 30000}, "not_found"),
        (
            "org",
            "substitute",
            {"table": 0, "seat": 0, "substitute": "bot:nosuch", "reason": "x"},
            "malformed",
        ),
        ("org", "substitute", {"table": 0, "seat": 0, "substitute": "a-bob"}, "invalid_request"),
        ("org", "adjust", {"entrant": "a-ann", "amount": 10}, "invalid_request"),  # no reason
        ("org", "notice", {"text": ""}, "invalid_request"),
        ("org", "finish-round", {}, "conflict"),  # not running
        ("org", "pause", {}, "conflict"),
    ]
    for who, action, body, want in refused:
        r = await env.post(who, f"{base}/{action}", body)
        assert code(r) == ("invalid_request" if want == "malformed" else want), (action, body, r.text)
    assert code(await env.client.get(f"{base}/export", headers=env.as_("ann"))) == "forbidden"
    assert code(await env.client.get(f"{base}/games/m-nope/moves", headers=env.as_("org"))) == "not_found"
    assert (
        code(await env.client.get(f"{base}/games/bad id/moves", headers=env.as_("org"))) == "invalid_request"
    )
    assert await env.state(event_id) == before


async def test_organizer_actions_are_idempotent_with_their_keys(env: Env) -> None:
    base = await seated(env)
    event_id = base.rsplit("/", 1)[1]
    actions: list[tuple[str, dict[str, Any]]] = [
        ("lock", {"table": 0, "seat": 1, "reason": "reserved", "key": "l1"}),
        ("unlock", {"table": 0, "seat": 1, "reason": "free", "key": "u1"}),
        ("start-points", {"entrant": "a-ann", "points": 30000, "reason": "seeded", "key": "p1"}),
        ("adjust", {"entrant": "a-ann", "amount": -20, "reason": "late", "key": "a1"}),
        ("notice", {"text": "Round 1 starts at eight", "key": "n1"}),
        ("substitute", {"table": 0, "seat": 0, "substitute": "bot:tsumogiri", "reason": "swap", "key": "s1"}),
    ]
    for action, body in actions:
        first = await env.post("org", f"{base}/{action}", body)
        assert first.status_code == 200, (action, first.text)
        state = await env.state(event_id)
        again = await env.post("org", f"{base}/{action}", body)
        assert again.status_code == 200, (action, again.text)
        assert await env.state(event_id) == state, action  # nothing changed, not even the log
    view = (await env.client.get(base)).json()
    ann = next(e for e in view["entrants"] if e["id"] == "a-ann")
    assert ann["start_points"] == 30000
    assert [n["text"] for n in view["notices"]] == ["Round 1 starts at eight"]
    table = view["rounds"][0]["tables"][0]
    assert table["locked"] == [] and len(table["stand_ins"]) == 1
    log = (await env.client.get(f"{base}/log", headers=env.as_("org"))).json()
    assert [a["action"] for a in log].count("adjust") == 1
    assert {a["key"] for a in log} >= {"l1", "u1", "p1", "a1", "n1", "s1"}


async def test_a_running_seat_substituted_locked_and_the_archive(env: Env) -> None:
    base = await seated(env)
    r = await env.post("org", f"{base}/start", {"key": "go"})
    assert r.status_code == 200, r.text
    table = r.json()["tables"][0]
    seat = table["entrants"].index("a-ann")
    match_id = table["match_id"]
    live = await env.w.hub.tables.find(match_id)
    assert isinstance(live, LocalTable)
    r = await env.post("org", f"{base}/lock", {"table": 0, "seat": seat, "reason": "review"})
    assert r.status_code == 200 and r.json()["tables"][0]["locked"] == [seat]
    assert seat in live.status().locked
    body = {"table": 0, "seat": seat, "substitute": "bot:greedy", "reason": "ann left"}
    assert code(await env.post("org", f"{base}/substitute", body)) == "conflict"  # locked
    await env.post("org", f"{base}/unlock", {"table": 0, "seat": seat})
    r = await env.post("org", f"{base}/substitute", body)
    assert r.status_code == 200, r.text
    stand_in = r.json()["tables"][0]["stand_ins"][0]
    assert stand_in["from_step"] is not None and stand_in["by"].startswith("bot:greedy:sub")
    await asyncio.wait_for(live.actor.ended.wait(), 60)
    moves = (await env.client.get(f"{base}/games/{match_id}/moves", headers=env.as_("org"))).json()
    assert [m for m in moves if m["substitute"]] and all(
        m["seat"] == seat and m["step"] > stand_in["from_step"] for m in moves if m["substitute"]
    )
    r = await env.post("org", f"{base}/finish-round", {"key": "f1"})
    assert r.status_code == 200
    assert (await env.post("org", f"{base}/finish-round", {"key": "f1"})).status_code == 200  # same key
    r = await env.client.get(f"{base}/export", headers=env.as_("org"))
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    z = zipfile.ZipFile(io.BytesIO(r.content))
    assert f"games/r1-t0-{match_id}.tenhou6.json" in z.namelist()
    assert f"games/r1-t0-{match_id}.mjai.jsonl" in z.namelist()
    assert json.loads(z.read(f"games/r1-t0-{match_id}.moves.json")) == moves


async def test_rank_limits_and_ranked_over_http(env: Env) -> None:
    await organized(env)
    r = await env.post("org", "/api/events", settings(min_dan=4, min_rating=1800, ranked=True))
    assert r.status_code == 201, r.text
    s = r.json()["settings"]
    assert (s["min_dan"], s["min_rating"], s["ranked"]) == (4, 1800.0, True)
    r = await env.post("ann", f"/api/events/{r.json()['id']}/entry")
    assert code(r) == "forbidden" and "4 dan or higher" in r.json()["error"]["message"]
    for bad in (settings(min_dan=0), settings(min_dan=11), settings(min_rating=-5), settings(ranked="yes")):
        assert code(await env.post("org", "/api/events", bad)) == "invalid_request"


async def test_adding_bots_settings_and_roles_again_change_nothing(env: Env) -> None:
    event_id = await organized(env)
    base = f"/api/events/{event_id}"
    first = await env.post("org", f"{base}/bots", {"count": 2, "key": "b1"})
    assert first.status_code == 200
    state = await env.state(event_id)
    again = await env.post("org", f"{base}/bots", {"count": 2, "key": "b1"})
    assert again.json() == first.json() and await env.state(event_id) == state
    assert code(await env.post("org", f"{base}/bots", {"bot": "nosuch"})) == "invalid_request"
    r = await env.client.put(f"{base}/settings", json=settings(), headers=env.as_("org"))
    assert r.status_code == 200 and await env.state(event_id) == state  # the same settings
    r = await env.post("root", "/api/admin/organizers", {"name": "org", "reason": "again"})
    assert r.status_code == 200
    log = (await env.client.get(f"{base}/log", headers=env.as_("org"))).json()
    assert [a["action"] for a in log] == ["create", "add_bot", "add_bot"]
    assert await env.state(event_id) == state
