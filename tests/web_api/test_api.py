"""The review API, route by route: authorization (anonymous, player, bot, guest session, admin,
revoked tokens), the audit log, live-game protection, exports equal to ``server.records``, filters
and typed errors. Every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import secrets
import urllib.parse
from typing import Any

import httpx
import pytest

from server.domain.records import AccountKind, SessionRecord
from server.engine import events as ev
from server.engine.rules import preset
from server.engine.wall import make_salt
from server.records.export import export_match
from server.services.admins import create_admin
from server.services.auth import Authenticator, hash_token, make_token
from tests.web_api.conftest import Api
from tests.web_api.seed import T0, walk

pytestmark = pytest.mark.asyncio

FINISHED = ("mixed", "bots", "humans", "aborted")
ADMIN_GAME_ROUTES = ("", "/replay", "/walls", "/export?format=tenhou6", "/export?format=mjai", "/viewer")
ADMIN_ROUTES = (
    "/api/admin/games",
    "/api/admin/audit",
    *(f"/api/admin/games/m-mixed{r}" for r in ADMIN_GAME_ROUTES),
)
ME_ROUTES = (
    "/api/me",
    "/api/me/games",
    "/api/me/games/m-mixed",
    "/api/me/games/m-mixed/replay",
    "/api/me/games/m-mixed/export?format=tenhou6",
    "/api/me/games/m-mixed/export?format=mjai",
    "/api/me/games/m-mixed/viewer",
)


def get_security(item: dict[str, Any]) -> Any:
    return item["get"].get("security")


def error_code(r: httpx.Response) -> str:
    body = r.json()
    assert set(body) == {"error"}, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    code: str = body["error"]["code"]
    return code


async def ids(api: Api, who: str = "admin", path: str = "/api/admin/games", **params: Any) -> list[str]:
    r = await api.get(path, who, **params)
    assert r.status_code == 200, r.text
    return [g["id"] for g in r.json()["games"]]


async def latest_audit(api: Api, n: int = 1) -> list[Any]:
    return list(await api.repo.audit_entries(limit=n))


async def session_token(api: Api, account_id: str) -> str:
    token = make_token(f"s-{secrets.token_hex(8)}")
    await api.repo.create_session(
        SessionRecord(
            id=token.split(".")[0],
            token_hash=hash_token(token),
            account_id=account_id,
            created_at=T0,
            expires_at=4_000_000_000.0,
        )
    )
    return token


# -- authorization --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ADMIN_ROUTES + ME_ROUTES)
async def test_anonymous_and_bad_tokens_get_401(api: Api, path: str) -> None:
    for headers in (
        {},
        {"Authorization": "Bearer nonsense"},
        {"Authorization": "Bearer p-nobody.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": f"Bearer {api.data.tokens['alice']}x"},
    ):
        r = await api.client.get(path, headers=headers)
        assert r.status_code == 401, (path, headers, r.text)
        assert error_code(r) == "unauthenticated"
        assert r.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("path", ADMIN_ROUTES + ME_ROUTES)
@pytest.mark.parametrize("who", ["mallory", "ex_admin"])
async def test_revoked_tokens_get_401(api: Api, path: str, who: str) -> None:
    r = await api.get(path, who)
    assert r.status_code == 401
    assert error_code(r) == "unauthenticated"
    # Answered exactly as an unknown token: nobody learns that the account exists (or existed).
    unknown = await api.client.get(path, headers={"Authorization": f"Bearer {api.data.tokens[who]}x"})
    assert (r.status_code, r.headers.get("www-authenticate"), r.json()) == (
        unknown.status_code,
        unknown.headers.get("www-authenticate"),
        unknown.json(),
    )
    assert "revoked" not in r.text


@pytest.mark.parametrize("path", ADMIN_ROUTES)
@pytest.mark.parametrize("who", ["alice", "robo", "carol"])
async def test_players_and_bots_cannot_use_admin_routes(api: Api, path: str, who: str) -> None:
    r = await api.get(path, who)
    assert r.status_code == 403
    assert error_code(r) == "forbidden"


async def test_a_guest_session_token_is_not_an_admin(api: Api) -> None:
    token = await session_token(api, "g-guest1")
    r = await api.get("/api/admin/games", token)
    assert r.status_code == 403
    r = await api.get("/api/me", token)
    assert r.json()["kind"] == "guest"


@pytest.mark.parametrize("path", ADMIN_ROUTES)
async def test_admin_reads_every_admin_route(api: Api, path: str) -> None:
    r = await api.get(path, "admin")
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"


async def test_revoking_an_admin_stops_its_token_at_once(api: Api) -> None:
    admin, token = await create_admin(api.repo, "temp-admin")
    session = await session_token(api, admin.id)
    assert (await api.get("/api/admin/games", token)).status_code == 200
    assert (await api.get("/api/admin/games", session)).status_code == 200
    await Authenticator(api.repo, session_ttl_s=60).revoke("temp-admin")
    for credential in (token, session):
        r = await api.get("/api/admin/games/m-mixed", credential)
        assert r.status_code == 401
        assert error_code(r) == "unauthenticated"


async def test_whoami(api: Api) -> None:
    me = (await api.get("/api/me", "admin")).json()
    assert me == {
        "id": api.data.accounts["admin"].id,
        "name": "root",
        "kind": "player",
        "scopes": ["admin"],
        "admin": True,
    }
    bot = (await api.get("/api/me", "robo")).json()
    assert (bot["kind"], bot["admin"], bot["scopes"]) == ("bot", False, ["play"])


# -- listing and search ---------------------------------------------------------------------------------


async def test_list_is_newest_first_with_standings_and_seats(api: Api) -> None:
    r = await api.get("/api/admin/games", "admin")
    body = r.json()
    assert [g["id"] for g in body["games"]] == ["m-aborted", "m-live", "m-humans", "m-bots", "m-mixed"]
    assert (body["total"], body["limit"], body["offset"]) == (5, 50, 0)
    by_id = {g["id"]: g for g in body["games"]}
    mixed = by_id["m-mixed"]
    last = api.data.events["m-mixed"][-1]
    assert isinstance(last, ev.MatchEnded)
    assert [(s["seat"], s["rank"], s["score"]) for s in mixed["standings"]] == sorted(
        ((seat, last.ranks[seat], last.scores[seat]) for seat in range(4)), key=lambda x: x[1]
    )
    assert [s["is_bot"] for s in mixed["seats"]] == [False, True, True, True]
    assert mixed["ruleset"] == "tenhou" and mixed["status"] == "completed" and not mixed["live"]
    live = by_id["m-live"]
    assert live["live"] and live["status"] == "running" and live["standings"] == []
    assert by_id["m-aborted"]["status_reason"] == "table failed"


async def test_filters(api: Api) -> None:
    alice = api.data.accounts["alice"].id
    assert await ids(api, status="running") == ["m-live"]
    assert await ids(api, status="completed") == ["m-humans", "m-bots", "m-mixed"]
    assert await ids(api, status="finished") == ["m-aborted", "m-humans", "m-bots", "m-mixed"]
    assert await ids(api, status="aborted") == ["m-aborted"]
    assert await ids(api, player="alice") == ["m-aborted", "m-live", "m-humans", "m-mixed"]
    assert await ids(api, player=alice) == ["m-aborted", "m-live", "m-humans", "m-mixed"]
    assert await ids(api, player="robo") == ["m-mixed"]
    assert await ids(api, player="greedy-0") == ["m-bots"]
    assert await ids(api, player="ali") == []  # exact names only; q searches
    assert await ids(api, ruleset="ema") == ["m-bots"]
    assert await ids(api, ruleset="mahjongsoul") == ["m-humans"]
    tenhou_east = preset("tenhou").with_options(game_length="east")
    assert await ids(api, ruleset=tenhou_east.hash) == ["m-aborted", "m-live", "m-mixed"]
    assert await ids(api, ruleset=tenhou_east.hash.upper()) == ["m-aborted", "m-live", "m-mixed"]
    assert await ids(api, ruleset="nope") == []
    assert await ids(api, lineup="humans") == ["m-humans"]
    assert await ids(api, lineup="bots") == ["m-bots"]
    assert await ids(api, lineup="mixed") == ["m-aborted", "m-live", "m-mixed"]
    assert await ids(api, lineup="with_bots") == ["m-aborted", "m-live", "m-bots", "m-mixed"]
    assert await ids(api, lineup="with_humans") == ["m-aborted", "m-live", "m-humans", "m-mixed"]
    assert await ids(api, since="2023-11-14T23:00:00Z", until="2023-11-15T01:00:00Z") == [
        "m-humans",
        "m-bots",
    ]
    assert await ids(api, since="2023-11-15T00:13:20+00:00") == ["m-aborted", "m-live", "m-humans"]
    assert await ids(api, until="2023-11-14T23:13:20Z") == ["m-mixed"]  # until is exclusive
    assert await ids(api, since="2023-11-15T09:00:00+09:00") == ["m-aborted", "m-live", "m-humans"]
    assert await ids(api, status="finished", player="alice", lineup="mixed") == ["m-aborted", "m-mixed"]
    assert await ids(api, since="2023-11-15t00:00:00z", until="2023-11-15 01:00:00+00:00") == ["m-humans"]
    assert await ids(api, since=T0 + 3600, until=T0 + 7200) == ["m-bots"]  # unix seconds
    assert await ids(api, since="1e30") == []  # beyond any representable time: clamped, not an error
    assert await ids(api, until="-1e30") == []
    assert len(await ids(api, since="0001-01-01T00:00:00+05:00", until="9999-12-31T23:59:59-05:00")) == 5


async def test_the_seats_filter(api: Api) -> None:
    # Every game of the fixture has four seats (the store's own test has three-player games too).
    assert await ids(api, seats=4) == ["m-aborted", "m-live", "m-humans", "m-bots", "m-mixed"]
    assert await ids(api, seats=3) == []
    r = await api.get("/api/admin/games", "admin", seats=5)
    assert r.status_code == 422 and error_code(r) == "invalid_request"


async def test_search_by_player_name(api: Api) -> None:
    assert await ids(api, q="ROB") == ["m-mixed"]  # case-insensitive
    assert await ids(api, q="lic") == ["m-aborted", "m-live", "m-humans", "m-mixed"]
    assert await ids(api, q="greedy-0") == ["m-bots"]
    assert await ids(api, q="üm") == ["m-humans"]  # beyond ASCII too
    assert await ids(api, q="ÜMIT") == ["m-humans"]
    assert await ids(api, q="%") == []  # LIKE wildcards are literal
    assert await ids(api, q="_") == []
    assert await ids(api, q="greedy_") == []
    assert await ids(api, q="") == ["m-aborted", "m-live", "m-humans", "m-bots", "m-mixed"]


async def test_paging(api: Api) -> None:
    first = (await api.get("/api/admin/games", "admin", limit=2)).json()
    second = (await api.get("/api/admin/games", "admin", limit=2, offset=2)).json()
    third = (await api.get("/api/admin/games", "admin", limit=2, offset=4)).json()
    assert [g["id"] for g in first["games"] + second["games"] + third["games"]] == [
        "m-aborted",
        "m-live",
        "m-humans",
        "m-bots",
        "m-mixed",
    ]
    assert first["total"] == second["total"] == third["total"] == 5
    assert (await api.get("/api/admin/games", "admin", offset=100)).json()["games"] == []


@pytest.mark.parametrize(
    ("params", "where"),
    [
        ({"status": "bogus"}, "status"),
        ({"lineup": "aliens"}, "lineup"),
        ({"limit": 0}, "limit"),
        ({"limit": 501}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"offset": -1}, "offset"),
        ({"offset": 10**12}, "offset"),
        ({"since": "yesterday"}, "since"),
        ({"until": "2023-13-45T00:00:00Z"}, "until"),
        ({"until": "2023-11-15"}, "until"),  # a date is not a time
        ({"since": "2023-11-15T01:00:00"}, "since"),  # a time without its zone
        ({"since": " 40"}, "since"),
        ({"since": "0x10"}, "since"),
        ({"since": "nan"}, "since"),
        ({"until": "inf"}, "until"),
        ({"q": "a\x00b"}, "q"),
        ({"q": "x" * 65}, "q"),
        ({"player": "\x1b[31m"}, "player"),
    ],
)
async def test_bad_list_parameters_are_typed_422(api: Api, params: dict[str, Any], where: str) -> None:
    r = await api.get("/api/admin/games", "admin", **params)
    assert r.status_code == 422, r.text
    assert error_code(r) == "invalid_request"
    assert where in r.json()["error"]["message"]


# -- one game -------------------------------------------------------------------------------------------


async def test_detail_of_a_finished_game(api: Api) -> None:
    r = await api.get("/api/admin/games/m-mixed", "admin")
    assert r.status_code == 200
    game = r.json()
    events = api.data.events["m-mixed"]
    started = [e for e in events if isinstance(e, ev.RoundStarted)]
    wins = [e for e in events if isinstance(e, ev.HandWon)]
    ended = events[-1]
    assert isinstance(ended, ev.MatchEnded)
    assert game["seed"] == ended.seed
    assert game["steps"] == len(await api.repo.steps("m-mixed"))
    assert [h["hand_index"] for h in game["hands"]] == [e.hand_index for e in started]
    assert game["hands"][0]["label"] == "East 1"
    got_wins = [w for h in game["hands"] for w in h["wins"]]
    assert len(got_wins) == len(wins) > 0
    for got, want in zip(got_wins, wins, strict=True):
        assert (got["seat"], got["from_seat"], got["han"], got["fu"], got["points"]) == (
            want.seat,
            want.from_seat,
            want.han,
            want.fu,
            want.points,
        )
        assert [(y["name"], y["han"]) for y in got["yaku"]] == [(y.name, y.han) for y in want.yaku]
        assert got["deltas"] == list(want.deltas)
        assert got["tsumo"] == (want.seat == want.from_seat)
        assert len(got["hand"]) == len(want.hand)
    for hand in game["hands"]:
        assert hand["outcome"] in ("won", "drawn")
        assert hand["scores_after"] is not None and sum(hand["deltas"]) >= 0
    assert [s["final_points"] for s in sorted(game["standings"], key=lambda s: s["seat"])] == list(
        ended.final_points
    )
    # alice (seat 0, a human) had decisions made by the server; the bots never "time out"
    steps = await api.repo.steps("m-mixed")
    expected = [s.step for s in steps if s.seat == 0 and s.request_id is None]
    assert [a["step"] for a in game["auto_played"]] == expected and expected
    assert all(a["seat"] == 0 and a["name"] == "alice" for a in game["auto_played"])
    # ... each saying why (the stored source), counted per seat and per hand
    by_step = {s.step: s.source for s in steps}
    assert [a["source"] for a in game["auto_played"]] == [by_step[n] for n in expected]
    timeouts = sum(1 for n in expected if by_step[n] == "timeout")
    disconnects = sum(1 for n in expected if by_step[n] == "disconnected")
    assert timeouts and disconnects and timeouts + disconnects == len(expected)
    assert game["auto_by_seat"] == [
        {
            "seat": 0,
            "name": "alice",
            "timeouts": timeouts,
            "disconnects": disconnects,
            "total": len(expected),
        },
        *(
            {"seat": i, "name": n, "timeouts": 0, "disconnects": 0, "total": 0}
            for i, n in [(1, "robo"), (2, "greedy-2"), (3, "greedy-3")]
        ),
    ]
    assert [
        sum(h["timeouts"][0] for h in game["hands"]),
        sum(h["disconnects"][0] for h in game["hands"]),
    ] == [
        timeouts,
        disconnects,
    ]
    assert all(h["timeouts"][1:] == [0, 0, 0] == h["disconnects"][1:] for h in game["hands"])


async def test_detail_counts_server_played_steps_stored_before_their_source(api: Api) -> None:
    """Rows from before migration 0003 (no source): still listed and in the total, reason unknown."""
    game = (await api.get("/api/admin/games/m-humans", "admin")).json()
    steps = await api.repo.steps("m-humans")
    assert all(s.source is None for s in steps)
    expected = [s.step for s in steps if s.seat is not None and s.request_id is None]
    assert [a["step"] for a in game["auto_played"]] == expected and expected
    assert all(a["source"] is None for a in game["auto_played"])
    totals = {c["seat"]: (c["timeouts"], c["disconnects"], c["total"]) for c in game["auto_by_seat"]}
    assert totals == {seat: (0, 0, sum(1 for n in expected if steps[n].seat == seat)) for seat in range(4)}


async def test_detail_of_an_aborted_game_shows_the_unfinished_hand(api: Api) -> None:
    game = (await api.get("/api/admin/games/m-aborted", "admin")).json()
    assert game["status"] == "aborted" and game["seed"] is None and game["standings"] == []
    assert [h["outcome"] is not None for h in game["hands"]] == [True, False]


async def test_replay_has_every_step_and_event(api: Api) -> None:
    for label in FINISHED:
        game_id = api.game(label)
        r = await api.get(f"/api/admin/games/{game_id}/replay", "admin")
        assert r.status_code == 200
        replay = r.json()
        stored = await api.repo.steps(game_id)
        assert [s["step"] for s in replay["steps"]] == [s.step for s in stored]
        assert [s["events"] for s in replay["steps"]] == [json.loads(json.dumps(s.events)) for s in stored]
        assert [s["action"] for s in replay["steps"]] == [s.action for s in stored]
        assert [s["source"] for s in replay["steps"]] == [s.source for s in stored]
        deal = replay["steps"][0]["events"][1]
        assert deal["type"] == "round_started" and all(len(h) == 13 for h in deal["hands"])  # all hands


async def test_walls_verify(api: Api) -> None:
    for label in ("mixed", "bots", "humans"):
        report = (await api.get(f"/api/admin/games/{api.game(label)}/walls", "admin")).json()
        assert report["all_ok"] and report["seed_ok"] is True
        assert report["hands"] and all(
            h["revealed"] and h["commitment_ok"] and h["from_seed"] and h["deal_ok"] and h["ok"]
            for h in report["hands"]
        )
        assert all(len(h["wall"]) == 136 for h in report["hands"])
    aborted = (await api.get("/api/admin/games/m-aborted/walls", "admin")).json()
    assert aborted["seed"] is None and aborted["seed_ok"] is None
    first, second = aborted["hands"]
    assert first["ok"] and first["from_seed"] is None and first["deal_ok"]
    assert not second["revealed"] and second["wall"] is None and not second["ok"]
    assert aborted["all_ok"]  # every revealed wall verified


@pytest.mark.parametrize("fmt", ["tenhou6", "mjai"])
async def test_exports_equal_server_records(api: Api, fmt: str) -> None:
    for label in FINISHED:
        game_id = api.game(label)
        want = export_match(api.data.events[game_id], fmt, names=api.data.names[game_id])
        r = await api.get(f"/api/admin/games/{game_id}/export", "admin", format=fmt)
        assert r.status_code == 200
        assert r.text == want
        assert r.headers["content-type"].startswith(
            "application/json" if fmt == "tenhou6" else "application/x-ndjson"
        )
        assert "content-disposition" not in r.headers
    r = await api.get("/api/admin/games/m-bots/export", "admin", format=fmt, download="true")
    suffix = ".json" if fmt == "tenhou6" else ".jsonl"
    assert r.headers["content-disposition"] == f'attachment; filename="m-bots{suffix}"'


async def test_viewer_links_open_each_hand_in_tenhou6(api: Api) -> None:
    links = (await api.get("/api/admin/games/m-mixed/viewer", "admin")).json()["links"]
    doc = json.loads(export_match(api.data.events["m-mixed"], "tenhou6", names=api.data.names["m-mixed"]))
    assert len(links) == len(doc["log"])
    for link, hand in zip(links, doc["log"], strict=True):
        prefix = "https://tenhou.net/6/#json="
        assert link["url"].startswith(prefix)
        one = json.loads(urllib.parse.unquote(link["url"][len(prefix) :]))
        assert one["log"] == [hand] and one["name"] == doc["name"] and "ruleset" not in one
    assert links[0]["label"] == "East 1"


@pytest.mark.parametrize("suffix", ["", "/replay", "/walls", "/export?format=mjai", "/viewer"])
async def test_unknown_game_is_404(api: Api, suffix: str) -> None:
    r = await api.get(f"/api/admin/games/m-nope{suffix}", "admin")
    assert r.status_code == 404
    assert error_code(r) == "not_found"


@pytest.mark.parametrize("bad", ["a b", "x" * 65, "m-1;DROP", "%00", "é"])
async def test_malformed_game_ids_are_422(api: Api, bad: str) -> None:
    r = await api.client.get(f"/api/admin/games/{urllib.parse.quote(bad)}", headers=api.headers("admin"))
    assert r.status_code == 422
    assert error_code(r) == "invalid_request"


async def test_unknown_query_parameters_are_422(api: Api) -> None:
    r = await api.get("/api/admin/games", "admin", stauts="running")
    assert r.status_code == 422 and error_code(r) == "invalid_request"
    assert "stauts" in r.json()["error"]["message"]
    r = await api.get("/api/admin/games/m-mixed", "admin", format="mjai")
    assert r.status_code == 422
    r = await api.get("/api/admin/games", None, stauts="running")
    assert r.status_code == 401  # authentication first
    r = await api.client.get("/api/admin/games?status=running&status=completed", headers=api.headers("admin"))
    assert r.status_code == 422 and "more than once" in r.json()["error"]["message"]


async def test_missing_export_format_is_422(api: Api) -> None:
    for path in ("/api/admin/games/m-mixed/export", "/api/admin/games/m-mixed/export?format=xml"):
        r = await api.client.get(path, headers=api.headers("admin"))
        assert r.status_code == 422 and error_code(r) == "invalid_request"


# -- live games -----------------------------------------------------------------------------------------


async def test_live_game_detail_is_its_public_header_only(api: Api) -> None:
    game = (await api.get("/api/admin/games/m-live", "admin")).json()
    assert game["live"] and game["status"] == "running"
    assert game["hands"] == [] and game["auto_played"] == [] and game["steps"] == 0 and game["seed"] is None
    assert game["standings"] == []


@pytest.mark.parametrize(
    "suffix", ["/replay", "/walls", "/export?format=tenhou6", "/export?format=mjai", "/viewer"]
)
async def test_live_game_hidden_information_is_refused_to_admins(api: Api, suffix: str) -> None:
    r = await api.get(f"/api/admin/games/m-live{suffix}", "admin")
    assert r.status_code == 409
    assert error_code(r) == "game_live"
    entry = (await latest_audit(api))[0]
    assert entry.match_id == "m-live" and entry.detail["outcome"] == "refused_live"


async def test_no_route_ever_shows_a_live_secret(api: Api) -> None:
    """The live match's seed (stored for crash recovery) and its current hand's salt, dealt hands
    and wall never appear in any answer, to anybody."""
    secret_seed = api.data.live_seed_hex
    seed = bytes.fromhex(secret_seed)
    stored = await api.repo.steps("m-live")
    deals = [e for s in stored for e in s.events if e.get("type") == "round_started"]
    current = deals[-1]
    secrets = {secret_seed, make_salt(seed, current["hand_index"]).hex()}
    hidden_hands = [" ".join(h) for h in current["hands"]]
    tokens = [None, "alice", "bob", "robo", "admin", "carol"]
    paths = [
        *(f"/api/admin/games/m-live{r}" for r in ADMIN_GAME_ROUTES),
        *(
            f"/api/me/games/m-live{r}"
            for r in ("", "/replay", "/export?format=tenhou6", "/export?format=mjai", "/viewer")
        ),
        "/api/games/m-live/replay",
        "/api/admin/games",
        "/api/admin/games?status=running",
        "/api/me/games",
        "/api/admin/audit",
    ]
    for who in tokens:
        for path in paths:
            r = await api.client.get(path, headers=api.headers(who))
            assert r.status_code in (200, 401, 403, 404, 409), (who, path, r.status_code)
            for secret in secrets:
                assert secret not in r.text, (who, path)
            if r.headers["content-type"].startswith("application/json"):
                strings = walk(r.json())
                joined = " ".join(strings)
                assert "round_started" not in joined and "tile_drawn" not in joined, (who, path)
                for hand in hidden_hands:
                    assert hand not in joined


# -- one's own games ------------------------------------------------------------------------------------


async def test_players_list_their_own_finished_games(api: Api) -> None:
    assert await ids(api, "alice", "/api/me/games") == ["m-aborted", "m-humans", "m-mixed"]  # not m-live
    assert await ids(api, "bob", "/api/me/games") == ["m-humans"]
    assert await ids(api, "robo", "/api/me/games") == ["m-mixed"]
    assert await ids(api, "carol", "/api/me/games") == []
    assert await ids(api, "admin", "/api/me/games") == []
    assert await ids(api, "alice", "/api/me/games", q="üm") == ["m-humans"]
    assert await ids(api, "alice", "/api/me/games", since="2023-11-15T00:00:00Z") == ["m-aborted", "m-humans"]
    guest = await session_token(api, "g-guest1")
    assert await ids(api, guest, "/api/me/games") == ["m-humans"]


@pytest.mark.parametrize(
    ("who", "game", "status"),
    [
        ("alice", "m-mixed", 200),
        ("alice", "m-aborted", 200),
        ("alice", "m-humans", 200),
        ("alice", "m-bots", 404),  # not hers
        ("alice", "m-live", 404),  # hers, but live
        ("bob", "m-live", 404),
        ("bob", "m-humans", 200),
        ("bob", "m-mixed", 404),
        ("robo", "m-mixed", 200),
        ("robo", "m-humans", 404),
        ("admin", "m-mixed", 404),  # an admin uses /api/admin
        ("carol", "m-nope", 404),
    ],
)
async def test_own_game_access(api: Api, who: str, game: str, status: int) -> None:
    for suffix in ("", "/replay", "/export?format=tenhou6", "/export?format=mjai", "/viewer"):
        r = await api.get(f"/api/me/games/{game}{suffix}", who)
        assert r.status_code == status, (suffix, r.text)
        if status == 404:
            assert error_code(r) == "not_found"


@pytest.mark.parametrize("fmt", ["tenhou6", "mjai"])
async def test_own_exports_equal_server_records(api: Api, fmt: str) -> None:
    for who, label in (("alice", "mixed"), ("robo", "mixed"), ("bob", "humans"), ("alice", "aborted")):
        game_id = api.game(label)
        r = await api.get(f"/api/me/games/{game_id}/export", who, format=fmt)
        assert r.text == export_match(api.data.events[game_id], fmt, names=api.data.names[game_id])
        entry = (await latest_audit(api))[0]
        assert (entry.action, entry.match_id, entry.actor_id) == (
            "game.export",
            game_id,
            api.data.accounts[who].id,
        )
        assert entry.detail == {"as": "player", "format": fmt, "outcome": "ok"}


async def test_own_game_detail_matches_the_admin_view(api: Api) -> None:
    mine = (await api.get("/api/me/games/m-humans", "bob")).json()
    admin = (await api.get("/api/admin/games/m-humans", "admin")).json()
    assert mine == admin


async def test_own_replay_is_the_admin_replay_every_hand_open(api: Api) -> None:
    """A finished game hides nothing: the player's replay is the omniscient one, audited as theirs."""
    admin = (await api.get("/api/admin/games/m-humans/replay", "admin")).json()
    mine = (await api.get("/api/me/games/m-humans/replay", "bob")).json()
    assert mine == admin
    deals = [e for s in mine["steps"] for e in s["events"] if e["type"] == "round_started"]
    assert deals and all(h is not None for d in deals for h in d["hands"])
    entry = (await latest_audit(api))[0]
    assert (entry.action, entry.match_id, entry.actor_id) == (
        "game.replay",
        "m-humans",
        api.data.accounts["bob"].id,
    )
    assert entry.detail == {"as": "player", "outcome": "ok"}


# -- the audit log --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "action", "detail"),
    [
        ("", "game.read", {}),
        ("/replay", "game.replay", {}),
        ("/walls", "game.verify", {}),
        ("/export?format=tenhou6", "game.export", {"format": "tenhou6"}),
        ("/export?format=mjai", "game.export", {"format": "mjai"}),
        ("/viewer", "game.export", {"format": "tenhou6-viewer"}),
    ],
)
async def test_every_admin_read_of_a_game_is_audited(
    api: Api, suffix: str, action: str, detail: dict[str, str]
) -> None:
    admin = api.data.accounts["admin"]
    before = max((e.id or 0 for e in await latest_audit(api)), default=0)  # none yet, when run first
    for label in FINISHED:
        r = await api.get(f"/api/admin/games/{api.game(label)}{suffix}", "admin")
        assert r.status_code == 200
        entry = (await latest_audit(api))[0]
        assert entry.id is not None and entry.id > before
        assert (entry.action, entry.match_id, entry.actor, entry.actor_id) == (
            action,
            api.game(label),
            "root",
            admin.id,
        )
        assert entry.detail == {**detail, "outcome": "ok"}
        before = entry.id
    await api.get(f"/api/admin/games/m-ghost{suffix}", "admin")
    entry = (await latest_audit(api))[0]
    assert entry.match_id == "m-ghost" and entry.detail["outcome"] == "not_found"


async def test_listings_are_audited_with_their_filters(api: Api) -> None:
    await api.get("/api/admin/games", "admin", q="rob", status="finished", since="2023-01-01T00:00:00Z")
    entry = (await latest_audit(api))[0]
    assert entry.action == "games.list" and entry.match_id is None
    assert entry.detail == {
        "status": "finished",
        "q": "rob",
        "since": "2023-01-01T00:00:00+00:00",
        "limit": 50,
        "offset": 0,
        "outcome": "ok",
    }


async def test_refused_requests_write_no_audit_entry(api: Api) -> None:
    before = [e.id for e in await latest_audit(api, 5)]
    for who in (None, "alice", "mallory"):
        await api.get("/api/admin/games/m-mixed/replay", who)
    assert [e.id for e in await latest_audit(api, 5)] == before


async def test_audit_route_lists_entries(api: Api) -> None:
    await api.get("/api/admin/games/m-bots/walls", "admin")
    log = (await api.get("/api/admin/audit", "admin", game_id="m-bots", limit=5)).json()["entries"]
    assert log and all(e["match_id"] == "m-bots" for e in log)
    assert log[0]["action"] == "game.verify" and log[0]["actor"] == "root"
    admin = api.data.accounts["admin"].id
    mine = (await api.get("/api/admin/audit", "admin", actor_id=admin)).json()["entries"]
    assert mine and all(e["actor_id"] == admin for e in mine)


async def test_nothing_is_served_when_the_audit_entry_cannot_be_written(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*args: Any, **kwargs: Any) -> int:
        raise api.db.failure()  # the database fails, as this store reports it

    monkeypatch.setattr(api.repo, "record_audit", broken)
    for suffix in ADMIN_GAME_ROUTES:
        r = await api.get(f"/api/admin/games/m-mixed{suffix}", "admin")
        assert r.status_code == 503, suffix
        assert error_code(r) == "unavailable"
        assert "m-mixed" not in r.text and "round_started" not in r.text


# -- the rest -------------------------------------------------------------------------------------------


async def test_unknown_routes_and_methods_are_typed_errors(api: Api) -> None:
    r = await api.get("/api/nothing-here", "admin")
    assert r.status_code == 404 and error_code(r) == "not_found"
    r = await api.client.post("/api/admin/games", headers=api.headers("admin"))
    assert r.status_code == 405 and error_code(r) == "method_not_allowed"
    r = await api.client.delete("/api/admin/games/m-mixed", headers=api.headers("admin"))
    assert r.status_code == 405


async def test_openapi_document(api: Api) -> None:
    r = await api.client.get("/api/openapi.json")
    assert r.status_code == 200
    doc = r.json()
    assert doc["openapi"].startswith("3.")
    review = {
        "/api/me",
        "/api/me/games",
        "/api/me/games/{game_id}",
        "/api/me/games/{game_id}/replay",
        "/api/me/games/{game_id}/export",
        "/api/me/games/{game_id}/viewer",
        "/api/games/{game_id}/replay",  # a token is optional: tests/web_api/test_shared_replay.py
        "/api/admin/games",
        "/api/admin/games/{game_id}",
        "/api/admin/games/{game_id}/replay",
        "/api/admin/games/{game_id}/walls",
        "/api/admin/games/{game_id}/export",
        "/api/admin/games/{game_id}/viewer",
        "/api/admin/audit",
        "/api/cluster",
    }
    ranked = {  # docs/ranking.md: public, or authenticated by the session cookie as well
        "/api/accounts/register",
        "/api/accounts/signin",
        "/api/accounts/signout",
        "/api/accounts/password",
        "/api/accounts/me",
        "/api/rooms",
        "/api/leaderboard",
        "/api/players/{name}",
    }
    events = {  # docs/tournaments.md: public, or authenticated by the session cookie as well
        "/api/events",
        "/api/events/{event_id}",
        "/api/events/{event_id}/standings",
        "/api/admin/organizers",
        "/api/events/{event_id}/settings",
        "/api/events/{event_id}/organizers",
        "/api/events/{event_id}/log",
        "/api/events/{event_id}/entry",
        "/api/events/{event_id}/withdraw",
        "/api/events/{event_id}/checkin",
        "/api/events/{event_id}/bots",
        "/api/events/{event_id}/drop",
        "/api/events/{event_id}/seat",
        "/api/events/{event_id}/start",
        "/api/events/{event_id}/pause",
        "/api/events/{event_id}/resume",
        "/api/events/{event_id}/tables/{table}/end",
        "/api/events/{event_id}/substitute",
        "/api/events/{event_id}/adjust",
        "/api/events/{event_id}/notice",
        "/api/events/{event_id}/finish-round",
        "/api/events/{event_id}/lock",
        "/api/events/{event_id}/unlock",
        "/api/events/{event_id}/start-points",
        "/api/events/{event_id}/games/{match_id}/moves",
        "/api/events/{event_id}/export",
        "/api/events/{event_id}/entrants/{entrant}/checkin",  # an organizer checks an entrant in
        "/api/events/{event_id}/close",  # before its last round
        "/api/events/{event_id}/bot-entrants",  # docs/tournaments.md, "Bot events"
        "/api/events/{event_id}/comparison",
    }
    social = {  # docs/social.md: the signed-in account's friends, blocks and mutes
        "/api/me/friends",
        "/api/me/friends/requests",
        "/api/me/friends/requests/{account_id}",
        "/api/me/friends/requests/{account_id}/accept",
        "/api/me/friends/{account_id}",
        "/api/me/blocks/{account_id}",
        "/api/me/mutes/{account_id}",
        "/api/me/social/settings",
        "/api/me/invites",
        "/api/me/reports",  # a player's report
        # "Reports and the review queue": the admin port's review queue (cookie or bearer, as above)
        "/api/admin/reports",
        "/api/admin/reports/{report_id}",
        "/api/admin/reports/{report_id}/resolve",
    }
    game_port = {
        "/healthz",
        "/readyz",
        "/metrics",
        "/tables/live",
        "/tables/{match_id}/overlay",
        "/private/new",
    }
    assert set(doc["paths"]) == review | ranked | social | game_port | events
    for path in game_port:
        assert doc["paths"][path]["get"]["tags"] == ["game port"]
    assert doc["components"]["securitySchemes"]["token"] == {
        "type": "http",
        "scheme": "bearer",
        "description": doc["components"]["securitySchemes"]["token"]["description"],
    }
    for path, item in doc["paths"].items():
        if path in ranked | social | events or (path in game_port and path != "/private/new"):
            continue
        if path == "/api/games/{game_id}/replay":
            assert get_security(item) == [{"token": []}, {}] and "401" not in item["get"]["responses"]
            continue
        op = item["get"]
        assert op["security"] == [{"token": []}], path
        assert "401" in op["responses"]
        if "422" in op["responses"]:
            assert op["responses"]["422"]["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/ErrorResponse"
            }
    assert (await api.client.get("/docs")).status_code == 404  # no Swagger UI (it loads from the internet)


async def test_admin_pages_are_served(api: Api) -> None:
    r = await api.client.get("/admin/")
    assert r.status_code == 200 and r.headers["content-type"] == "text/html; charset=utf-8"
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "connect-src 'self'" in csp and "default-src 'none'" in csp
    assert '<script type="module" src="/admin/js/main.js">' in r.text
    for asset, kind in (
        ("js/main.js", "text/javascript"),
        ("js/api.js", "text/javascript"),
        ("js/replay.js", "text/javascript"),
        ("js/tiles.js", "text/javascript"),
        ("admin.css", "text/css"),
    ):
        r = await api.client.get(f"/admin/{asset}")
        assert r.status_code == 200 and r.headers["content-type"].startswith(kind), asset
        assert "http://" not in r.text and "https://cdn" not in r.text  # nothing from the internet
    for bad in (
        "/admin/../api/app.py",
        "/admin/js/../../api/app.py",
        "/admin/nothing.js",
        "/admin/.hidden.css",
    ):
        r = await api.client.get(bad)
        assert r.status_code == 404, bad
    r = await api.client.get("/", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/admin/"
    r = await api.client.get("/admin", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/admin/"


async def test_bot_accounts_export_their_games(api: Api) -> None:
    assert api.data.accounts["robo"].kind is AccountKind.BOT
    r = await api.get("/api/me/games/m-mixed/viewer", "robo")
    assert r.status_code == 200 and r.json()["links"]
