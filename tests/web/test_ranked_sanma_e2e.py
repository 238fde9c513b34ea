"""Three-player ranked play seen in a browser (Debian's Chromium): three registered players play a
match of the ``ranked:sanma-open:east`` room (through the Python client), then one of them signs in
on the page and finds the sanma standing on the Ranked card, the sanma sections of the profile
beside the (untouched) four-player ones, and the sanma leaderboard behind its switch
(docs/ranking.md, "Three-player rooms"; docs/browser.md, "Ranked")."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import httpx

from client_protocol.messages import MatchEnd
from tests.web.serving import play_queue, register
from tests.web.test_e2e import CHROMIUM, _shots, pytestmark
from tests.web.test_ranked_e2e import server

__all__ = ["pytestmark", "server"]
QUEUE = "ranked:sanma-open:east"


def test_a_sanma_ranked_match_shows_on_the_card_profile_and_leaderboard(server: tuple[str, str]) -> None:
    url, api_base = server
    ws_url = url.replace("http://", "ws://").rstrip("/") + "/ws"
    tokens = [register(api_base, f"sanma{i}") for i in range(3)]
    ends: list[MatchEnd] = []

    async def players() -> None:
        async with asyncio.timeout(600):
            await asyncio.gather(*(play_queue(ws_url, t, QUEUE, ends) for t in tokens))

    asyncio.run(players())
    assert len(ends) == 3 and all(e.result is not None for e in ends)
    me = httpx.get(f"{api_base}/api/accounts/me", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
    sanma_east = next(s for s in me["sanma_standings"] if s["length"] == "east")
    assert sanma_east["games"] == 1 and len(sanma_east["placements"]) == 3

    api: Any = importlib.import_module("playwright.sync_api")
    with api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.set_default_timeout(10000)
        page.goto(f"{url}?api={api_base}")
        page.wait_for_selector("[data-testid=conn-status][data-status=open]", timeout=15000)
        page.fill("[data-testid=ranked-name]", "sanma0")
        page.fill("[data-testid=ranked-password]", "pw-12345678")
        page.click("[data-testid=sign-in]")
        page.wait_for_selector("[data-testid=ranked-account]:has-text('sanma0')", timeout=15000)
        card = page.text_content("[data-testid=my-rank-sanma-east]") or ""
        assert card.startswith("Sanma east only:") and "· 1 game" in card, card
        four = page.text_content("[data-testid=my-rank-east]") or ""
        assert "Novice 0 / 20 pt · R 1500" in four and "0 games" in four, four  # four-player untouched
        assert page.is_visible("[data-testid='room-ranked:sanma-open:east']")
        assert not page.is_visible("[data-testid='room-ranked:sanma-upper:east']")  # 1 kyu+ only

        page.click("[data-testid=show-profile]")
        page.wait_for_selector("[data-testid=profile-rank-sanma-east]")
        section = page.text_content("[data-testid=profile-sanma-east]") or ""
        assert "Sanma east" in section and "1 game ·" in section and "4th" not in section, section
        assert page.is_visible("[data-testid=profile-sanma-east] [data-testid=rating-chart]")
        assert "0 games" in (page.text_content("[data-testid=profile-east]") or "")
        shots = _shots()
        if shots:
            page.screenshot(path=str(shots / "ranked-sanma-profile.png"))
        page.click("[data-testid=close-ranked-view]")

        page.click("[data-testid=show-leaderboard]")
        page.wait_for_selector("[data-testid=leaderboard]")
        page.click("[data-testid=leaderboard-sanma]")
        page.wait_for_selector("h2:has-text('Leaderboard · sanma players')")
        board = page.text_content("[data-testid=leaderboard]") or ""
        assert all(f"sanma{i}" in board for i in range(3)), board
        assert not errors, errors
        browser.close()
