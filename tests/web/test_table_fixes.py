"""What a player hit at the table (issue 29), in Debian's Chromium through Playwright on the offline
harness (tests/web/harness: the real page fed canned situations from tests/web/scenarios.py, what it
sends recorded in ``globalThis.sent``): the players' names after coming back without saved state,
the Leave table dialog, an exhaustive draw's melds, the X key when a tsumo is offered, the final
standings and the notices on laptop screens, the tsumogiri marks, the win call-out. One browser
serves the whole module (the Harness of tests/web/test_comforts.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.test_comforts import PHONE, Harness, _box, _sent, _shot, _visible, browser, pytestmark

__all__ = ["browser", "pytestmark"]

PLAYERS = [
    {"name": "alice", "kind": "guest"},
    {"name": "greedy-1", "kind": "bot"},
    {"name": "bob", "kind": "guest"},
    {"name": "greedy-3", "kind": "bot"},
]


@pytest.fixture
def harness(browser: tuple[Any, str]) -> Iterator[Harness]:
    h = Harness(browser)
    yield h
    h.close()


def _answer(dialog: Any, seen: list[str]) -> None:
    """Accept a confirm() dialog, keeping its question."""
    seen.append(dialog.message)
    dialog.accept()


def _names(page: Any) -> list[str]:
    return [page.text_content(f"[data-testid=player-{seat}] .p-name") or "" for seat in range(4)]


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_names_stay_after_leave_and_back_and_without_saved_state(harness: Harness) -> None:
    """Leave table, then Back to your seat; or a second browser (no saved state) that the welcome
    seats at a table: the side panel names the players, never "Seat 1".."Seat 4"."""
    page = harness.open("scenario=start")
    messages: list[str] = []
    page.once("dialog", lambda d: _answer(d, messages))
    page.click("[data-testid=leave]")
    assert _sent(page, "leave") == [{"type": "leave", "match_id": "m-demo"}]
    (question,) = messages
    assert "at once" in question and "time bank is kept" in question, question
    page.click("[data-testid=resume-seat]")
    assert _names(page)[:2] == ["alice", "greedy-1 bot"], _names(page)

    lobby = harness.open("scenario=lobby")
    welcome = {
        "type": "welcome",
        "player": {"id": "g-1", "name": "alice", "kind": "guest"},
        "session_token": "s-harness",
        "seats": [{"match_id": "m-other", "seat": 0, "last_request_id": 3, "players": PLAYERS}],
    }
    lobby.evaluate("w => jantaku.onWelcome(w)", welcome)
    assert _sent(lobby, "resume")[-1]["match_id"] == "m-other"
    assert _names(lobby) == ["alice", "greedy-1 bot", "bob", "greedy-3 bot"]


def test_an_exhaustive_draw_shows_the_tenpai_hands_with_their_melds(harness: Harness) -> None:
    page = harness.open("scenario=draw-melds")
    melds = page.locator("[data-testid=draw] [data-testid^=draw-hand-] [data-testid=meld]")
    assert melds.count() >= 1


def test_x_does_not_throw_away_a_tile_that_wins_by_tsumo(harness: Harness) -> None:
    page = harness.open("scenario=tsumo-offer")
    assert _visible(page, "action-tsumo")
    drawn = page.locator("[data-testid=hand-tile][data-drawn=true]")
    assert drawn.get_attribute("data-legal") == "true"  # a discard the server would take
    page.keyboard.press("x")
    assert _sent(page) == []
    page.keyboard.press("t")
    (act,) = _sent(page)
    assert act["action"]["type"] == "tsumo"


def test_the_final_standings_fit_a_1366x820_laptop(harness: Harness) -> None:
    page = harness.open("scenario=end", viewport={"width": 1366, "height": 820})
    card = page.locator(".result-card")
    assert card.evaluate("e => e.scrollHeight <= e.clientHeight + 1"), "the final screen needs scrolling"
    # the player's own game, finished: its replay on the table
    assert page.get_attribute("[data-testid=replay-this-game]", "href") == "/games/m-demo#h1s0"
    for rank in range(1, 5):
        row = page.locator(f"[data-testid=match-end] [data-testid=rank-{rank}]")
        box = row.bounding_box()
        assert box is not None
        # nothing covers the row: the point at its middle belongs to it
        selector = f"[data-testid=match-end] [data-testid=rank-{rank}]"
        inside = page.evaluate(
            "([x, y, sel]) => document.querySelector(sel).contains(document.elementFromPoint(x, y))",
            [box["x"] + 10, box["y"] + box["height"] / 2, selector],
        )
        assert inside, (rank, box)
        assert box["y"] + box["height"] <= 820


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 720}, PHONE], ids=["laptop", "phone"])
def test_the_played_for_notice_does_not_cover_the_drawn_tile(
    harness: Harness, viewport: dict[str, int]
) -> None:
    page = harness.open("scenario=start", viewport=viewport)
    page.evaluate(
        """() => harness.deliver({type: "played_for", match_id: "m-demo",
            moves: [{step: 3, action: {type: "discard", tile: "5m", tsumogiri: true}},
                    {step: 7, action: {type: "pass"}}]})"""
    )
    toast = _box(page, "[data-testid=toast]")
    assert "While you were away" in (page.text_content("[data-testid=toast]") or "")
    covered = ("[data-testid=hand-tile][data-drawn=true]", "[data-testid=hand]", "[data-testid=actions]")
    for selector in covered:
        assert not _overlap(toast, _box(page, selector)), selector


def test_a_replaced_page_does_not_claim_it_was_this_browser(harness: Harness) -> None:
    page = harness.open("scenario=start")
    page.evaluate("jantaku.onStatus('replaced', 'replaced by a newer connection of the same player')")
    text = page.text_content("[data-testid=replaced]") or ""
    assert "device" in text and "This browser opened" not in text, text


def test_tsumogiri_discards_are_clearly_darker(harness: Harness) -> None:
    page = harness.open("scenario=discard&close=1")
    thrown = page.locator(".river .tile.tsumogiri:not(.riichi-tile) svg").first
    kept = page.locator(".river .tile:not(.tsumogiri):not(.called):not(.riichi-tile) svg").first
    brightness = float(
        thrown.evaluate("e => /brightness\\(([\\d.]+)\\)/.exec(getComputedStyle(e).filter)[1]")
    )
    assert brightness <= 0.7
    assert kept.evaluate("e => getComputedStyle(e).filter") == "none"


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, PHONE], ids=["laptop", "phone"])
def test_a_win_calls_itself_out_briefly_and_can_be_skipped(
    harness: Harness, viewport: dict[str, int]
) -> None:
    page = harness.open("scenario=win", viewport=viewport)
    callout = page.locator("[data-testid=win-callout]")
    assert callout.is_visible()
    text = callout.text_content() or ""
    assert ("Tsumo" in text or "Ron" in text) and "alice" in text, text
    assert callout.evaluate("e => getComputedStyle(e).animationName") == "win-callout"
    callout.click()
    assert not _visible(page, "win-callout")
    assert _visible(page, "result-dialog")  # skipping it leaves the result to read
    later = harness.open("scenario=win&elapsed=3000")
    assert not _visible(later, "win-callout")  # it goes by itself
    still = harness.open("scenario=win", reduced_motion="reduce")
    animation = still.locator("[data-testid=win-callout]").evaluate("e => getComputedStyle(e).animationName")
    assert animation == "none"
    still.keyboard.press("Escape")
    assert not _visible(still, "win-callout") and _visible(still, "result-dialog")


LANDSCAPE = {"width": 844, "height": 390}


@pytest.mark.parametrize("scenario", ["discard", "riichi&press=riichi", "win", "end"])
def test_a_phone_held_sideways_shows_the_whole_table(harness: Harness, scenario: str) -> None:
    page = harness.open(f"scenario={scenario}&elapsed=3000", viewport=LANDSCAPE)
    assert page.evaluate("document.documentElement.scrollWidth") <= LANDSCAPE["width"]
    assert page.evaluate("document.documentElement.scrollHeight") <= LANDSCAPE["height"]
    selectors = "[data-testid=hand-tile], [data-testid=toggles] button, [data-testid=actions] button"
    if scenario in ("win", "end"):
        selectors = "[data-testid=result-dialog] button"
    for node in page.locator(f"{selectors}, [data-testid=board], .topbar-actions button").all():
        if node.is_visible():
            box = node.bounding_box()
            assert box is not None
            assert box["x"] >= -0.5 and box["x"] + box["width"] <= LANDSCAPE["width"] + 0.5, box
            assert box["y"] >= -0.5 and box["y"] + box["height"] <= LANDSCAPE["height"] + 0.5, box
    if scenario == "discard":
        _shot(page, "phone-landscape.png")


def test_a_spectator_who_saw_the_match_end_may_replay_it(harness: Harness) -> None:
    """A table that let spectators watch publishes its log once over (docs/ranking.md, "Who may
    read a game's log"): the spectator's final screen links to the replay, as a player's does."""
    page = harness.open("scenario=spectator-end")
    page.wait_for_selector("[data-testid=match-end]")
    assert page.get_attribute("[data-testid=replay-this-game]", "href") == "/games/m-demo#h1s0"
