"""Lobby chat in the browser (js/lobbychat.js) through ``jantaku serve``, in Debian's Chromium:
two players in the lobby's General channel; hostile text is shown as the very text it is; a
player reports another's line, and the report is stored with its context for the moderators."""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.store.repository import SqlRepository
from tests.web.serving import running_server
from tests.web.test_chat import CHROMIUM, HAVE_PLAYWRIGHT, HOSTILE, ROOT

pytestmark = [
    pytest.mark.skipif(not HAVE_PLAYWRIGHT, reason="Playwright for Python is not installed"),
    pytest.mark.skipif(
        CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)"
    ),
]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    api: Any = importlib.import_module("playwright.sync_api")
    with api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, str]]:
    data = tmp_path_factory.mktemp("data")
    with running_server(data) as running:
        yield running.page, data, running.admin


def _page(chromium: Any, url: str, viewport: dict[str, int]) -> tuple[Any, list[str]]:
    context = chromium.new_context(viewport=viewport)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(15000)
    page.goto(url)
    page.wait_for_selector("[data-testid=conn-status][data-status=open]")
    page.wait_for_function("() => globalThis.jantakuLobbyChat && globalThis.jantakuLobbyChat.joined")
    return page, errors


def _reports(data: Path) -> list[Any]:
    async def read() -> list[Any]:
        async with await SqlRepository.open(f"sqlite+aiosqlite:///{data}/jantaku.sqlite3") as repo:
            return list(await repo.reports())

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # Playwright's loop runs in this thread
        return pool.submit(asyncio.run, read()).result()


@pytest.mark.slow
def test_two_players_chat_in_the_lobby_and_one_reports_a_line(
    chromium: Any, served: tuple[str, Path, str]
) -> None:
    url, data, admin_url = served
    alice, alice_errors = _page(chromium, url, {"width": 1280, "height": 900})
    bob, bob_errors = _page(chromium, url, {"width": 390, "height": 844})
    alice.fill("[data-testid=lobby-chat-text]", HOSTILE)
    alice.click("[data-testid=lobby-chat-send]")
    alice.click("[data-testid=lobby-stamp-hello]")
    bob.wait_for_function("() => document.querySelectorAll('[data-testid=lobby-chat-line]').length >= 2")
    lines = bob.locator("[data-testid=lobby-chat-line] .chat-what").all_inner_texts()
    assert lines[-2:] == [HOSTILE, "Hello"]
    for page in (alice, bob):
        log = page.locator("[data-testid=lobby-chat-log]")
        assert log.locator("img, script, b").count() == 0  # no markup was made from the text
        assert page.evaluate("() => globalThis.pwned") is None  # and no handler ran
    bob.fill("[data-testid=lobby-chat-text]", "please stop posting that")
    bob.click("[data-testid=lobby-chat-send]")
    alice.wait_for_function("() => document.querySelectorAll('[data-testid=lobby-chat-line]').length >= 3")
    bob.once("dialog", lambda dialog: dialog.accept("posting markup to the lobby"))
    bob.locator("[data-testid=lobby-chat-line]").nth(len(lines) - 2).locator(
        "[data-testid=lobby-chat-report]"
    ).click()
    toasts = "[...document.querySelectorAll('[data-testid=toast]')]"
    bob.wait_for_function(f"() => {toasts}.some(t => t.textContent.includes('report'))")
    out = os.environ.get("JANTAKU_SCREENSHOTS_DIR")
    if out:
        alice.locator("[data-testid=lobby-chat]").scroll_into_view_if_needed()
        alice.screenshot(path=str(Path(out) / "lobby-chat.png"))
        bob.locator("[data-testid=lobby-chat]").scroll_into_view_if_needed()
        bob.screenshot(path=str(Path(out) / "phone-lobby-chat.png"))
    [report] = _reports(data)
    assert (
        report.where == "lobby" and report.reason == "posting markup to the lobby" and report.status == "open"
    )
    context = json.loads(report.context)
    assert context["channel"] == "general"
    assert [line.get("text") or line.get("stamp") for line in context["lines"]][-3:] == [
        HOSTILE,
        "hello",
        "please stop posting that",
    ]
    assert not alice_errors and not bob_errors, (alice_errors, bob_errors)
    # a new page joining the channel gets the lines said before, as text
    carol, carol_errors = _page(chromium, url, {"width": 1280, "height": 900})
    carol.wait_for_function("() => document.querySelectorAll('[data-testid=lobby-chat-line]').length >= 3")
    assert HOSTILE in carol.locator("[data-testid=lobby-chat-line] .chat-what").all_inner_texts()
    assert carol.locator("[data-testid=lobby-chat-log] img").count() == 0
    assert not carol_errors, carol_errors

    # the report reaches the admin review queue; a moderator acts on it with a reason
    made = subprocess.run(
        [sys.executable, "-m", "server.app", "admin", "create-admin", "mod", "--data-dir", str(data)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    token = made.stdout.splitlines()[1]
    admin = chromium.new_page(viewport={"width": 1280, "height": 900})
    admin_errors: list[str] = []
    admin.on("pageerror", lambda exc: admin_errors.append(str(exc)))
    admin.set_default_timeout(15000)
    admin.goto(admin_url)
    admin.fill("[data-testid=token-input]", token)
    admin.click("[data-testid=token-save]")
    admin.click("[data-testid=nav-reports]")
    admin.wait_for_selector("[data-testid=report-row]")
    assert admin.locator("[data-testid=report-row]").count() == 1
    admin.locator("[data-testid=report-row] a").first.click()
    admin.wait_for_selector("[data-testid=reported-line]")
    assert HOSTILE in admin.text_content("[data-testid=reported-line]")
    assert admin.locator("[data-testid=report-lines] img, [data-testid=report-lines] script").count() == 0
    admin.select_option("[data-testid=resolve-action]", "chat_ban")
    admin.fill("[data-testid=resolve-minutes]", "60")
    admin.fill("[data-testid=resolve-reason]", "markup spam in the lobby")
    admin.click("[data-testid=resolve-submit]")
    admin.wait_for_selector("[data-testid=report-resolution]")
    assert "actioned" in admin.text_content("[data-testid=report-resolution]")
    if out:
        admin.screenshot(path=str(Path(out) / "admin-report.png"), full_page=True)
    [report] = _reports(data)
    assert report.status == "actioned" and report.sanction_id is not None
    assert admin.evaluate("() => globalThis.pwned") is None
    assert not admin_errors, admin_errors
