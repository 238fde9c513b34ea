"""A paused table in the browser (docs/browser.md): the hub's notice that an event's organizer
paused the table shows in a banner and the page's clock stands still until the table moves again.
On the offline harness (tests/web/harness), like tests/web/test_comforts.py."""

from __future__ import annotations

from tests.web.test_comforts import Harness, browser, harness, pytestmark

__all__ = ["browser", "harness", "pytestmark"]

PAUSED = "{type: 'error', code: 'busy_retry', message: 'the table is paused (tea): every clock is stopped'}"


def test_a_paused_table_shows_a_banner_and_its_clock_stands_still(harness: Harness) -> None:
    page = harness.open("scenario=discard")
    assert not page.is_visible("[data-testid=paused-banner]")
    before = page.text_content("[data-testid=time-left]")
    page.evaluate("harness.setClock(jantaku.now() + 1000); jantaku.render()")
    assert page.text_content("[data-testid=time-left]") != before  # running: the clock counts down
    page.evaluate(f"harness.deliver({PAUSED})")
    banner = page.text_content("[data-testid=paused-banner]") or ""
    assert page.is_visible("[data-testid=paused-banner]") and "paused (tea)" in banner, banner
    shown = page.text_content("[data-testid=time-left]")
    page.evaluate(f"harness.setClock(jantaku.now() + 3000); harness.deliver({PAUSED})")
    assert page.text_content("[data-testid=time-left]") == shown  # 3 s later: the clock stood still
    # resumed: the server prompts again with the time left, and the banner goes
    page.evaluate("harness.deliver({...jantaku.prompt})")
    assert not page.is_visible("[data-testid=paused-banner]")
    assert page.evaluate("jantaku.paused") is None
