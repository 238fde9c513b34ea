"""End to end: ``jantaku serve`` runs the review API beside the hub, and a real headless Chromium
uses the admin pages: paste the token, filter and search the games, open one, download its
tenhou.net/6 export (equal to ``server.records``), get the viewer links, step through the replay
with the keyboard, check the walls, read the audit log.

Needs Playwright for Python and Debian's ``chromium`` (never a downloaded browser): skipped
otherwise, failing under ``CI=true``. Screenshots go to ``JANTAKU_SCREENSHOTS`` when set.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from server.records.export import export_match
from server.store.db import sqlite_url
from server.store.repository import SqlRepository
from tests.store.conftest import _in_thread
from tests.web.serving import running_server
from tests.web_api.seed import Seeded, seed_database

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HAVE_PLAYWRIGHT = importlib.util.find_spec("playwright") is not None
ROOT = Path(__file__).resolve().parents[2]

if (CHROMIUM is None or not HAVE_PLAYWRIGHT) and os.environ.get("CI") == "true":
    raise RuntimeError("CI=true but Chromium or Playwright is missing (make test installs both)")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not HAVE_PLAYWRIGHT, reason="Playwright for Python is not installed"),
    pytest.mark.skipif(
        CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)"
    ),
]


@dataclass(frozen=True, slots=True)
class Server:
    admin_url: str
    data: Seeded


async def _seed(path: Path) -> Seeded:
    async with await SqlRepository.open(sqlite_url(path)) as repo:
        return await seed_database(repo)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data_dir = tmp_path_factory.mktemp("admin-e2e")
    seeded = _in_thread(lambda: _seed(data_dir / "jantaku.sqlite3"))
    with running_server(data_dir) as running:
        yield Server(running.admin, seeded)


@pytest.fixture
def page(server: Server) -> Iterator[Any]:
    api: Any = importlib.import_module("playwright.sync_api")  # optional: no stubs needed
    with api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.set_default_timeout(5000)
        page.goto(server.admin_url)
        yield page
        browser.close()


def _shot(page: Any, name: str) -> None:
    out = os.environ.get("JANTAKU_SCREENSHOTS")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(out) / f"admin-{name}.png"), full_page=True)


def _until(check: Any, what: str, timeout: float = 5.0) -> None:
    """Poll ``check()`` (the pages' CSP forbids the string predicates of ``wait_for_function``)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _rows(page: Any) -> list[str]:
    return [
        str(g)
        for g in page.eval_on_selector_all("[data-testid=game-row]", "els => els.map(e => e.dataset.game)")
    ]


def test_review_a_game_in_the_browser(page: Any, server: Server, tmp_path: Path) -> None:
    page.wait_for_selector("[data-testid=need-token]")
    page.fill("[data-testid=token-input]", server.data.tokens["admin"])
    page.click("[data-testid=token-save]")
    _until(lambda: page.text_content("[data-testid=whoami]") == "root (admin)", "the admin's name")
    page.wait_for_selector("[data-testid=game-row]")
    assert set(_rows(page)) == {"m-aborted", "m-live", "m-humans", "m-bots", "m-mixed"}
    _shot(page, "list")

    # filter and search: part of a name, finished games only, since a date
    page.fill("[data-testid=filter-q]", "rob")
    page.select_option("[data-testid=filter-status]", "finished")
    page.fill("[data-testid=filter-since]", "2023-11-14")
    page.click("[data-testid=filter-apply]")
    _until(lambda: _rows(page) == ["m-mixed"], "the filtered list")
    assert _rows(page) == ["m-mixed"]
    assert "q=rob" in page.url and "status=finished" in page.url

    # the game's detail
    page.click("[data-testid=game-row] a >> nth=0")
    page.wait_for_selector("[data-testid=standings]")
    events = server.data.events["m-mixed"]
    hands = sum(type(e).__name__ == "RoundStarted" for e in events)
    assert page.locator("[data-testid=hand-row]").count() == hands
    assert page.locator("[data-testid=standings] tbody tr").count() == 4
    assert page.locator("[data-testid=auto-played] tbody tr").count() > 0
    _shot(page, "detail")

    # the tenhou.net/6 export, downloaded: byte for byte what server.records writes
    with page.expect_download() as info:
        page.click("[data-testid=export-tenhou6]")
    download = info.value
    assert download.suggested_filename == "m-mixed.json"
    saved = tmp_path / "m-mixed.json"
    download.save_as(str(saved))
    assert saved.read_text(encoding="utf-8") == export_match(
        events, "tenhou6", names=server.data.names["m-mixed"]
    )

    # the viewer links: one per hand
    page.click("[data-testid=viewer-button]")
    page.wait_for_selector("[data-testid=viewer-links] a")
    links = page.eval_on_selector_all("[data-testid=viewer-links] a", "els => els.map(e => e.href)")
    assert len(links) == hands and all(str(u).startswith("https://tenhou.net/6/#json=") for u in links)

    # the omniscient replay, by keyboard
    page.click("[data-testid=replay-link]")
    page.wait_for_selector("[data-testid=replay-board]")
    assert page.text_content("[data-testid=replay-position]").startswith("step 0 / ")
    for seat in range(4):  # every hand is visible: 13 tiles each, the dealer 14
        assert page.locator(f"[data-testid=hand-{seat}] .tile").count() in (13, 14)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert page.text_content("[data-testid=replay-position]").startswith("step 3 / ")
    assert "replay?step=3" in page.url
    page.keyboard.press("PageDown")  # the step that deals the next hand
    assert "dealt" in page.text_content("[data-testid=replay-events]")
    assert int(page.text_content("[data-testid=replay-position]").split()[1]) > 3
    page.keyboard.press("End")
    page.wait_for_selector("[data-testid=replay-result]")
    assert "Final" in page.text_content("[data-testid=replay-board]")
    _shot(page, "replay")

    # the replay on the table (the browser client's renderer, with this tab's admin token)
    page.goto(server.admin_url + "#/game/m-mixed")
    page.click("[data-testid=table-replay-link]")
    page.wait_for_selector("[data-testid=replay] [data-testid=board] .center")
    for seat in (1, 2, 3):  # every hand open on the board, seat 0's at the bottom
        assert page.locator(f"[data-testid=concealed-{seat}] .tile:not([data-tile=back])").count() == 13
    page.keyboard.press("PageDown")
    assert page.evaluate("location.hash") == "#h2s0"
    page.keyboard.press("End")
    page.wait_for_selector("[data-testid=result-dialog] [data-testid=match-end]")

    # the walls
    page.goto(server.admin_url + "#/game/m-mixed/walls")
    page.wait_for_selector("[data-testid=walls-summary]")
    assert "every revealed wall verified" in page.text_content("[data-testid=walls-summary]")
    assert page.locator("[data-testid=wall-hand]").count() == hands
    assert page.locator("[data-testid=wall-tiles]").first.locator(".tile").count() == 136
    _shot(page, "walls")

    # the audit log shows what we just did
    page.click("[data-testid=nav-audit]")
    page.wait_for_selector("[data-testid=audit] tbody tr")
    text = page.text_content("[data-testid=audit]")
    for action in ("games.list", "game.read", "game.export", "game.replay", "game.verify"):
        assert action in text

    # forget the token: the pages ask for one again
    page.click("[data-testid=token-forget]")
    page.wait_for_selector("[data-testid=need-token]")
    assert page.evaluate("sessionStorage.length") == 0
    assert page.errors == [], page.errors


def test_a_player_token_is_refused(page: Any, server: Server) -> None:
    page.fill("[data-testid=token-input]", server.data.tokens["alice"])
    page.click("[data-testid=token-save]")
    page.wait_for_selector("[data-testid=error]")
    assert "admin scope" in page.text_content("[data-testid=error]")
    _until(lambda: page.text_content("[data-testid=whoami]") == "alice (not an admin)", "alice's name")
    page.evaluate("sessionStorage.clear()")
    raw = json.dumps(server.data.tokens["mallory"])
    page.evaluate(f"sessionStorage.setItem('jantaku.admin.token', {raw}); location.hash = '#/games?x=1'")
    # A revoked token is answered like an unknown one (nobody learns the account exists).
    _until(lambda: "unknown or invalid token" in (page.text_content("[data-testid=error]") or ""), "401")
