"""Fair to the absent, in a real browser (issue 12): ``jantaku serve`` and Debian's headless Chromium.

* A page reload on your own turn plays nothing for you: after the reload the same decision (same
  step) is still yours, with the same hand, and no "played for you" notice.
* A server crash and restart on your own turn plays nothing while your time lasts: the browser
  reconnects by itself and finds the same decision waiting, with the same hand.
* A player who stays away until the time runs out is told, when back, what was played for it.

The server runs with a long action time so that the decision certainly outlasts a reload or a
restart; only the last test (short timers) waits for a timer to run out.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HAVE_PLAYWRIGHT = importlib.util.find_spec("playwright") is not None
if (CHROMIUM is None or not HAVE_PLAYWRIGHT) and os.environ.get("CI") == "true":
    raise RuntimeError("CI=true but Chromium or Playwright is missing: make test installs them")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not HAVE_PLAYWRIGHT, reason="Playwright for Python is not installed"),
    pytest.mark.skipif(
        CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)"
    ),
]

ROOT = Path(__file__).resolve().parents[2]
SERVE = (sys.executable, "-m", "server.app", "serve", "--http-port", "-1", "--drain-s", "0")
TIMERS = ("--action-ms", "60000", "--bank-ms", "10000", "--bot-delay-ms", "50", "--hand-pause-ms", "500")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``jantaku serve`` on a fixed port and data directory, so that it can be killed and restarted."""

    def __init__(self, data: Path, timers: tuple[str, ...] = TIMERS) -> None:
        self.data = data
        self.timers = timers
        self.port = _free_port()
        self.process: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> None:
        log = self.data / "serve.log"
        offset = log.stat().st_size if log.exists() else 0
        with log.open("a") as out:
            self.process = subprocess.Popen(
                [*SERVE, "--port", str(self.port), "--data-dir", str(self.data), *self.timers],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.process.poll() is None:
            found = re.search(r"play in a browser: (http://\S+)", log.read_text()[offset:])
            if found:
                self.url = found.group(1)
                return
            time.sleep(0.1)
        raise AssertionError(log.read_text())

    def kill(self) -> None:
        """A crash: SIGKILL, nothing flushed but what was committed."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=20)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path)
    s.start()
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture
def browser() -> Iterator[Any]:
    api: Any = importlib.import_module("playwright.sync_api")
    with api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def _open_game_on_my_turn(browser: Any, url: str) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.set_default_timeout(5000)
    page.goto(url)
    page.wait_for_selector("[data-testid=conn-status][data-status=open]", timeout=15000)
    page.select_option("[data-testid=bots-length]", "east")
    page.click("[data-testid=play-bots]")
    page.wait_for_selector("[data-testid=board] .center", timeout=15000)
    # Pass any call offered until our own turn: a discard decision, hand tiles clickable.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if page.locator("[data-testid=hand-tile][data-legal=true]").count() > 0:
            return page
        if page.is_visible("[data-testid=action-pass]"):
            page.click("[data-testid=action-pass]")
        page.wait_for_timeout(50)
    raise AssertionError("our turn never came")


def _decision(page: Any) -> tuple[int, list[str]]:
    step = page.evaluate("jantaku.prompt ? jantaku.prompt.step : -1")
    tiles = page.eval_on_selector_all("[data-testid=hand-tile]", "els => els.map(e => e.dataset.tile)")
    return int(step), sorted(str(t) for t in tiles)


def _toasts(page: Any) -> str:
    return str(page.text_content("[data-testid=toasts]") or "")


def test_a_reload_on_your_own_turn_plays_nothing_for_you(server: Server, browser: Any) -> None:
    page = _open_game_on_my_turn(browser, server.url)
    step, hand = _decision(page)
    assert step >= 0 and len(hand) % 3 == 2  # a drawn tile in hand: our discard is due
    page.reload()
    page.wait_for_selector("[data-testid=hand-tile][data-legal=true]", timeout=15000)
    assert _decision(page) == (step, hand)  # the same decision, nothing discarded for us
    assert "played" not in _toasts(page)
    assert not page.errors, page.errors


def test_a_server_restart_plays_nothing_while_your_time_lasts(server: Server, browser: Any) -> None:
    page = _open_game_on_my_turn(browser, server.url)
    step, hand = _decision(page)
    server.kill()
    page.wait_for_selector("[data-testid=conn-status]:not([data-status=open])", timeout=15000)
    server.start()  # the same port and database: the match is recovered from its log
    page.wait_for_selector("[data-testid=conn-status][data-status=open]", timeout=30000)
    page.wait_for_selector("[data-testid=hand-tile][data-legal=true]", timeout=15000)
    assert _decision(page) == (step, hand)  # the same decision is still ours
    assert "played" not in _toasts(page)
    assert not page.errors, page.errors


def test_a_player_back_after_the_time_ran_out_is_told_what_was_played(tmp_path: Path, browser: Any) -> None:
    server = Server(tmp_path, ("--action-ms", "2000", "--bank-ms", "0", "--bot-delay-ms", "50"))
    server.start()
    try:
        page = _open_game_on_my_turn(browser, server.url)
        step, _ = _decision(page)
        page.goto("about:blank")  # away: the action time (2 s) runs out and the server plays
        page.wait_for_timeout(3000)
        page.goto(server.url)  # back: the session resumes the seat
        page.wait_for_selector("[data-testid=toast]:has-text('While you were away')", timeout=15000)
        text = _toasts(page)
        assert re.search(r"the server played \d+ moves? for you: discarded", text), text
        assert _decision(page)[0] != step
        assert not page.errors, page.errors
    finally:
        server.stop()
