"""The lobby's Friends card end to end (js/friends.js, docs/social.md): ``jantaku serve``, two
registered players in two browsers (Debian's Chromium): alice asks bob, bob accepts, both see the
other in the lobby, then alice blocks bob and bob no longer sees her. Skipped without Playwright or
Chromium, like tests/web/test_e2e.py."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.web.serving import register, running_server
from tests.web.test_e2e import CHROMIUM, _shots, pytestmark

__all__ = ["pytestmark"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(the page's URL, the API's base URL) of a running ``jantaku serve``."""
    with running_server(tmp_path_factory.mktemp("friends")) as running:
        yield running.page_base, running.api


def test_two_players_become_friends_then_one_blocks_the_other(server: tuple[str, str]) -> None:
    url, api_base = server
    tokens = {name: register(api_base, name) for name in ("alice", "bob")}
    api: Any = importlib.import_module("playwright.sync_api")
    with api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        pages = {}
        errors: list[str] = []
        for name, token in tokens.items():
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.add_init_script(f"localStorage.setItem('jantaku.session_token', {json.dumps(token)})")
            page = context.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.set_default_timeout(15000)
            page.goto(f"{url}?api={api_base}")
            page.wait_for_selector("[data-testid=conn-status][data-status=open]")
            page.wait_for_selector("[data-testid=friend-add]")
            pages[name] = page
        alice, bob = pages["alice"], pages["bob"]
        alice.fill("[data-testid=friend-name]", "bob")
        alice.click("[data-testid=friend-add]")
        alice.wait_for_selector("[data-testid=friend-sent][data-name=bob]")
        bob.click("[data-testid=friends-refresh]")
        bob.click("[data-testid=friend-request][data-name=alice] [data-testid=friend-accept]")
        row = bob.wait_for_selector("[data-testid=friend-friend][data-name=alice]")
        assert row.query_selector("[data-testid=presence]").text_content() == "in the lobby"
        alice.click("[data-testid=friends-refresh]")
        alice.wait_for_selector("[data-testid=friend-friend][data-name=bob] [data-testid=presence]")
        alice.click("[data-testid=friend-friend][data-name=bob] [data-testid=friend-block]")
        alice.wait_for_selector("[data-testid=friend-blocked][data-name=bob]")
        bob.click("[data-testid=friends-refresh]")
        bob.wait_for_selector("[data-testid=friend-friend]", state="detached")
        assert bob.locator("[data-testid=friends] li").count() == 0  # no sign of the block
        assert not errors, errors
        browser.close()


def _friends(api_base: str, tokens: dict[str, str], a: str, b: str) -> None:
    """``a`` and ``b`` become friends through the HTTP API."""
    r = httpx.post(
        f"{api_base}/api/me/friends/requests",
        json={"name": b},
        headers={"Authorization": f"Bearer {tokens[a]}"},
    )
    assert r.status_code == 200, r.text
    other = r.json()["account_id"]
    me = httpx.get(f"{api_base}/api/me/friends", headers={"Authorization": f"Bearer {tokens[b]}"}).json()
    sender = next(p["account_id"] for p in me["requests_received"] if p["name"] == a)
    r = httpx.post(
        f"{api_base}/api/me/friends/requests/{sender}/accept",
        headers={"Authorization": f"Bearer {tokens[b]}"},
    )
    assert r.status_code == 204, (r.text, other)


def test_invite_a_friend_to_a_private_table_and_a_third_watches(server: tuple[str, str]) -> None:
    """carol opens a private table and invites dave from her Friends card; dave joins from the
    invitation's card; erin sees carol at a table (live, no refresh) and watches it."""
    url, api_base = server
    tokens = {name: register(api_base, name) for name in ("carol", "dave", "erin")}
    _friends(api_base, tokens, "carol", "dave")
    _friends(api_base, tokens, "erin", "carol")
    shots = _shots()
    api: Any = importlib.import_module("playwright.sync_api")
    with api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        pages = {}
        errors: list[str] = []
        for name, token in tokens.items():
            size = {"width": 390, "height": 844} if name == "erin" else {"width": 1280, "height": 900}
            context = browser.new_context(viewport=size)
            context.add_init_script(f"localStorage.setItem('jantaku.session_token', {json.dumps(token)})")
            page = context.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.set_default_timeout(15000)
            page.goto(f"{url}?api={api_base}")
            page.wait_for_selector("[data-testid=conn-status][data-status=open]")
            page.wait_for_selector("[data-testid=friend-add]")
            pages[name] = page
        carol, dave, erin = pages["carol"], pages["dave"], pages["erin"]
        # presence dots, kept live: dave and erin are online
        carol.wait_for_selector("[data-testid=friend-friend][data-name=dave] [data-testid=presence-dot]")
        carol.select_option("[data-testid=private-bots]", "2")
        carol.click("[data-testid=create-private]")
        carol.click("[data-testid=friend-friend][data-name=dave] [data-testid=friend-invite-send]")
        card = dave.wait_for_selector("[data-testid=friend-invite]")
        assert "carol invites you to a private table" in (card.text_content() or "")
        if shots is not None:
            dave.locator("[data-testid=friends]").screenshot(path=str(shots / "friends-invite.png"))
        # hostile text in an invitation (a name and preset as the hub would relay them) shows as text
        hostile = '<img src=x onerror="globalThis.pwned=1">'
        dave.evaluate(
            "(name) => globalThis.jantakuFriends.handle("
            "{type: 'invited', account_id: 'x', name, code: 'ZZZZ', preset: '<b>p</b>'})",
            hostile,
        )
        assert hostile in (dave.text_content("[data-testid=friend-invite] >> nth=0") or "")
        assert dave.locator("[data-testid=friends] img, [data-testid=friends] b").count() == 0
        assert dave.evaluate("() => globalThis.pwned") is None
        dave.click("[data-testid=friend-invite] >> nth=0 >> [data-testid=invite-dismiss]")
        dave.click("[data-testid=friend-invite] [data-testid=invite-join]")
        dave.wait_for_function(
            "() => window.jantaku.match !== null && window.jantaku.match.spectating === false"
        )
        carol.wait_for_function(
            "() => window.jantaku.match !== null && window.jantaku.match.spectating === false"
        )
        # erin, on a phone, sees carol playing and watches (with the table's spectator delay)
        row = "[data-testid=friend-friend][data-name=carol]"
        erin.wait_for_selector(f"{row} [data-testid=friend-watch]")
        assert erin.text_content(f"{row} [data-testid=presence]") == "playing"
        if shots is not None:
            erin.locator("[data-testid=friends]").scroll_into_view_if_needed()
            erin.screenshot(path=str(shots / "phone-friends.png"))
        erin.click(f"{row} [data-testid=friend-watch]")
        erin.wait_for_function(
            "() => window.jantaku.match !== null && window.jantaku.match.spectating === true"
        )
        assert erin.evaluate("() => window.jantaku.match.id") == carol.evaluate(
            "() => window.jantaku.match.id"
        )
        assert not errors, errors
        browser.close()
