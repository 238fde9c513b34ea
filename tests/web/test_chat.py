"""Chat and stamps in the browser (js/chat.js), in Debian's Chromium through Playwright.

Hostile text (markup, an ``onerror`` handler, a closing script tag) must be shown as the very text
it is, never as markup: on the offline harness (tests/web/harness: the real page fed canned
messages) for lines from a seat and from a spectator, and end to end through ``jantaku serve``,
where the page's own line goes to the server and comes back to it.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.harness.serve import serving
from tests.web.serving import running_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HAVE_PLAYWRIGHT = importlib.util.find_spec("playwright") is not None
if (CHROMIUM is None or not HAVE_PLAYWRIGHT) and os.environ.get("CI") == "true":
    raise RuntimeError("CI=true but Chromium or Playwright is missing (make test installs both)")

pytestmark = [
    pytest.mark.skipif(not HAVE_PLAYWRIGHT, reason="Playwright for Python is not installed"),
    pytest.mark.skipif(
        CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)"
    ),
]

HOSTILE = '<img src=x onerror="globalThis.pwned=1"><script>globalThis.pwned=2</script> & <b>bold</b>'
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    api: Any = importlib.import_module("playwright.sync_api")
    with api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


def _errors(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def _shown_as_text(page: Any) -> None:
    log = page.locator("[data-testid=chat-log]")
    assert log.locator("img, script, b").count() == 0  # no markup was made from the text
    assert page.evaluate("() => globalThis.pwned") is None  # and no handler ran


def test_hostile_lines_are_shown_as_text_and_sent_as_typed(chromium: Any) -> None:
    with serving() as base:
        page = chromium.new_page(viewport={"width": 1280, "height": 800})
        errors = _errors(page)
        page.set_default_timeout(5000)
        page.goto(f"{base}/harness/table.html?scenario=discard")
        page.wait_for_selector("body[data-ready='1']")
        match_id = page.evaluate("() => globalThis.jantaku.match.id")
        page.click("[data-testid=chat-button]")
        page.fill("[data-testid=chat-text]", HOSTILE)
        page.click("[data-testid=chat-send]")
        page.click("[data-testid=stamp-gg]")
        sent = [m for m in page.evaluate("() => globalThis.sent") if m["type"] in ("chat", "stamp")]
        assert [(m["type"], m.get("text"), m.get("stamp")) for m in sent] == [
            ("chat", HOSTILE, None),
            ("stamp", None, "gg"),
        ]
        for message in (
            {"type": "chat", "match_id": match_id, "role": "seated", "from": 1, "name": "x", "text": HOSTILE},
            {
                "type": "chat",
                "match_id": match_id,
                "role": "spectator",
                "from": HOSTILE,
                "name": HOSTILE,
                "text": HOSTILE,
            },
            {"type": "chat", "match_id": match_id, "role": "seated", "from": 2, "name": "y", "stamp": "gg"},
        ):
            page.evaluate("(m) => globalThis.harness.deliver(m)", message)
        lines = page.locator("[data-testid=chat-line] .chat-what").all_inner_texts()
        assert lines == [HOSTILE, HOSTILE, "Good game"]
        who = page.locator("[data-testid=chat-line] .chat-who").all_inner_texts()
        assert who[1] == f"{HOSTILE} (watching)"
        _shown_as_text(page)
        # closed, a line shows as a notice (as text too) and counts as unread
        page.click("[data-testid=chat-close]")
        page.evaluate(
            "(m) => globalThis.harness.deliver(m)",
            {"type": "chat", "match_id": match_id, "role": "seated", "from": 3, "name": "z", "text": HOSTILE},
        )
        assert page.text_content("[data-testid=chat-unread]") == "1"
        assert page.locator("[data-testid=toasts] img").count() == 0
        assert any(HOSTILE in t for t in page.locator("[data-testid=toast]").all_inner_texts())
        assert page.evaluate("() => globalThis.pwned") is None
        assert not errors, errors
        page.close()


CONVERSATION: list[dict[str, Any]] = [
    {"role": "seated", "from": 1, "name": "bob", "stamp": "good_luck"},
    {"role": "seated", "from": 2, "name": "carol", "text": "nice dealer repeat"},
    {"role": "spectator", "from": "dave", "name": "dave", "text": "watching from the rail"},
    {"role": "seated", "from": 3, "name": "erin", "stamp": "wow"},
]


@pytest.mark.parametrize(
    ("viewport", "shot"),
    [({"width": 1280, "height": 800}, "chat.png"), ({"width": 390, "height": 844}, "phone-chat.png")],
)
def test_the_chat_panel_fits_the_screen(chromium: Any, viewport: dict[str, int], shot: str) -> None:
    """The panel, its stamps and its line box are inside the viewport on a laptop and a phone."""
    with serving() as base:
        page = chromium.new_page(viewport=viewport)
        errors = _errors(page)
        page.set_default_timeout(5000)
        page.goto(f"{base}/harness/table.html?scenario=discard")
        page.wait_for_selector("body[data-ready='1']")
        match_id = page.evaluate("() => globalThis.jantaku.match.id")
        page.click("[data-testid=chat-button]")
        for line in CONVERSATION:
            page.evaluate(
                "(m) => globalThis.harness.deliver(m)", {"type": "chat", "match_id": match_id, **line}
            )
        for selector in (
            "[data-testid=chat]",
            "[data-testid=chat-text]",
            "[data-testid=chat-send]",
            "[data-testid=stamp-gg]",
        ):
            box = page.locator(selector).bounding_box()
            assert box is not None, selector
            assert box["x"] >= 0 and box["y"] >= 0, selector
            assert box["x"] + box["width"] <= viewport["width"] + 0.5, selector
            assert box["y"] + box["height"] <= viewport["height"] + 0.5, selector
        assert page.locator("[data-testid=chat-line]").count() == len(CONVERSATION)
        out = os.environ.get("JANTAKU_SCREENSHOTS_DIR")
        if out:
            page.screenshot(path=str(Path(out) / shot))
        assert not errors, errors
        page.close()


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("data"), api=False) as served:
        yield served.page


@pytest.mark.slow
def test_a_line_goes_through_the_server_and_comes_back_as_text(chromium: Any, url: str) -> None:
    page = chromium.new_page(viewport={"width": 1280, "height": 800})
    errors = _errors(page)
    page.set_default_timeout(15000)
    page.goto(url)
    page.wait_for_selector("[data-testid=conn-status][data-status=open]")
    page.select_option("[data-testid=bots-length]", "east")  # a private table with 3 bots: free text
    page.click("[data-testid=play-bots]")
    page.wait_for_selector("[data-testid=board] .center")
    page.click("[data-testid=chat-button]")
    page.fill("[data-testid=chat-text]", HOSTILE)
    page.click("[data-testid=chat-send]")
    page.click("[data-testid=stamp-thanks]")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=chat-line]').length >= 2")
    lines = page.locator("[data-testid=chat-line] .chat-what").all_inner_texts()
    assert lines[:2] == [HOSTILE, "Thanks"]
    _shown_as_text(page)
    assert not errors, errors
    page.close()


def test_another_players_line_can_be_reported(chromium: Any) -> None:
    """A line with an id from another player has a Report button: it asks why and sends a
    ``report`` naming the line (the server knows its sender); the player's own lines have none."""
    with serving() as base:
        page = chromium.new_page(viewport={"width": 1280, "height": 800})
        errors = _errors(page)
        page.set_default_timeout(5000)
        page.goto(f"{base}/harness/table.html?scenario=discard")
        page.wait_for_selector("body[data-ready='1']")
        match_id = page.evaluate("() => globalThis.jantaku.match.id")
        me = page.evaluate("() => globalThis.jantaku.player?.name ?? null")
        page.click("[data-testid=chat-button]")
        for message in (
            {
                "type": "chat",
                "match_id": match_id,
                "role": "seated",
                "from": 1,
                "name": "rude",
                "text": HOSTILE,
                "id": 7,
            },
            {
                "type": "chat",
                "match_id": match_id,
                "role": "seated",
                "from": 0,
                "name": me,
                "text": "mine",
                "id": 8,
            },
        ):
            page.evaluate("(m) => globalThis.harness.deliver(m)", message)
        buttons = page.locator("[data-testid=chat-report]")
        assert buttons.count() == (1 if me else 2)
        page.once("dialog", lambda dialog: dialog.accept("insults"))
        buttons.first.click()
        sent = [m for m in page.evaluate("() => globalThis.sent") if m["type"] == "report"]
        assert [(m["reason"], m["line"]) for m in sent] == [("insults", {"place": "table", "id": 7})]
        assert "account_id" not in sent[0]
        _shown_as_text(page)
        assert not errors, errors
        page.close()
