"""Ranked play over HTTP (docs/ranking.md): register, sign in, sign out, change password, rate limit,
a guest keeping its games, rooms, leaderboard and profile. In memory (the SQL side of the same port
is held to the same answers by tests/store/test_ratings.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import argon2
import httpx
import pytest
import pytest_asyncio

from client_protocol.messages import GuestAuth, SessionAuth
from server.domain.ranked import Board
from server.domain.reads import MatchQuery
from server.domain.records import AccountKind, MatchRecord, MatchStatus, ResultRecord, SeatRecord
from server.ranking import Length
from server.services.accounts import Accounts, SignInLimiter
from server.services.auth import Authenticator, AuthError
from server.services.ratings import RatingService
from server.store.memory import InMemoryRepository
from server.web.api import ApiSettings, create_app

pytestmark = pytest.mark.asyncio
FAST = argon2.PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)  # tests only: cheap hashes


@dataclass
class Env:
    repo: InMemoryRepository
    client: httpx.AsyncClient
    auth: Authenticator


@pytest_asyncio.fixture
async def env() -> AsyncIterator[Env]:
    repo = InMemoryRepository()
    app = create_app(repo, ApiSettings())
    auth = Authenticator(repo, session_ttl_s=3600)
    app.state.accounts = Accounts(
        repo, auth, hasher=FAST, limiter=SignInLimiter(per_account=3, per_address=5)
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield Env(repo, client, auth)


def code(r: httpx.Response) -> str:
    return str(r.json()["error"]["code"])


async def test_register_sign_in_out_and_change_password(env: Env) -> None:
    c = env.client
    r = await c.post("/api/accounts/register", json={"name": "alice", "password": "correct horse"})
    assert r.status_code == 201, r.text
    token = r.json()["session_token"]
    cookie = r.headers["set-cookie"]
    assert "jantaku_session=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "Secure" not in cookie  # plain HTTP here; over TLS it is Secure
    assert (await env.auth.authenticate(SessionAuth(session_token=token))).account.name == "alice"
    stored = await env.repo.password_hash(r.json()["account"]["id"])
    assert stored is not None and stored.startswith("$argon2id$") and "correct horse" not in stored

    me = await c.get("/api/accounts/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200 and me.json()["account"]["name"] == "alice"
    assert me.json()["standings"][0]["rank"] == "new"
    entry = {r["queue"]: r["may_enter"] for r in me.json()["rooms"]}
    assert entry["ranked:open:east"] is True and entry["ranked:upper:east"] is False
    assert entry["ranked:ladder:east"] is False

    # taken name, bad name, short password: typed errors, nothing made
    r = await c.post("/api/accounts/register", json={"name": "alice", "password": "another one"})
    assert r.status_code == 409 and code(r) == "name_taken"
    for bad in ({"name": "al ice", "password": "long enough"}, {"name": "bob", "password": "short"}):
        r = await c.post("/api/accounts/register", json=bad)
        assert r.status_code == 422 and code(r) == "invalid_request"
    assert await env.repo.account_by_name("bob") is None

    r = await c.post("/api/accounts/signin", json={"name": "alice", "password": "correct horse"})
    assert r.status_code == 200
    second = r.json()["session_token"]
    # sign out with the cookie: that session ends, and replaying it is refused
    c.cookies.set("jantaku_session", second)
    assert (await c.post("/api/accounts/signout")).status_code == 204
    c.cookies.clear()
    with pytest.raises(AuthError):
        await env.auth.authenticate(SessionAuth(session_token=second))
    r = await c.get("/api/accounts/me", headers={"Authorization": f"Bearer {second}"})
    assert r.status_code == 401 and code(r) == "unauthenticated"

    # change password: the old one stops working, every old session ends
    bearer = {"Authorization": f"Bearer {token}"}
    r = await c.post(
        "/api/accounts/password",
        json={"old_password": "wrong", "new_password": "battery staple"},
        headers=bearer,
    )
    assert r.status_code == 401
    r = await c.post(
        "/api/accounts/password",
        json={"old_password": "correct horse", "new_password": "battery staple"},
        headers=bearer,
    )
    assert r.status_code == 200
    assert (await c.get("/api/accounts/me", headers=bearer)).status_code == 401
    r = await c.post("/api/accounts/signin", json={"name": "alice", "password": "correct horse"})
    assert r.status_code == 401
    r = await c.post("/api/accounts/signin", json={"name": "alice", "password": "battery staple"})
    assert r.status_code == 200


async def test_sign_in_is_rate_limited_per_account_and_address(env: Env) -> None:
    c = env.client
    await c.post("/api/accounts/register", json={"name": "carol", "password": "carol's password"})
    for _ in range(3):
        r = await c.post("/api/accounts/signin", json={"name": "carol", "password": "nope nope"})
        assert r.status_code == 401
    r = await c.post("/api/accounts/signin", json={"name": "carol", "password": "carol's password"})
    assert (
        r.status_code == 429 and code(r) == "rate_limited" and "try again in" in r.json()["error"]["message"]
    )
    # the address: 5 failures in all, whatever the names
    for name in ("x1", "x2"):
        assert (await c.post("/api/accounts/signin", json={"name": name, "password": "p"})).status_code == 401
    r = await c.post("/api/accounts/signin", json={"name": "x3", "password": "p"})
    assert r.status_code == 429


async def test_a_guest_registers_and_keeps_its_games(env: Env) -> None:
    guest = await env.auth.authenticate(GuestAuth(name="visitor"))
    gid = guest.account.id
    await env.repo.create_match(
        MatchRecord(
            id="m-g",
            ruleset_json="{}",
            ruleset_hash="0" * 64,
            seed_commitment="0" * 64,
            engine_version="1",
            wall_algorithm="t",
            seats=(SeatRecord(0, "visitor", AccountKind.GUEST, gid),),
            status=MatchStatus.COMPLETED,
            created_at=1.0,
        )
    )
    r = await env.client.post(
        "/api/accounts/register",
        json={"name": "dave", "password": "dave's password", "guest_session": guest.session_token},
    )
    assert r.status_code == 201, r.text
    assert r.json()["account"] == {"id": gid, "name": "dave", "kind": "player"}
    page = await env.repo.find_matches(MatchQuery(account_id=gid))
    assert [li.match.id for li in page.listings] == ["m-g"]
    # a player's session is no guest's: refused, nothing changed
    r = await env.client.post(
        "/api/accounts/register",
        json={"name": "erin", "password": "erin's password", "guest_session": r.json()["session_token"]},
    )
    assert r.status_code == 422 and await env.repo.account_by_name("erin") is None


async def test_rooms_leaderboard_and_profile(env: Env) -> None:
    c = env.client
    ids = []
    for name in ("p1", "p2", "p3", "p4"):
        r = await c.post("/api/accounts/register", json={"name": name, "password": "password!"})
        ids.append(r.json()["account"]["id"])
    await env.repo.create_match(
        MatchRecord(
            id="m-r",
            ruleset_json="{}",
            ruleset_hash="0" * 64,
            seed_commitment="0" * 64,
            engine_version="1",
            wall_algorithm="t",
            seats=tuple(SeatRecord(i, f"p{i + 1}", AccountKind.PLAYER, a) for i, a in enumerate(ids)),
            status=MatchStatus.RUNNING,
            created_at=1.0,
            source="ranked:open:east",
        )
    )
    await RatingService(env.repo).record_result(
        ResultRecord("m-r", (40000, 30000, 20000, 10000), (1, 2, 3, 4), (0.0,) * 4)
    )
    assert (await env.repo.standing(ids[0], Board.RANKED, Length.EAST)).games == 1

    rooms = (await c.get("/api/rooms")).json()
    assert {r["queue"] for r in rooms} >= {
        "ranked:open:east",
        "ranked:expert:east_south",
        "ranked:ladder:east",
    }
    board = (await c.get("/api/leaderboard", params={"room": "open", "length": "east"})).json()
    assert board["total"] == 4 and board["entries"][0]["name"] == "p1"
    assert board["entries"][0]["standing"]["rank"] == "9k"
    r = await c.get("/api/leaderboard", params={"room": "nope"})
    assert r.status_code == 404
    prof = (await c.get("/api/players/p4")).json()
    east = next(s for s in prof["standings"] if s["length"] == "east")
    assert east["placements"] == [0, 0, 0, 1] and east["rating"] == pytest.approx(1470)
    assert [h["match_id"] for h in prof["history"]["east"]] == ["m-r"]
    assert prof["stats"]["east"]["matches"] == 1 and prof["stats"]["east"]["hands"] == 0  # no log here
    assert prof["stats"]["east"]["win_rate"] is None
    assert "password" not in str(prof) and "id" not in prof
    assert (await c.get("/api/players/nobody")).status_code == 404


async def test_the_browser_client_on_the_hubs_port_may_call_the_ranked_routes(env: Env) -> None:
    """Same host, another port (the hub serves the page): CORS allowed; another host: not."""
    own = {"Origin": "http://testserver:8765"}
    r = await env.client.options(
        "/api/accounts/signin", headers={**own, "Access-Control-Request-Method": "POST"}
    )
    assert r.status_code == 204 and r.headers["access-control-allow-origin"] == own["Origin"]
    r = await env.client.get("/api/rooms", headers=own)
    assert r.headers["access-control-allow-origin"] == own["Origin"]
    r = await env.client.get("/api/rooms", headers={"Origin": "http://evil.test"})
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers
    r = await env.client.get("/api/me", headers=own)  # the review API: no CORS
    assert "access-control-allow-origin" not in r.headers


async def test_the_profile_has_riichi_and_call_rates_from_the_log(env: Env) -> None:
    from server.domain.playcounts import play_counts
    from server.engine import events as ev
    from tests.store.games import for_match, played

    c = env.client
    ids = []
    for name in ("q1", "q2", "q3", "q4"):
        r = await c.post("/api/accounts/register", json={"name": name, "password": "password!"})
        ids.append(r.json()["account"]["id"])
    records, events = played()
    await env.repo.create_match(
        MatchRecord(
            id="m-l",
            ruleset_json="{}",
            ruleset_hash="0" * 64,
            seed_commitment="0" * 64,
            engine_version="1",
            wall_algorithm="t",
            seats=tuple(SeatRecord(i, f"q{i + 1}", AccountKind.PLAYER, a) for i, a in enumerate(ids)),
            status=MatchStatus.RUNNING,
            created_at=1.0,
            source="ranked:open:east",
        )
    )
    for step in for_match(records, "m-l"):
        await env.repo.append_step(step)
    end = next(e for e in events if isinstance(e, ev.MatchEnded))
    await RatingService(env.repo).record_result(ResultRecord("m-l", end.scores, end.ranks, end.final_points))
    expected = play_counts(events)
    for seat, counts in enumerate(expected):
        stats = (await c.get(f"/api/players/q{seat + 1}")).json()["stats"]["east"]
        assert stats["hands"] == counts.hands > 0
        assert stats["riichi_rate"] == round(counts.riichi / counts.hands, 4)
        assert stats["call_rate"] == round(counts.calls / counts.hands, 4)
    assert any(s.riichi for s in expected)  # (self-play never calls: tests/domain/test_playcounts.py does)
