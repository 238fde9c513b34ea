"""Ranked play end to end in Debian's Chromium (docs/ranking.md): sign up in the page, queue for the
ranked east-only open room, play the match against three registered test players driven by the
Python client (``client_protocol``), and see the rank change on the profile,
and open the game's replay from it.

``jantaku serve`` on free ports (SQLite in a temporary directory); the page is told where the ranked
API is with ``?api=``. Skipped without Playwright or Chromium, like tests/web/test_e2e.py.
"""

from __future__ import annotations

import asyncio
import importlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from client_protocol.messages import MatchEnd
from tests.web.serving import play_queue, register, running_server
from tests.web.test_e2e import CHROMIUM, _play_one_decision, _shots, pytestmark

__all__ = ["pytestmark"]
QUEUE = "ranked:open:east"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(the page's URL, the API's base URL) of a running ``jantaku serve``."""
    data = tmp_path_factory.mktemp("ranked")
    with running_server(data, "--bot-delay-ms", "50", "--hand-pause-ms", "300") as running:
        yield running.page_base, running.api


def test_sign_up_play_a_ranked_match_and_see_the_rank_change(server: tuple[str, str]) -> None:
    url, api_base = server
    ws_url = url.replace("http://", "ws://").rstrip("/") + "/ws"
    tokens = [register(api_base, f"bot-player{i}") for i in range(3)]
    ends: list[MatchEnd] = []

    async def players() -> None:
        async with asyncio.timeout(600):
            await asyncio.gather(*(play_queue(ws_url, t, QUEUE, ends) for t in tokens))

    thread = threading.Thread(target=lambda: asyncio.run(players()), daemon=True)
    thread.start()

    api: Any = importlib.import_module("playwright.sync_api")
    with api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        def console(message: Any) -> None:
            where = str(message.location.get("url", ""))
            # 4xx answers of the API (the refused sign-up) and the lobby's look at /tables/live are
            # expected; any other console error, and every script error, is not.
            if (
                message.type == "error"
                and not where.startswith(api_base)
                and not where.endswith("/tables/live")
            ):
                errors.append(f"{message.text} ({where})")

        page.on("console", console)
        refused: list[str] = []
        page.on("response", lambda r: refused.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        page.set_default_timeout(5000)
        page.goto(f"{url}?api={api_base}")
        page.wait_for_selector("[data-testid=conn-status][data-status=open]", timeout=15000)
        page.fill("[data-testid=ranked-name]", "climber")
        page.fill("[data-testid=ranked-password]", "short")
        page.click("[data-testid=sign-up]")
        page.wait_for_selector("[data-testid=ranked-error]:has-text('password')")  # the typed error, shown
        said = page.text_content("[data-testid=ranked-error]") or ""
        assert "8 to 128 characters" in said and "invalid body" not in said, said  # in words
        assert [r.split()[0] for r in refused] == ["422"], refused  # the refused sign-up only
        page.fill("[data-testid=ranked-password]", "a good password")
        page.click("[data-testid=sign-up]")
        page.wait_for_selector("[data-testid=ranked-account]:has-text('climber')", timeout=15000)
        page.wait_for_selector("[data-testid=conn-status][data-status=open]", timeout=15000)
        # (the guest's session is offered first, so that its games stay; an API that does not know
        # it answers 401 and the page signs up a new player)
        refused.clear()
        assert "Novice 0 / 20 pt · R 1500" in page.text_content("[data-testid=my-rank-east]")
        assert page.is_visible("[data-testid='room-ranked:open:east']")
        assert not page.is_visible("[data-testid='room-ranked:upper:east']")  # 1 kyu+ only
        page.click("[data-testid='room-ranked:open:east']")
        page.wait_for_selector("[data-testid=board] .center", timeout=30000)
        page.wait_for_selector("[data-testid=seat-rank-0]", timeout=15000)  # each seat's rank
        state = {"wins": 0, "riichi": 0, "calls": 0, "passes": 0, "discards": 0}
        deadline = time.monotonic() + 480
        while not page.is_visible("[data-testid=match-end]") and time.monotonic() < deadline:
            try:
                _play_one_decision(page, state)
            except api.Error:
                continue  # the page moved on under the click
        assert page.is_visible("[data-testid=match-end]"), state
        thread.join(timeout=60)
        assert len(ends) == 3 and all(e.result is not None for e in ends)
        # the climb, on the final screen: R (and the points) before and after
        page.wait_for_selector("[data-testid=match-end] [data-testid=climb]", timeout=15000)
        climb = page.text_content("[data-testid=climb]") or ""
        assert "1500" in climb and page.text_content("[data-testid=climb-rating]") != "1500", climb
        shots = _shots()
        if shots:
            page.screenshot(path=str(shots / "result-climb.png"))
        # the lobby's card has the new standing at once, without a reload
        page.click("[data-testid=back-to-lobby]")
        card = page.text_content("[data-testid=my-rank-east]") or ""
        assert "Novice 0 / 20 pt · R 1500" not in card and "· 1 game" in card, card
        assert not refused, refused  # no rank look-up or account question was refused

        page.goto(f"{url}?api={api_base}")
        page.wait_for_selector("[data-testid=ranked-account]:has-text('climber')", timeout=15000)
        page.click("[data-testid=show-profile]")
        page.wait_for_selector("[data-testid=profile-rank-east]")
        section = page.text_content("[data-testid=profile-east]") or ""
        assert "1 game ·" in section, section
        assert page.is_visible("[data-testid=profile-east] [data-testid=rating-chart]")
        stats = page.text_content("[data-testid=profile-stats-east]") or ""
        assert "The last match" in stats and "deal-in" in stats, stats
        rank = page.text_content("[data-testid=profile-rank-east]") or ""
        assert rank != "Novice 0 / 20 pt · R 1500", rank  # R moved (and the points, unless 3rd)
        assert "riichi" in stats and "calls" in stats, stats
        # Their own profile: the recent game opens its replay on /games/ (the same session).
        link = page.locator("[data-testid=profile-east] [data-testid=recent-replay]")
        assert link.count() == 1
        link.click()
        page.wait_for_selector("[data-testid=replay-board]", timeout=15000)
        board = page.goto(f"{api_base}/api/leaderboard?room=open&length=east")
        assert board is not None and "climber" in board.text()
        assert not errors, errors
        browser.close()
