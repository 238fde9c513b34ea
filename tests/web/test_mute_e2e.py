"""Muting a player from a chat line in the browser (js/mutes.js, docs/social.md "Mutes"), end to
end: ``jantaku serve``, registered players and a guest in Debian's Chromium. In the lobby, alice
mutes bob from one of his lines: it is hidden, his next line never reaches her page (no frame of it
arrives) while carol still sees it; she unmutes him from her Friends card and sees his next line.
At a table, a seated player's line names its account, so the same Mute button works there; a
guest sees no Mute button anywhere. Skipped without Playwright or Chromium, like
tests/web/test_e2e.py."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.serving import register, running_server
from tests.web.test_e2e import CHROMIUM, _shots, pytestmark

__all__ = ["pytestmark"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(the page's URL, the API's base URL) of a running ``jantaku serve``."""
    with running_server(tmp_path_factory.mktemp("mute")) as running:
        yield running.page_base, running.api


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    api: Any = importlib.import_module("playwright.sync_api")
    with api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


class Pages:
    """One page per player (a session token, or None for a guest), with the frames each received
    and the errors each raised."""

    def __init__(self, browser: Any, url: str, api_base: str) -> None:
        self.browser, self.url, self.api = browser, url, api_base
        self.frames: dict[str, list[str]] = {}
        self.errors: list[str] = []
        self.contexts: list[Any] = []

    def open(self, name: str, token: str | None) -> Any:
        context = self.browser.new_context(viewport={"width": 1280, "height": 900})
        self.contexts.append(context)
        if token is not None:
            context.add_init_script(f"localStorage.setItem('jantaku.session_token', {json.dumps(token)})")
        page = context.new_page()
        frames = self.frames[name] = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda data: frames.append(str(data))))
        page.on("pageerror", lambda exc: self.errors.append(f"{name}: {exc}"))
        page.set_default_timeout(15000)
        page.goto(f"{self.url}?api={self.api}")
        page.wait_for_selector("[data-testid=conn-status][data-status=open]")
        page.wait_for_function("() => globalThis.jantakuLobbyChat && globalThis.jantakuLobbyChat.joined")
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


def _lobby_say(page: Any, text: str) -> None:
    page.fill("[data-testid=lobby-chat-text]", text)
    page.click("[data-testid=lobby-chat-send]")


def _lobby_line(text: str) -> str:
    return f"[data-testid=lobby-chat-line]:has-text('{text}')"


def test_mute_from_a_lobby_line_then_unmute_from_the_friends_card(
    server: tuple[str, str], browser: Any
) -> None:
    url, api_base = server
    tokens = {name: register(api_base, name) for name in ("alice", "bob", "carol")}
    pages = Pages(browser, url, api_base)
    alice, bob, carol = (pages.open(name, token) for name, token in tokens.items())
    guest = pages.open("guest", None)
    shots = _shots()

    _lobby_say(bob, "first from bob")
    for page in (alice, carol, guest):
        page.wait_for_selector(_lobby_line("first from bob"))
    assert guest.locator("[data-testid=chat-mute]").count() == 0  # a guest mutes nobody
    assert bob.locator(f"{_lobby_line('first from bob')} [data-testid=chat-mute]").count() == 0  # own
    _lobby_say(guest, "a guest speaks")
    alice.wait_for_selector(_lobby_line("a guest speaks"))
    assert alice.locator(f"{_lobby_line('a guest speaks')} [data-testid=chat-mute]").count() == 0

    alice.click(f"{_lobby_line('first from bob')} [data-testid=chat-mute]")
    alice.wait_for_selector(_lobby_line("first from bob"), state="hidden")  # his lines already shown
    alice.wait_for_selector("[data-testid=friend-muted][data-name=bob] [data-testid=friend-unmute]")
    assert alice.locator(_lobby_line("a guest speaks")).is_visible()
    if shots is not None:
        alice.locator("[data-testid=friends]").screenshot(path=str(shots / "friends-muted.png"))

    _lobby_say(bob, "second from bob")
    carol.wait_for_selector(_lobby_line("second from bob"))  # the third player still hears him
    bob.wait_for_selector(_lobby_line("second from bob"))
    _lobby_say(carol, "carol after")  # delivered after bob's: once alice has it, she had his
    alice.wait_for_selector(_lobby_line("carol after"))
    assert not any("second from bob" in f for f in pages.frames["alice"])  # the server kept it back

    alice.click("[data-testid=friend-muted][data-name=bob] [data-testid=friend-unmute]")
    alice.wait_for_selector("[data-testid=friend-muted]", state="detached")
    _lobby_say(bob, "third from bob")
    alice.wait_for_selector(_lobby_line("third from bob"))
    assert not any("second from bob" in f for f in pages.frames["alice"])

    # a refusal is shown: muting oneself (no button offers it; the API says why)
    own = alice.evaluate("() => globalThis.jantaku.player.id")
    alice.evaluate("(id) => globalThis.jantakuMutes.set(id, 'alice', true)", own)
    alice.wait_for_selector("[data-testid=toast]:has-text('Could not mute alice: you cannot mute yourself')")
    assert not pages.errors, pages.errors
    pages.close()


def test_mute_from_a_table_line(server: tuple[str, str], browser: Any) -> None:
    """dan and erin sit at a private table, fay and a guest watch: erin's line names her account,
    so dan mutes her from it; her next line reaches fay, never dan; the guest has no Mute button."""
    url, api_base = server
    tokens = {name: register(api_base, name) for name in ("dan", "erin", "fay")}
    pages = Pages(browser, url, api_base)
    dan, erin, fay = (pages.open(name, token) for name, token in tokens.items())
    guest = pages.open("guest", None)
    dan.select_option("[data-testid=private-bots]", "2")
    dan.click("[data-testid=create-private]")
    dan.wait_for_function("() => Boolean(globalThis.jantaku.invite?.code)")
    erin.fill("[data-testid=private-code]", dan.evaluate("() => globalThis.jantaku.invite.code"))
    erin.click("[data-testid=join-private]")
    seated = "() => globalThis.jantaku.match !== null && globalThis.jantaku.match.spectating === false"
    erin.wait_for_function(seated)
    dan.wait_for_function(seated)
    match_id = dan.evaluate("() => globalThis.jantaku.match.id")
    for page in (fay, guest):
        page.fill("[data-testid=spectate-id]", match_id)
        page.click("[data-testid=spectate]")
        page.wait_for_function("() => globalThis.jantaku.match?.spectating === true")
    for page in (dan, erin, fay, guest):
        page.click("[data-testid=chat-button]")

    erin.fill("[data-testid=chat-text]", "hello from erin")
    erin.click("[data-testid=chat-send]")
    line = "[data-testid=chat-line]:has-text('hello from erin')"
    for page in (dan, fay, guest):
        page.wait_for_selector(line)
    assert guest.locator("[data-testid=chat-mute]").count() == 0
    assert fay.locator(f"{line} [data-testid=chat-mute]").count() == 1  # a registered spectator may
    assert erin.locator(f"{line} [data-testid=chat-mute]").count() == 0  # not on one's own line
    if (shots := _shots()) is not None:
        dan.locator("[data-testid=chat]").screenshot(path=str(shots / "chat-mute.png"))
    dan.click(f"{line} [data-testid=chat-mute]")
    dan.wait_for_selector(line, state="hidden")
    dan.wait_for_selector("[data-testid=toast]:has-text('erin is muted')")

    erin.fill("[data-testid=chat-text]", "erin again")
    erin.click("[data-testid=chat-send]")
    fay.wait_for_selector("[data-testid=chat-line]:has-text('erin again')")
    dan.fill("[data-testid=chat-text]", "dan after")  # delivered after erin's line
    dan.click("[data-testid=chat-send]")
    dan.wait_for_selector("[data-testid=chat-line]:has-text('dan after')")
    assert not any("erin again" in f for f in pages.frames["dan"])
    assert not pages.errors, pages.errors
    pages.close()
