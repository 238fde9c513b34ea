"""End to end, three players: ``jantaku serve`` and a real headless Chromium (Debian's) play a
three-player hand against two bots: three seats around the table (nobody opposite), the North
button when a north can be set aside, a hand result for three; on the desktop and the 390x844 phone
layout. Skipped without Playwright or Chromium, as ``test_e2e.py``. With ``JANTAKU_SCREENSHOTS_DIR``
set, saves ``sanma-table.png``, ``sanma-phone.png`` and ``sanma-result.png`` there."""

from __future__ import annotations

import importlib
import time
from typing import Any

from tests.web.test_e2e import (  # noqa: F401 - the fixtures ``url`` and ``page``
    _play_one_decision,
    _results_seen,
    _shots,
    page,
    pytestmark,
    url,
)


def test_play_a_three_player_hand_against_two_bots(page: Any) -> None:  # noqa: F811 - the fixture
    playwright_error: type[Exception] = importlib.import_module("playwright.sync_api").Error
    shots = _shots()
    page.select_option("[data-testid=bots-preset]", "tenhou-sanma")
    page.select_option("[data-testid=bots-length]", "east")  # the tenhou-sanma-east+bots queue
    page.click("[data-testid=play-bots]")
    page.wait_for_selector("[data-testid=board] .center", timeout=15000)
    assert page.locator("[data-testid=board] .c-side").count() == 3
    assert page.locator("[data-testid^=player-score-]").count() == 3
    positions = page.eval_on_selector_all("[data-testid=board] .zone", "els => els.map(e => e.className)")
    assert len(positions) == 3 and not any("pos-2" in p for p in positions), positions  # nobody across
    state = {"wins": 0, "riichi": 0, "calls": 0, "passes": 0, "discards": 0, "norths": 0}
    shot_taken = False
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and _results_seen(page) == 0:
        try:
            if page.is_visible("[data-testid=action-nukidora]"):
                page.keyboard.press("n")  # the North key
                state["norths"] += 1
                page.wait_for_selector(".norths", timeout=5000)  # the pile beside the melds
                continue
            if (
                shots
                and not shot_taken
                and state["discards"] >= 3
                and page.is_visible("[data-testid=hand-tile][data-legal=true]")
            ):
                page.screenshot(path=str(shots / "sanma-table.png"))
                page.set_viewport_size({"width": 390, "height": 844})
                page.screenshot(path=str(shots / "sanma-phone.png"))
                page.set_viewport_size({"width": 1280, "height": 800})
                shot_taken = True
            _play_one_decision(page, state)
        except playwright_error:
            continue  # the decision closed under the click (the table moved on): look again
    assert _results_seen(page) > 0, f"no hand result was shown: {state}"
    if shots and page.is_visible("[data-testid=result-dialog] [data-testid=deltas]"):
        page.screenshot(path=str(shots / "sanma-result.png"))
    assert not page.errors, page.errors
