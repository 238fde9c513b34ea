"""The browser client's comforts and the defects of issue 12, in Debian's Chromium through Playwright,
on the offline harness (tests/web/harness: the real page fed canned situations from
tests/web/scenarios.py, what it sends recorded in ``globalThis.sent``).

Spectators, private tables, leftover riichi sticks, the toggles (what each makes the page send at
once), sounds, animations, dora marks, waits and furiten from the prompt's hints, live tables, a tab
replaced by another, and the phone layout (390x844: element boxes inside the viewport, the result
dialog showing four score changes without scrolling). One browser serves the whole module.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.harness.serve import serving

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

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def browser() -> Iterator[tuple[Any, str]]:
    api: Any = importlib.import_module("playwright.sync_api")
    with serving() as base, api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium, base
        chromium.close()


class Harness:
    def __init__(self, browser: tuple[Any, str]) -> None:
        self.chromium, self.base = browser
        self.pages: list[Any] = []

    def open(
        self, query: str, viewport: dict[str, int] = LAPTOP, reduced_motion: str = "no-preference"
    ) -> Any:
        page = self.chromium.new_page(viewport=viewport, reduced_motion=reduced_motion)
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.set_default_timeout(5000)
        page.goto(f"{self.base}/harness/table.html?{query}")
        # a whole match replayed message by message, each drawn at once, takes a moment
        page.wait_for_selector("body[data-ready='1']", timeout=60000)
        self.pages.append(page)
        return page

    def close(self) -> None:
        for page in self.pages:
            assert not page.errors, page.errors
            page.close()


@pytest.fixture
def harness(browser: tuple[Any, str]) -> Iterator[Harness]:
    h = Harness(browser)
    yield h
    h.close()


def _sent(page: Any, kind: str = "act") -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = page.evaluate("() => globalThis.sent")
    return [m for m in sent if m["type"] == kind]


def _visible(page: Any, testid: str) -> bool:
    return bool(page.is_visible(f"[data-testid={testid}]"))


# ---- defects -------------------------------------------------------------------------------------


def test_a_spectator_does_not_see_the_last_hands_result_over_the_next_hand(harness: Harness) -> None:
    page = harness.open("scenario=spectator-newhand")
    assert not _visible(page, "result-dialog"), "the result of the hand before stays over the new hand"
    assert page.evaluate("jantaku.match.spectating") is True
    assert page.evaluate("jantaku.match.tracker.view().round.hand_index") >= 1


def test_a_spectator_gets_no_keys_no_toggles_and_a_spectators_leave(harness: Harness) -> None:
    page = harness.open("scenario=spectator")
    assert _visible(page, "stop-watching")
    assert not _visible(page, "leave")
    assert _visible(page, "spectator-note")
    assert page.locator(".side-keys .keys").count() == 0
    assert not _visible(page, "toggles")
    page.click("[data-testid=stop-watching]")  # no confirmation: a spectator leaves nothing behind
    assert _visible(page, "lobby")
    assert _sent(page, "leave") == [{"type": "leave", "match_id": "m-demo"}]


def test_the_watch_form_asks_for_the_caster_view_only_when_ticked(harness: Harness) -> None:
    page = harness.open("scenario=lobby")
    page.fill("[data-testid=spectate-id]", "m-open")
    page.click("[data-testid=spectate]")
    assert _sent(page, "join")[-1]["target"] == {"type": "spectate", "match_id": "m-open"}
    page.evaluate("harness.deliver({type: 'error', code: 'forbidden', message: 'no', request_id: 1})")
    page.check("[data-testid=spectate-caster]")
    page.fill("[data-testid=spectate-id]", "m-cast")
    page.click("[data-testid=spectate]")
    assert _sent(page, "join")[-1]["target"] == {"type": "spectate", "match_id": "m-cast", "view": "caster"}


def test_a_player_keeps_the_leave_table_button(harness: Harness) -> None:
    page = harness.open("scenario=discard")
    assert _visible(page, "leave") and not _visible(page, "stop-watching")
    assert page.locator(".side-keys .keys").count() == 1


def test_private_table_invite_counts_the_missing_players_and_leaves_with_its_match(harness: Harness) -> None:
    page = harness.open("scenario=lobby")
    page.select_option("[data-testid=private-bots]", "2")
    page.click("[data-testid=create-private]")
    page.wait_for_selector("[data-testid=invite-code]")
    assert _sent(page, "join")[-1]["target"] == {"type": "private", "code": "K7QF-M2XD"}
    page.evaluate("harness.deliver({type: 'queued', preset: 'tenhou', players_waiting: 1})")
    assert "waiting for 1 more player" in page.text_content("[data-testid=invite-code]")
    assert not _visible(page, "queued"), "the quick-match card is not waiting"
    assert _visible(page, "cancel-private")
    page.click("[data-testid=copy-invite]")
    copied = page.evaluate("globalThis.copied")
    assert copied == ["http://harness.example/?invite=K7QF-M2XD"]
    assert page.input_value("[data-testid=invite-link]") == copied[0]
    players = [{"name": n, "kind": "guest"} for n in ("alice", "bob", "b1", "b2")]
    page.evaluate("p => harness.deliver({type: 'seated', match_id: 'm-priv', seat: 0, players: p})", players)
    assert _visible(page, "table")
    page.evaluate(
        "harness.deliver({type: 'match_end', match_id: 'm-priv', reason: 'completed', "
        "result: {scores: [25000, 25000, 25000, 25000], ranks: [1, 2, 3, 4], final_points: [1, 2, 3, -6]}})"
    )
    page.click("[data-testid=back-to-lobby]")
    assert _visible(page, "lobby")
    assert page.locator("[data-testid=invite-code]").count() == 0, "a stale invite stays in the lobby"


def test_the_private_form_sends_the_chosen_chat_and_shows_it_with_the_invite(harness: Harness) -> None:
    page = harness.open("scenario=lobby")
    page.select_option("[data-testid=private-bots]", "2")
    assert page.input_value("[data-testid=private-chat]") == "", "the server's rule by default"
    page.click("[data-testid=create-private]")
    page.wait_for_selector("[data-testid=invite-code]")
    assert "chat" not in page.evaluate("globalThis.created")[-1]
    assert page.text_content("[data-testid=invite-chat]") == "Chat: on"  # as the server answered
    page.select_option("[data-testid=private-chat]", "off")
    page.click("[data-testid=create-private]")
    page.wait_for_function(
        "document.querySelector('[data-testid=invite-chat]').textContent.includes('stamps')"
    )
    assert page.evaluate("globalThis.created")[-1]["chat"] == "off"
    assert page.text_content("[data-testid=invite-chat]") == "Chat: stamps only"


def test_an_invite_link_joins_its_table(harness: Harness) -> None:
    page = harness.open("scenario=lobby&invite=K7QF-M2XD")
    assert _sent(page, "join") == [{"type": "join", "target": {"type": "private", "code": "K7QF-M2XD"}}]
    assert page.input_value("[data-testid=private-code]") == "K7QF-M2XD"


def test_leftover_riichi_sticks_agree_in_the_last_hand_and_the_standings(harness: Harness) -> None:
    page = harness.open("scenario=leftover")
    result = page.evaluate("jantaku.matchEnd.result")
    top = result["ranks"].index(1)
    final = f"{result['scores'][top]:,}"
    assert page.text_content(f"[data-testid=score-after-{top}]") == final
    assert "sticks" in (page.text_content(f"[data-testid=sticks-{top}]") or "")
    assert "riichi sticks left on the table" in (page.text_content("[data-testid=leftover-sticks]") or "")
    for seat in range(4):
        assert page.text_content(f"[data-testid=score-after-{seat}]") == f"{result['scores'][seat]:,}"


def test_a_tab_replaced_by_another_stops_and_offers_to_play_here(harness: Harness) -> None:
    page = harness.open("scenario=start")
    page.evaluate("jantaku.onStatus('replaced', 'replaced by a newer connection of the same player')")
    assert _visible(page, "play-here")
    assert page.text_content("[data-testid=conn-status]") == "playing elsewhere"
    assert page.locator("[data-testid=hand-tile][data-legal=true]").count() == 0
    page.click("[data-testid=play-here]")
    assert _sent(page, "take_over") == [{"type": "take_over"}]
    assert not _visible(page, "play-here")


# ---- toggles: what they make the page send ------------------------------------------------------


def test_after_riichi_the_drawn_tile_is_discarded_at_once(harness: Harness) -> None:
    page = harness.open("scenario=riichi-draw")
    (act,) = _sent(page)
    assert act["action"]["type"] == "discard" and act["action"]["tsumogiri"] is True


def test_tsumogiri_toggle_discards_the_drawn_tile_at_once(harness: Harness) -> None:
    assert _sent(harness.open("scenario=start")) == []
    page = harness.open("scenario=start&prefs=tsumogiri")
    (act,) = _sent(page)
    drawn = page.evaluate("jantaku.match.tracker.view().seats[0].drawn")
    assert act["action"] == {"type": "discard", "tile": drawn, "tsumogiri": True}


def test_no_calls_toggle_passes(harness: Harness) -> None:
    assert _sent(harness.open("scenario=pon")) == []
    page = harness.open("scenario=pon&prefs=noCalls")
    (act,) = _sent(page)
    assert act["action"] == {"type": "pass"}


def test_auto_win_toggle_declares_the_win(harness: Harness) -> None:
    assert _sent(harness.open("scenario=win-offer")) == []
    page = harness.open("scenario=win-offer&prefs=autoWin")
    (act,) = _sent(page)
    assert act["action"]["type"] in ("ron", "tsumo")


def test_switching_a_toggle_on_answers_the_open_decision_and_is_kept(harness: Harness) -> None:
    page = harness.open("scenario=pon")
    assert page.get_attribute("[data-testid=toggle-noCalls]", "aria-pressed") == "false"
    page.click("[data-testid=toggle-noCalls]")
    (act,) = _sent(page)
    assert act["action"] == {"type": "pass"}
    assert page.get_attribute("[data-testid=toggle-noCalls]", "aria-pressed") == "true"
    assert page.evaluate("jantaku.storage.getItem('jantaku.pref.noCalls')") == "1"


# ---- sounds, animations, dora, hints, live tables -------------------------------------------------


DISCARD = (
    "([tile, v]) => harness.deliver({type: 'event', match_id: 'm-demo', version: v + 1, "
    "event: {type: 'tile_discarded', seat: 0, tile, tsumogiri: true, riichi: false}})"
)


def _discard_drawn(page: Any) -> None:
    """The server's event for the page's own tsumogiri."""
    drawn = page.evaluate("jantaku.match.tracker.view().seats[0].drawn")
    page.evaluate(DISCARD, [drawn, page.evaluate("jantaku.match.tracker.version")])


def test_sounds_play_for_table_events_unless_muted(harness: Harness) -> None:
    page = harness.open("scenario=start&prefs=sound")
    assert page.evaluate("jantaku.sounds.played") == [], "catching up on a burst of events is silent"
    _discard_drawn(page)
    assert page.evaluate("jantaku.sounds.played") == ["discard"]
    page.click("[data-testid=toggle-sound]")
    assert page.evaluate("jantaku.storage.getItem('jantaku.pref.sound')") == "0"
    page.evaluate("jantaku.sounds.play('win')")
    assert page.evaluate("jantaku.sounds.played") == ["discard"]
    muted = harness.open("scenario=start")
    _discard_drawn(muted)
    assert muted.evaluate("jantaku.sounds.played") == []


def test_the_newest_discard_slides_in_unless_motion_is_reduced(harness: Harness) -> None:
    page = harness.open("scenario=start&elapsed=100")
    _discard_drawn(page)
    fresh = page.locator("[data-testid=river-0] .tile.fresh")
    assert fresh.count() == 1
    assert fresh.evaluate("e => getComputedStyle(e).animationName") == "discard-in"
    still = harness.open("scenario=discard", reduced_motion="reduce")
    for node in still.locator(".tile.fresh, .meld.fresh").all():
        assert node.evaluate("e => getComputedStyle(e).animationName") == "none"


SUITS = "mpsz"


def _dora_of(indicator: str) -> str:
    n, suit = int(indicator[0]) or 5, indicator[1]
    if suit == "z":
        return f"{n % 4 + 1}z" if n <= 4 else f"{(n - 4) % 3 + 5}z"
    return f"{n % 9 + 1}{suit}"


def _kind(tile: str) -> str:
    return "5" + tile[1] if tile[0] == "0" else tile


def test_dora_are_marked_in_the_hand_and_the_melds(harness: Harness) -> None:
    for scenario in ("discard", "kan", "chi", "riichi", "start"):
        page = harness.open(f"scenario={scenario}&close=1")
        indicators = page.evaluate("jantaku.match.tracker.view().dora_indicators")
        dora = {_dora_of(i) for i in indicators}
        hand = page.eval_on_selector_all(
            "[data-testid=hand-tile]",
            "els => els.map(e => [e.dataset.tile, e.querySelector('.tile').classList.contains('is-dora')])",
        )
        assert hand
        for tile, marked in hand:
            assert marked == (_kind(tile) in dora), (scenario, tile, indicators)
        melds = page.eval_on_selector_all(
            "[data-testid=board] .meld .tile:not([data-tile=back]), [data-testid=my-meld] .tile",
            "els => els.map(e => [e.dataset.tile, e.classList.contains('is-dora')])",
        )
        for tile, marked in melds:
            assert marked == (_kind(tile) in dora), (scenario, tile, indicators)


def test_waits_and_furiten_come_from_the_prompts_hints(harness: Harness) -> None:
    page = harness.open("scenario=discard&hints=1")
    waits = page.eval_on_selector_all(
        "[data-testid=wait]", "els => els.map(e => [e.dataset.tile, Number(e.dataset.left)])"
    )
    assert waits == [["3m", 2], ["6m", 0]]
    assert page.text_content("[data-testid=waits-left]") == "2 left"
    assert _visible(page, "furiten")
    plain = harness.open("scenario=discard")
    assert not _visible(plain, "waits"), "no hints, nothing made up"


def test_live_tables_list_and_watch(harness: Harness) -> None:
    page = harness.open("scenario=lobby&live=list")
    rows = page.locator("[data-testid=live-table]")
    assert rows.count() == 2
    assert "South 3" in (rows.nth(0).text_content() or "")
    assert "3 watching" in (rows.nth(0).text_content() or "")
    rows.nth(0).locator("[data-testid=watch-table]").click()
    assert _sent(page, "join") == [{"type": "join", "target": {"type": "spectate", "match_id": "m-live-1"}}]
    absent = harness.open("scenario=lobby&live=none")
    assert not _visible(absent, "live-tables"), "a hub without the list (404) shows no section"


# ---- the phone ----------------------------------------------------------------------------------


def _shot(page: Any, name: str) -> None:
    """With JANTAKU_SCREENSHOTS_DIR set (e.g. docs/screenshots), save the page there."""
    out = os.environ.get("JANTAKU_SCREENSHOTS_DIR")
    if out:
        os.makedirs(out, exist_ok=True)
        page.screenshot(path=os.path.join(out, name))


def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return dict(box)


def _inside(box: dict[str, float], width: int = PHONE["width"], height: int = PHONE["height"]) -> bool:
    eps = 0.5
    return (
        box["x"] >= -eps
        and box["y"] >= -eps
        and box["x"] + box["width"] <= width + eps
        and box["y"] + box["height"] <= height + eps
    )


def _all_inside(page: Any, selector: str) -> None:
    nodes = page.locator(selector).all()
    assert nodes, selector
    for node in nodes:
        if node.is_visible():
            box = node.bounding_box()
            assert box is not None and _inside(box), (selector, box)


@pytest.mark.parametrize("scenario", ["discard", "pon", "riichi&press=riichi", "spectator"])
def test_phone_table_fits(harness: Harness, scenario: str) -> None:
    page = harness.open(f"scenario={scenario}&close=1", viewport=PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    _all_inside(page, ".topbar > *, .topbar-actions button")
    for button in page.locator(".topbar-actions button").all():
        if button.is_visible():
            box = button.bounding_box()
            assert box is not None and box["height"] < 40, "header buttons stay on one line"
    _all_inside(page, "[data-testid=board]")
    if "spectator" not in scenario:
        _all_inside(
            page, "[data-testid=hand-tile], [data-testid=toggles] button, [data-testid=actions] button"
        )
        tile = _box(page, "[data-testid=hand-tile]")
        assert tile["height"] >= 44, "hand tiles are comfortable to tap"
        assert tile["width"] >= 40, "hand tiles are at least 40 px wide (two rows of seven)"
        # the table uses the whole height: the toggles end at the bottom of the screen, and the
        # actions sit in the lower half, where the thumbs are
        toggles = _box(page, "[data-testid=toggles]")
        assert toggles["y"] + toggles["height"] >= PHONE["height"] - 24, toggles
        for button in page.locator("[data-testid=actions] button").all():
            box = button.bounding_box()
            assert box is not None and box["y"] >= PHONE["height"] / 2, box
    if scenario == "discard":
        _shot(page, "phone-table.png")


@pytest.mark.parametrize("scenario", ["win", "draw", "leftover", "end"])
def test_phone_result_shows_four_score_changes_without_scrolling(harness: Harness, scenario: str) -> None:
    page = harness.open(f"scenario={scenario}&elapsed=3000", viewport=PHONE)  # the call-out is over
    card = page.locator(".result-card")
    assert card.evaluate("e => e.scrollHeight <= e.clientHeight + 1"), "the result card needs scrolling"
    for seat in range(4):
        box = _box(page, f"[data-testid=result-dialog] [data-testid=delta-{seat}]")
        assert _inside(box), (seat, box)
    _all_inside(page, "[data-testid=result-dialog] .tile")
    _all_inside(page, "[data-testid=result-dialog] button")
    if scenario == "win":
        _shot(page, "phone-result.png")
