"""The bot-event routes (server/web/api/botevents.py): an organizer enters bot accounts (only bot
accounts, only an organizer, malformed ids refused, nothing changed by a refusal), and the public
comparison of an event with duplicate rotations."""

from __future__ import annotations

import pytest

from server.domain.records import Account, AccountKind, Scope
from server.services.auth import hash_token, make_token
from tests.events.test_events_api import Env, code, env, organized, settings  # noqa: F401  (env: a fixture)

pytestmark = pytest.mark.asyncio


async def test_bot_accounts_are_entered_and_compared(env: Env) -> None:  # noqa: F811
    for i in range(4):
        token = make_token(f"b-{i}")
        bot = Account(
            f"b-{i}", f"bot{i}", AccountKind.BOT, frozenset({Scope.PLAY}), 0.0, token_hash=hash_token(token)
        )
        await env.w.repo.create_account(bot)
    r = await env.post("org", "/api/events", settings())
    assert code(r) == "forbidden"  # no organizer role yet
    await organized(env)
    r = await env.post("org", "/api/events", settings(rounds=4, duplicate="rotations"))
    assert r.status_code == 201, r.text
    event_id = r.json()["id"]
    path = f"/api/events/{event_id}"
    before = await env.state(event_id)
    for who, body, expected in (
        (None, {"account": "b-0"}, "unauthenticated"),
        ("ann", {"account": "b-0"}, "forbidden"),
        ("org", {"account": "a-bob"}, "invalid_request"),  # a player's account: players enter themselves
        ("org", {"account": "b-nobody"}, "not_found"),
        ("org", {"account": "b 0"}, "invalid_request"),
        ("org", {"account": "b-0", "extra": 1}, "invalid_request"),
    ):
        assert code(await env.post(who, f"{path}/bot-entrants", body)) == expected
    assert await env.state(event_id) == before
    for i in range(4):
        r = await env.post("org", f"{path}/bot-entrants", {"account": f"b-{i}", "reason": "invited"})
        assert r.status_code == 200 and r.json() == {
            "id": f"b-{i}",
            "name": f"bot{i}",
            "kind": "bot",
            "status": "entered",
        }
    again = await env.post("org", f"{path}/bot-entrants", {"account": "b-0"})
    assert again.status_code == 200 and len((await env.client.get(path)).json()["entrants"]) == 4
    assert (await env.client.get(f"{path}/comparison")).json() == {"sets": [], "entrants": []}
    assert code(await env.client.get("/api/events/ev-nothing/comparison")) == "not_found"
    r = await env.post("org", "/api/events", settings(rounds=3, duplicate="rotations"))
    assert code(r) == "invalid_request" and "cycles of 4" in r.text
