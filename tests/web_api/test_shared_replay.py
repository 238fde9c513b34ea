"""Who may read a finished game's log through a shared link (``GET /api/games/{id}/replay``,
docs/ranking.md "Who may read a game's log"): anyone, without a token, when the game's table
allowed spectators; its players and admins only when it refused them (or was stored without its
settings); nobody while it is played. Every test runs on each store."""

from __future__ import annotations

import pytest

from server.services.review import Access, GameNotFoundError, Review
from tests.web_api.conftest import Api
from tests.web_api.test_api import error_code, latest_audit

pytestmark = pytest.mark.asyncio

PATH = "/api/games/{}/replay"


async def test_a_stranger_reads_the_log_of_a_finished_game_its_table_let_spectators_watch(api: Api) -> None:
    admin_view = (await api.get("/api/admin/games/m-bots/replay", "admin")).json()
    for who in (None, "carol", "alice", "not-a.token", "mallory"):  # no token, strangers, stale tokens
        r = await api.get(PATH.format("m-bots"), who)
        assert r.status_code == 200, (who, r.text)
        body = r.json()
        assert body["game"]["id"] == "m-bots"
        assert body["steps"] == admin_view["steps"]  # every step, every hand open
        assert any(e.get("type") == "round_started" for s in body["steps"] for e in s["events"])


async def test_a_public_read_writes_no_audit_entry_a_players_read_does(api: Api) -> None:
    before = [e.id for e in await latest_audit(api, 3)]
    assert (await api.get(PATH.format("m-bots"))).status_code == 200
    assert (await api.get(PATH.format("m-bots"), "carol")).status_code == 200
    assert [e.id for e in await latest_audit(api, 3)] == before
    assert (await api.get(PATH.format("m-humans"), "bob")).status_code == 200
    entry = (await latest_audit(api))[0]
    assert (entry.action, entry.match_id, entry.actor_id) == (
        "game.replay",
        "m-humans",
        api.data.accounts["bob"].id,
    )
    assert entry.detail == {"as": "player", "outcome": "ok"}


@pytest.mark.parametrize(
    ("who", "game", "status"),
    [
        (None, "m-live", 404),  # running: watched live, never read
        ("carol", "m-live", 404),
        ("alice", "m-live", 404),  # even by its players
        ("admin", "m-live", 404),
        (None, "m-humans", 404),  # its table refused spectators
        ("carol", "m-humans", 404),
        ("bob", "m-humans", 200),  # ... but its players and admins read it
        ("admin", "m-humans", 200),
        (None, "m-mixed", 404),  # stored without its table's settings: private
        ("alice", "m-mixed", 200),
        ("robo", "m-mixed", 200),
        (None, "m-nope", 404),
    ],
)
async def test_who_reads_which_log(api: Api, who: str | None, game: str, status: int) -> None:
    r = await api.get(PATH.format(game), who)
    assert r.status_code == status, r.text
    if status == 404:
        assert error_code(r) == "not_found"
        # the same answer whatever the reason: a refusal says nothing about the game
        assert r.json()["error"]["message"] == f"no finished game {game!r} that you may see"
        assert "round_started" not in r.text and "steps" not in r.json()


async def test_the_service_says_why_a_reader_may_read(api: Api) -> None:
    review = Review(api.repo)
    alice = api.data.accounts["alice"].id
    assert await review.reader_access("m-bots", account_id=None) is Access.PUBLIC
    assert await review.reader_access("m-mixed", account_id=alice) is Access.PLAYER
    assert await review.reader_access("m-humans", account_id=None, admin=True) is Access.ADMIN
    for game, account in (("m-live", alice), ("m-humans", None), ("m-live", None)):
        with pytest.raises(GameNotFoundError):
            await review.reader_access(game, account_id=account)
    with pytest.raises(GameNotFoundError):  # an admin reads a live game's header only, not here
        await review.reader_access("m-live", account_id=None, admin=True)
