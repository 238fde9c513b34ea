"""The lobby's Friends card end to end (js/friends.js, docs/social.md): ``jantaku serve``, two
registered players in two browsers (Debian's Chromium): alice asks bob, bob accepts, both see the
other in the lobby, then alice blocks bob and bob no longer sees her. Skipped without Playwright or
Chromium, like tests/web/test_e2e.py."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.web.test_e2e import CHROMIUM, ROOT, SERVE, pytestmark

__all__ = ["pytestmark"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(the page's URL, the API's base URL) of a running ``jantaku serve``."""
    data = tmp_path_factory.mktemp("friends")
    log = data / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [*SERVE, "--data-dir", str(data)], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, text=True
        )
    try:
        page = api = None
        deadline = time.monotonic() + 30
        while (page is None or api is None) and time.monotonic() < deadline and process.poll() is None:
            text = log.read_text()
            found = re.search(r"play in a browser: (http://[^?\s]+)", text)
            review = re.search(r"admin review: (http://[^/\s]+)/admin/", text)
            page, api = (found.group(1) if found else None), (review.group(1) if review else None)
            time.sleep(0.1)
        assert page and api, log.read_text()
        yield page, api
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_two_players_become_friends_then_one_blocks_the_other(server: tuple[str, str]) -> None:
    url, api_base = server
    tokens = {}
    for name in ("alice", "bob"):
        r = httpx.post(f"{api_base}/api/accounts/register", json={"name": name, "password": "pw-12345678"})
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["session_token"]
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
