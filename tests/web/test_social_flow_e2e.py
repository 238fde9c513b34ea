"""The social layer end to end in the browser (docs/social.md), one story through ``jantaku serve``
in Debian's Chromium: alice and bob sign up in the page, carol signs in; they become friends through
the Friends card; alice opens a private table with two bots and invites bob from the card; bob
joins from the invitation; they talk and send stamps at the table; carol watches alice's table from
the card and is shown to be a fixed number of events behind the seats (the spectator delay); bob
reports one of alice's lines, and an administrator resolves the report in the admin pages' review
queue (``#/reports``).

The delay is the server's ``--spectate-delay-steps`` (events, no seconds), and the seats have all
the time they want (``--action-ms``): the table waits for a human's decision, so where the watcher
stands is a fact, not a race. With ``JANTAKU_SCREENSHOTS_DIR`` set the run saves
``social-flow-*.png`` there (alice and the administrator on a laptop, bob and carol on a phone).
Skipped without Playwright or Chromium, like tests/web/test_e2e.py.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.web.serving import ROOT, Served, running_server
from tests.web.test_e2e import CHROMIUM, _shots, pytestmark

__all__ = ["pytestmark"]

DELAY = 8  # events a spectator is behind the seats: about one turn around the table
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PASSWORD = "pw-12345678"
RUDE = "<b>bots</b> play better than you"  # markup, to be shown as text everywhere

Page = Any  # playwright.sync_api.Page


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    options = ["--bot-delay-ms", "50", "--action-ms", "600000"]
    options += ["--spectate-delay-steps", str(DELAY), "--spectate-delay-s", "0"]
    with running_server(tmp_path_factory.mktemp("social-flow"), *options) as running:
        yield running


def _open(browser: Any, served: Served, viewport: dict[str, int], errors: list[str]) -> Page:
    page = browser.new_context(viewport=viewport).new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(20000)
    page.goto(f"{served.page_base}?api={served.api}")
    page.wait_for_selector("[data-testid=conn-status][data-status=open]")
    return page


def _account(page: Page, name: str, button: str) -> None:
    """Sign up or sign in from the lobby's Ranked card; the page reconnects as that account."""
    page.fill("[data-testid=ranked-name]", name)
    page.fill("[data-testid=ranked-password]", PASSWORD)
    page.click(f"[data-testid={button}]")
    page.wait_for_selector(f"[data-testid=ranked-account]:has-text('{name}')")
    page.wait_for_selector("[data-testid=conn-status][data-status=open]")
    page.wait_for_selector("[data-testid=friend-add]")


def _befriend(asker: Page, other: Page, asker_name: str, other_name: str) -> None:
    """``asker`` sends a request from the Friends card; ``other`` sees it live and accepts."""
    asker.fill("[data-testid=friend-name]", other_name)
    asker.click("[data-testid=friend-add]")
    asker.wait_for_selector(f"[data-testid=friend-sent][data-name={other_name}]")
    other.click(f"[data-testid=friend-request][data-name={asker_name}] [data-testid=friend-accept]")
    other.wait_for_selector(f"[data-testid=friend-friend][data-name={asker_name}]")
    asker.wait_for_selector(f"[data-testid=friend-friend][data-name={other_name}] [data-testid=presence]")


def _version(page: Page) -> int:
    return int(page.evaluate("() => globalThis.jantaku.match?.tracker.version ?? -1"))


def _river(page: Page, seat: int) -> list[str]:
    return list(
        page.evaluate("(s) => globalThis.jantaku.match.tracker.view().seats[s].river.map(d => d.tile)", seat)
    )


WAITING = """() => {
  const app = globalThis.jantaku;
  const v = app.match?.tracker.version;
  return app.prompt && !app.pending && app.prompt.version === v ? v : null;
}"""


SEES_MORE = "([s, n]) => globalThis.jantaku.match.tracker.view().seats[s].river.length > n"


def _stall(seats: list[Page]) -> tuple[Page, int]:
    """A seat whose decision the table waits for, and the version the seats have seen: with no
    clock running out, nothing happens at the table until that seat acts."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for page in seats:
            version = page.evaluate(WAITING)
            if version is not None:
                return page, int(version)
        seats[0].wait_for_timeout(50)
    raise AssertionError("no seat is asked for a decision")


PROMPTED = "[data-testid=action-pass], [data-testid=hand-tile][data-legal=true]"


def _decide(page: Page) -> None:
    """The plainest answer: pass on a call or a win offered, else discard the last legal tile."""
    page.wait_for_selector(PROMPTED)  # the prompt's controls, drawn just after the prompt arrives
    if page.is_visible("[data-testid=action-pass]"):
        page.click("[data-testid=action-pass]")
    else:
        page.click("[data-testid=hand-tile][data-legal=true] >> nth=-1")


def _to_discard(page: Page) -> bool:
    """Whether the seat is asked for a discard (not a call or a pass)."""
    page.wait_for_selector(PROMPTED)
    legal = page.locator("[data-testid=hand-tile][data-legal=true]").count() > 0
    return legal and not page.is_visible("[data-testid=action-pass]")


def _behind(watcher: Page, seat: Page, version: int) -> int:
    """The watcher catches up to exactly ``DELAY`` events behind the seats waiting at ``version``,
    and no further; returns the watcher's version."""
    watcher.wait_for_function(f"() => (globalThis.jantaku.match?.tracker.version ?? -1) >= {version - DELAY}")
    seen = _version(watcher)
    assert seen == version - DELAY, (seen, version)
    assert seat.evaluate(WAITING) == version  # the table did not move meanwhile
    return seen


def _chat_lines(page: Page) -> list[str]:
    return list(page.locator("[data-testid=chat-line] .chat-what").all_inner_texts())


def test_friends_invite_chat_watch_with_a_delay_and_a_report_resolved(served: Served) -> None:
    r = httpx.post(f"{served.api}/api/accounts/register", json={"name": "carol", "password": PASSWORD})
    assert r.status_code == 201, r.text  # carol has an account already: she signs in
    shots = _shots()

    def shot(page: Page, name: str, *, full: bool = False) -> None:
        if shots is not None:
            page.screenshot(path=str(shots / f"social-flow-{name}.png"), full_page=full)

    api: Any = importlib.import_module("playwright.sync_api")
    with api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        errors: list[str] = []
        alice = _open(browser, served, DESKTOP, errors)
        bob = _open(browser, served, PHONE, errors)
        carol = _open(browser, served, PHONE, errors)
        _account(alice, "alice", "sign-up")
        _account(bob, "bob", "sign-up")
        _account(carol, "carol", "sign-in")

        # friends: alice asks bob, carol asks alice; each request is accepted from the card, live
        _befriend(alice, bob, "alice", "bob")
        _befriend(carol, alice, "carol", "alice")
        alice.locator("[data-testid=friends]").scroll_into_view_if_needed()
        shot(alice, "friends")

        # alice opens a private table with two bots and invites bob from her Friends card
        alice.select_option("[data-testid=private-bots]", "2")
        alice.click("[data-testid=create-private]")
        alice.click("[data-testid=friend-friend][data-name=bob] [data-testid=friend-invite-send]")
        card = bob.wait_for_selector("[data-testid=friend-invite]")
        assert "alice invites you to a private table" in (card.text_content() or "")
        bob.locator("[data-testid=friend-invite]").scroll_into_view_if_needed()
        shot(bob, "phone-invite")
        bob.click("[data-testid=friend-invite] [data-testid=invite-join]")
        seated = "() => globalThis.jantaku.match !== null && globalThis.jantaku.match.spectating === false"
        for page in (alice, bob):
            page.wait_for_function(seated)
            page.wait_for_selector("[data-testid=board] .center")
        match_id = alice.evaluate("() => globalThis.jantaku.match.id")
        assert bob.evaluate("() => globalThis.jantaku.match.id") == match_id

        # a line and a stamp each way: both seats see all four
        alice.click("[data-testid=chat-button]")
        bob.click("[data-testid=chat-button]")
        alice.fill("[data-testid=chat-text]", "good luck, bob!")
        alice.click("[data-testid=chat-send]")
        bob.wait_for_function("() => document.querySelectorAll('[data-testid=chat-line]').length >= 1")
        bob.click("[data-testid=stamp-thanks]")
        bob.fill("[data-testid=chat-text]", "you too")
        bob.click("[data-testid=chat-send]")
        alice.click("[data-testid=stamp-good_luck]")
        said = ["good luck, bob!", "Thanks", "you too", "Good luck"]
        for page in (alice, bob):
            page.wait_for_function("() => document.querySelectorAll('[data-testid=chat-line]').length >= 4")
            assert _chat_lines(page) == said
        shot(alice, "table-chat")
        shot(bob, "phone-table-chat")
        for page in (alice, bob):  # on a phone the panel covers the hand: close it to play
            page.click("[data-testid=chat-close]")

        # a few turns, so that a watcher eight events behind has a hand to look at
        seats = [alice, bob]
        page, version = _stall(seats)
        while version < 2 * DELAY:
            _decide(page)
            page, version = _stall(seats)

        # carol sees alice playing and watches her table from the Friends card
        row = "[data-testid=friend-friend][data-name=alice]"
        carol.wait_for_selector(f"{row} [data-testid=friend-watch]")
        assert carol.text_content(f"{row} [data-testid=presence]") == "playing"
        carol.click(f"{row} [data-testid=friend-watch]")
        carol.wait_for_function(
            "() => globalThis.jantaku.match !== null && globalThis.jantaku.match.spectating === true"
        )
        assert carol.evaluate("() => globalThis.jantaku.match.id") == match_id
        _behind(carol, page, version)
        carol.wait_for_selector("[data-testid=board] .center")
        shot(carol, "phone-watching")

        # the delay: a discard the seats see at once reaches carol only DELAY events later
        while not _to_discard(page):
            _decide(page)
            page, version = _stall(seats)
            _behind(carol, page, version)
        me = int(page.evaluate("() => globalThis.jantaku.match.seat"))
        river = _river(page, me)
        page.click("[data-testid=hand-tile][data-legal=true] >> nth=-1")
        discarded_at = version + 1  # the seat's discard is the table's next event
        other, version = _stall(seats)
        for seat in seats:  # every seat sees the discard at once...
            seat.wait_for_function(SEES_MORE, arg=[me, len(river)])
        assert _behind(carol, other, version) < discarded_at  # ...carol does not yet
        assert len(_river(carol, me)) <= len(river)
        while version - DELAY < discarded_at:
            _decide(other)
            other, version = _stall(seats)
            watched = _behind(carol, other, version)
            assert (len(_river(carol, me)) > len(river)) == (watched >= discarded_at)
        assert _river(carol, me)[: len(river) + 1] == _river(page, me)[: len(river) + 1]  # now she does

        # a rude line: the seats and the watcher see it as text; bob reports it
        for page in (alice, bob, carol):
            page.click("[data-testid=chat-button]")
        alice.fill("[data-testid=chat-text]", RUDE)
        alice.click("[data-testid=chat-send]")
        for page in (bob, carol):
            page.wait_for_function(
                "(t) => [...document.querySelectorAll('[data-testid=chat-line] .chat-what')]"
                ".some(e => e.textContent === t)",
                arg=RUDE,
            )
            assert page.locator("[data-testid=chat-log] b").count() == 0
        bob.once("dialog", lambda dialog: dialog.accept("insulting the table"))
        bob.locator("[data-testid=chat-line]", has_text=RUDE).locator("[data-testid=chat-report]").click()
        toasts = "[...document.querySelectorAll('[data-testid=toast]')]"
        bob.wait_for_function(f"() => {toasts}.some(t => t.textContent.includes('report'))")
        shot(carol, "phone-watching-chat")

        # an administrator finds it in the review queue and gives alice a chat ban
        made = subprocess.run(
            [
                sys.executable,
                "-m",
                "server.app",
                "admin",
                "create-admin",
                "mod",
                "--data-dir",
                str(served.data),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        token = made.stdout.splitlines()[1]
        admin = browser.new_context(viewport=DESKTOP).new_page()
        admin.on("pageerror", lambda exc: errors.append(str(exc)))
        admin.set_default_timeout(20000)
        admin.goto(f"{served.api}/admin/")
        admin.fill("[data-testid=token-input]", token)
        admin.click("[data-testid=token-save]")
        admin.click("[data-testid=nav-reports]")
        admin.wait_for_selector("[data-testid=report-row]")
        assert admin.locator("[data-testid=report-row]").count() == 1
        listed = admin.text_content("[data-testid=report-row]") or ""
        assert "bob" in listed and "alice" in listed and "insulting the table" in listed, listed
        admin.locator("[data-testid=report-row] a").first.click()
        admin.wait_for_selector("[data-testid=reported-line]")
        assert RUDE in (admin.text_content("[data-testid=reported-line]") or "")
        assert admin.locator("[data-testid=report-lines] b", has_text="bots").count() == 0  # text, not markup
        context = admin.text_content("[data-testid=report-lines]") or ""
        assert "good luck, bob!" in context and "you too" in context  # the lines around it
        admin.select_option("[data-testid=resolve-action]", "chat_ban")
        admin.fill("[data-testid=resolve-minutes]", "60")
        admin.fill("[data-testid=resolve-reason]", "insults at a private table")
        admin.click("[data-testid=resolve-submit]")
        admin.wait_for_selector("[data-testid=report-resolution]")
        assert "actioned" in (admin.text_content("[data-testid=report-resolution]") or "")
        shot(admin, "admin-report", full=True)
        assert not errors, errors
        browser.close()
