"""Issue 12 against a real hub, in Debian's Chromium through Playwright: the waits the page shows
are the engine's (``seat_hints``) at a table dealt from an injected wall, the furiten warning in a
furiten position, the live tables list clicked to spectate, and a player's own replay (every hand
open, the winning position shown).

The hub runs in this process, on its own event loop in a thread (the memory store), so the test can
inject the wall and read the engine's state; its player seats keep their arrival order (the browser
is seat 0, the dealer). Skipped without Playwright or Chromium. With ``JANTAKU_SCREENSHOTS_DIR`` set,
saves ``phone-table.png``, ``live-tables.png`` and ``replay.png`` there.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import importlib.util
import os
import shutil
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from server.app.compose import build_hub
from server.domain.records import AccountKind, SeatRecord
from server.engine import legal_actions
from server.engine.hints import seat_hints
from server.engine.rules import preset
from server.engine.tiles import tile_name
from server.hub.server import Hub
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.hub.table import TableActor
from server.hub.tablesetup import TableSetup
from server.store.memory import InMemoryRepository
from tests.engine.scenario import quiet_wall, spare_walls
from tests.hub.netkit import KeepOrder
from tests.web_api.seed import Seeded, play_match, store_game

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HAVE_PLAYWRIGHT = importlib.util.find_spec("playwright") is not None
if (CHROMIUM is None or not HAVE_PLAYWRIGHT) and os.environ.get("CI") == "true":
    raise RuntimeError("CI=true but Chromium or Playwright is missing (make test installs both)")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not HAVE_PLAYWRIGHT, reason="Playwright for Python is not installed"),
    pytest.mark.skipif(
        CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)"
    ),
]

T = TypeVar("T")
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
# Seat 0 (the browser, dealer) waits on 1m and 4m with an East triplet; its first draw is 1m: a
# tsumo it declines by discarding the 1m, which leaves it furiten on both waits.
TENPAI = "23m456p789s11122z"


class HubThread:
    """A hub on a free port, on its own event loop in a thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.repo = InMemoryRepository()
        timers = TableTimers(action_ms=60_000, bank_ms=0, bot_delay_ms=50, hand_pause_ms=0)
        settings = HubSettings(port=0, timers=timers, spectate=SpectatePolicy(delay_s=0.0))
        self.hub: Hub = build_hub(settings, self.repo)
        self.hub._lobby._rng = KeepOrder()  # the browser sits first: seat 0 deals
        wall = quiet_wall({0: TENPAI}, draws="1m")
        original = self.hub._lobby.factory._actor

        def dealt(setup: TableSetup) -> TableActor:
            return original(dataclasses.replace(setup, walls=[wall, *spare_walls(setup.ruleset)]))

        self.hub._lobby.factory._actor = dealt  # type: ignore[method-assign]
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.run(self.hub.start())
        self.base = f"http://127.0.0.1:{self.hub.port}"

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)

    def close(self) -> None:
        self.run(self.hub.shutdown())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()

    def table_of(self, match_id: str) -> TableActor:
        table = self.hub.lobby.table(match_id)
        assert table is not None
        return table


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[HubThread, Any]]:
    api: Any = importlib.import_module("playwright.sync_api")
    hub = HubThread()
    try:
        with api.sync_playwright() as p:
            chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            yield hub, chromium
            chromium.close()
    finally:
        hub.close()


def _open(chromium: Any, url: str, viewport: dict[str, int] = LAPTOP) -> Any:
    page = chromium.new_page(viewport=viewport)
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.set_default_timeout(10_000)
    page.goto(url)
    return page


def _shot(page: Any, name: str) -> None:
    out = os.environ.get("JANTAKU_SCREENSHOTS_DIR")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(out) / name))


def _shown_waits(page: Any) -> list[tuple[str, int]]:
    page.wait_for_selector("[data-testid=wait]")
    waits: list[list[Any]] = page.eval_on_selector_all(
        "[data-testid=wait]", "els => els.map(e => [e.dataset.tile, Number(e.dataset.left)])"
    )
    return [(str(t), int(n)) for t, n in waits]


def test_the_waits_shown_are_the_engines_then_furiten_and_a_spectator_clicks_a_live_table(
    served: tuple[HubThread, Any],
) -> None:
    hub, chromium = served
    page = _open(chromium, hub.base + "/")
    page.wait_for_selector("[data-testid=conn-status][data-status=open]")
    page.click("[data-testid=play-bots]")
    page.wait_for_selector("[data-testid=hand-tile][data-drawn=true]")
    match_id = page.text_content("[data-testid=match-id]") or ""
    match_id = match_id.strip().split()[-1]
    table = hub.table_of(match_id)
    state = table.state
    assert state is not None
    hints = seat_hints(state, 0, legal_actions(state, 0))
    assert hints.waits, "the injected hand is tenpai"
    engine = [(tile_name(w.kind), w.left) for w in hints.waits]
    assert _shown_waits(page) == engine
    assert "null" not in (page.text_content("[data-testid=waits]") or "")
    _shot(page, "table-waits.png")

    # A spectator's lobby lists the table; a click watches it.
    watcher = _open(chromium, hub.base + "/")
    watcher.wait_for_selector(f"[data-testid=live-table][data-match='{match_id}']", timeout=30_000)
    _shot(watcher, "live-tables.png")
    watcher.click(f"[data-testid=live-table][data-match='{match_id}'] [data-testid=watch-table]")
    watcher.wait_for_selector("[data-testid=stop-watching]", state="visible")

    # Discard the drawn 1m (a winning tile: tsumo declined): furiten from then on.
    assert not page.is_visible("[data-testid=furiten]"), "drawing a winning tile is no furiten"
    page.click("[data-testid=hand-tile][data-drawn=true]")
    page.wait_for_selector("[data-testid=furiten]", state="visible", timeout=30_000)
    state = table.state
    assert state is not None and tile_name(state.hand.players[0].river[0].tile) == "1m"
    assert not page.errors and not watcher.errors, (page.errors, watcher.errors)
    page.close()
    watcher.close()


def test_a_players_replay_shows_every_hand_open_and_the_winning_position(
    served: tuple[HubThread, Any],
) -> None:
    hub, chromium = served
    page = _open(chromium, hub.base + "/")
    page.wait_for_selector("[data-testid=conn-status][data-status=open]")
    token = page.evaluate("() => localStorage.getItem('jantaku.session_token')")
    account = hub.run(hub.hub.auth.account_for_bearer(token))
    hub.run(hub.hub.auth.store_guest(account.id))  # as when it sits at a table
    played = play_match(
        "m-mine", preset("tenhou").with_options(game_length="east"), b"replay", created_at=1_700_000_000.0
    )
    seats = [SeatRecord(seat=0, name=account.name, kind=account.kind, account_id=account.id)]
    seats += [
        SeatRecord(seat=s, name=f"greedy-{s}", kind=AccountKind.BOT, account_id=None, bot="greedy")
        for s in (1, 2, 3)
    ]
    hub.run(store_game(hub.repo, Seeded(), "mine", played, seats, created_at=1_700_000_000.0))
    page.click("[data-testid=my-games]")
    page.wait_for_selector("[data-testid=game-row][data-game=m-mine]")
    page.click("[data-testid=game-row][data-game=m-mine] [data-testid=game-replay]")
    page.wait_for_selector("[data-testid=replay-board]")
    # The first hand's end: the winning hand (or the draw) before the next deal.
    page.click("[data-testid=replay-hand-end]")
    page.wait_for_selector("[data-testid=replay-result]")
    for seat in range(4):  # every hand open
        assert page.locator(f"[data-testid=hand-{seat}] .tile:not([data-tile=back])").count() >= 13
    if page.locator("[data-testid=replay-win]").count():
        yaku = page.text_content("[data-testid=replay-yaku]") or ""
        assert "_" not in yaku and "han" in yaku, yaku  # in words
        assert page.locator("[data-testid=replay-win-hand] svg").count() >= 14  # tiles drawn as tiles
    _shot(page, "replay.png")
    page.click("[data-testid=replay-last]")
    page.wait_for_selector("[data-testid=replay-final]")
    assert page.locator("[data-testid=replay-result]").count() == 1, "the last hand's end is shown too"
    assert page.locator("[data-testid=export-tenhou6]").count() == 1
    assert page.locator("[data-testid=export-mjai]").count() == 1
    page.click("[data-testid=viewer-button]")
    page.wait_for_selector("[data-testid=viewer-links] a[href^='https://tenhou.net/6/']")
    assert not page.errors, page.errors
    _table_replay(page, hub)
    page.close()


def _table_replay(page: Any, hub: HubThread) -> None:
    """The visual replay (issue 29): the table as it was, drawn by the table's renderer, stepped by
    action, turn and hand with keys, the results as in play, a link to a position."""
    page.goto(hub.base + "/games/")
    page.click("[data-testid=game-row][data-game=m-mine] [data-testid=game-table-replay]")
    page.wait_for_selector("[data-testid=replay] [data-testid=board] .center")
    assert page.evaluate("location.pathname + location.hash") == "/games/m-mine#h1s0"
    for seat in (1, 2, 3):  # every hand open on the board, seat 0's at the bottom
        assert page.locator(f"[data-testid=concealed-{seat}] .tile:not([data-tile=back])").count() == 13
    assert page.locator("[data-testid=hand-tile]").count() == 14  # the dealer's hand and its draw
    page.keyboard.press("ArrowRight")
    assert "discards" in (page.text_content("[data-testid=replay-caption]") or "")
    assert page.locator(".river .tile").count() == 1
    page.keyboard.press("o")  # one seat's view: the others face down
    assert page.locator("[data-testid=concealed-1] .tile[data-tile=back]").count() >= 13
    page.keyboard.press("o")
    page.keyboard.press("ArrowDown")  # the next turn: the next discard
    assert page.locator(".river .tile").count() == 2
    page.keyboard.press("PageDown")
    assert page.evaluate("location.hash") == "#h2s0"
    page.keyboard.press("ArrowUp")  # back a turn: the first hand's result, as in play
    page.wait_for_selector("[data-testid=result-dialog] [data-testid=deltas]")
    page.keyboard.press("End")
    page.wait_for_selector("[data-testid=result-dialog] [data-testid=match-end]")
    _shot(page, "replay-table.png")
    page.click("[data-testid=replay-raw] summary")
    assert '"events"' in (page.text_content("[data-testid=replay-raw] pre") or "")
    page.goto(hub.base + "/games/m-mine#h2s3")  # a link to a position opens there
    page.wait_for_selector("[data-testid=replay-position]:has-text('Hand 2 · step 3')")
    assert not page.errors, page.errors
    other = page.context.browser.new_page()
    other.goto(hub.base + "/games/m-mine#h2s3")  # not one of its players: nothing to see
    other.wait_for_selector("[data-testid=replay-error]")
    other.close()


def test_a_shared_link_to_a_finished_public_game_opens_for_anyone(served: tuple[HubThread, Any]) -> None:
    """A finished game whose table allowed spectators opens from a shared link (``#h1s5``) in a
    fresh browser that never played nor signed in, every hand open; a private table's game and a
    running one do not (docs/browser.md, "The replay viewer")."""
    hub, chromium = served
    bots = [
        SeatRecord(seat=s, name=f"greedy-{s}", kind=AccountKind.BOT, account_id=None, bot="greedy")
        for s in range(4)
    ]
    east = preset("tenhou").with_options(game_length="east")
    for label, spectators in (("open", True), ("closed", False)):
        played = play_match(f"m-{label}", east, label.encode(), created_at=1_700_000_000.0)
        hub.run(
            store_game(
                hub.repo, Seeded(), label, played, bots, created_at=1_700_000_000.0, spectators=spectators
            )
        )
    context = chromium.new_context(viewport=LAPTOP)  # no cookies, no localStorage: a stranger
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.set_default_timeout(10_000)
    page.goto(hub.base + "/games/m-open#h1s5")
    page.wait_for_selector("[data-testid=replay-position]:has-text('Hand 1 · step 5')")
    assert page.evaluate("localStorage.getItem('jantaku.session_token')") is None
    for seat in (1, 2, 3):  # every hand open: a finished game hides nothing
        assert page.locator(f"[data-testid=concealed-{seat}] .tile:not([data-tile=back])").count() >= 10
    assert page.locator(".river .tile").count() >= 1
    page.keyboard.press("ArrowRight")
    assert page.evaluate("location.hash") == "#h1s6"
    for refused in ("m-closed", "m-nobody"):
        page.goto(hub.base + f"/games/{refused}#h1s5")
        page.wait_for_selector("[data-testid=replay-error]")
        assert "private" in (page.text_content("[data-testid=replay-error]") or "")
    assert not page.errors, page.errors
    context.close()


def test_a_registered_player_pastes_a_token_and_sees_their_games(served: tuple[HubThread, Any]) -> None:
    hub, chromium = served
    account, token = hub.run(hub.hub.auth.create_account("pat", AccountKind.PLAYER))
    played = play_match(
        "m-pats", preset("tenhou").with_options(game_length="east"), b"pat", created_at=1_700_000_000.0
    )
    seats = [SeatRecord(seat=2, name=account.name, kind=account.kind, account_id=account.id)]
    seats += [
        SeatRecord(seat=s, name=f"greedy-{s}", kind=AccountKind.BOT, account_id=None, bot="greedy")
        for s in (0, 1, 3)
    ]
    seats.sort(key=lambda s: s.seat)
    hub.run(store_game(hub.repo, Seeded(), "pats", played, seats, created_at=1_700_000_000.0))
    page = _open(chromium, hub.base + "/games/")
    page.wait_for_selector("[data-testid=need-token]")  # this browser never played
    page.fill("[data-testid=token-input]", token)
    page.click("[data-testid=token-save]")
    page.wait_for_selector("[data-testid=game-row][data-game=m-pats]")
    assert "pat" in (page.text_content("[data-testid=whoami]") or "")
    assert not page.errors, page.errors
    page.close()
