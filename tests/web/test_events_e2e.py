"""An event end to end in Debian's Chromium (docs/tournaments.md): an administrator grants the
organizer role on the admin page; the organizer creates an event for 8 entrants on the events page
(a browser player, a protocol client and six built-in bots), runs two rounds with duplicate walls,
pauses and resumes the browser player's table (its clock stands still, the player sees it), sends
notices (the browser player, on the game page, is shown the second at once), applies
a penalty and closes the event; the final standings page agrees with the stored games
(``jantaku admin events rebuild --check``) and the revealed seeds verify against the commitments.

``jantaku serve`` on free ports (SQLite in a temporary directory); the matches are short (east only,
1,000 starting points, so that nearly every hand busts someone) and the bots act at once. Skipped
without Playwright or Chromium, like tests/web/test_e2e.py. With ``JANTAKU_SCREENSHOTS_DIR`` set the
run saves ``event-*.png`` there (desktop and the 390x844 phone layout).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from client_protocol.client import Client
from client_protocol.errors import RequestRejectedError
from client_protocol.messages import MatchEnd, Prompt, SessionAuth
from server.engine.rules import PRESETS, GameLength, Ruleset
from server.tournament.duplicate import PublishedSet, check_reveal
from tests.web.serving import ROOT, register, running_server
from tests.web.test_e2e import CHROMIUM, _play_one_decision, _shots, _watch_errors, pytestmark

__all__ = ["pytestmark"]

QUICK = dataclasses.replace(
    PRESETS["tenhou"],
    name="quick",
    game_length=GameLength.EAST,
    start_points=1000,
    return_points=1000,
    tobi_below=1,
    sudden_death=False,
)
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str, str]]:
    """(the page's URL, the API's base URL, the data directory, an administrator's token) of a
    running ``jantaku serve``."""
    data = tmp_path_factory.mktemp("events")
    made = _cli(str(data), "admin", "create-admin", "root")  # (before the server: one migration)
    assert made.returncode == 0, made.stderr
    flags = ["--bot-delay-ms", "0", "--hand-pause-ms", "200", "--action-ms", "8000", "--bank-ms", "5000"]
    with running_server(data, *flags) as running:
        yield running.page_base.rstrip("/"), running.api, str(data), made.stdout.strip().split()[-1]


def _cli(data: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.app", *args, "--data-dir", data],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _register(api: str, name: str) -> tuple[str, str]:
    """(account id, session token) of a new player."""
    token = register(api, name)
    me = httpx.get(f"{api}/api/accounts/me", headers={"Authorization": f"Bearer {token}"}).json()
    return me["account"]["id"], token


def _event(api: str, event_id: str) -> dict[str, Any]:
    r = httpx.get(f"{api}/api/events/{event_id}")
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def _my_match(event: dict[str, Any], number: int, entrant: str) -> str | None:
    """The match id of ``entrant``'s table in round ``number``, once it runs."""
    for r in event["rounds"]:
        if r["number"] == number and r["status"] == "running":
            for t in r["tables"]:
                if entrant in t["entrants"]:
                    return str(t["match_id"])
    return None


async def _protocol_entrant(
    ws: str, api: str, event_id: str, *, me: str, token: str, ends: list[MatchEnd]
) -> None:
    """An entrant playing through the Python client: for each round, find its table in the event's
    view, take the seat with ``resume`` and play the first legal action of every prompt."""
    for number in (1, 2):
        match_id = None
        while match_id is None:
            event = await asyncio.to_thread(_event, api, event_id)
            match_id = _my_match(event, number, me)
            if match_id is None:
                await asyncio.sleep(0.3)
        client = await Client.connect(ws, SessionAuth(session_token=token))
        try:
            await client.resume(match_id, 0)
            async for message in client:
                if isinstance(message, Prompt) and message.match_id == match_id:
                    with contextlib.suppress(RequestRejectedError):  # a newer prompt follows
                        await client.act(message.legal_actions[0], step=message.step)
                elif isinstance(message, MatchEnd) and message.match_id == match_id:
                    ends.append(message)
                    break
        finally:
            await client.close()


def _play_to_the_end(page: Any, api: Any) -> dict[str, int]:
    state = {"wins": 0, "riichi": 0, "calls": 0, "passes": 0, "discards": 0}
    deadline = time.monotonic() + 120
    while not page.is_visible("[data-testid=match-end]") and time.monotonic() < deadline:
        try:
            _play_one_decision(page, state)
        except api.Error:
            continue  # the page moved on under the click
    assert page.is_visible("[data-testid=match-end]"), state
    return state


def test_an_organizer_runs_an_event_from_the_pages(server: tuple[str, str, str, str]) -> None:
    url, api_base, data, admin_token = server
    ws = url.replace("http://", "ws://") + "/ws"
    with ThreadPoolExecutor(3) as pool:  # (each hashes a password: at once, not one after another)
        registered = list(pool.map(lambda name: _register(api_base, name), ("organizer", "pat", "clio")))
    (_, org_token), (pat_id, pat_token), (cli_id, cli_token) = registered
    events_url = f"{url}/static/events.html?api={api_base}"
    shots = _shots()

    pw: Any = importlib.import_module("playwright.sync_api")
    with pw.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])

        def context(token: str | None, viewport: dict[str, int] | None = None) -> Any:
            ctx = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
            if token:
                ctx.add_init_script(f"localStorage.setItem('jantaku.session_token', {json.dumps(token)})")
            page = ctx.new_page()
            _watch_errors(page)
            page.set_default_timeout(10000)
            return page

        # 1. The administrator grants the organizer role on the admin page (audited, with a reason).
        admin = context(None)
        admin.goto(f"{api_base}/admin/#/organizers")
        admin.fill("[data-testid=token-input]", admin_token)
        admin.click("[data-testid=token-save]")
        admin.fill("[data-testid=organizer-name]", "organizer")
        admin.fill("[data-testid=organizer-reason]", "runs the club nights")
        admin.click("[data-testid=organizer-grant]")
        admin.wait_for_selector("[data-testid=organizers] >> text=organizer")
        assert "runs the club nights" in (admin.text_content("[data-testid=organizer-log]") or "")
        if shots:
            admin.screenshot(path=str(shots / "admin-organizers.png"))

        # 2. The organizer creates the event on the events page.
        org = context(org_token)
        org.goto(events_url)
        org.wait_for_selector("[data-testid=create-form]")
        org.fill("[data-testid=create-name]", "Club night <b>8</b>")  # shown as text, never markup
        org.fill("[data-testid=create-rounds]", "2")
        org.select_option("[data-testid=create-duplicate]", "round")
        org.fill("[data-testid=create-description]", "Two rounds, duplicate walls.")
        extra = {"ruleset_json": json.loads(QUICK.to_json()), "spectate_delay_s": 0}
        org.fill("[data-testid=create-extra]", json.dumps(extra))
        org.click("[data-testid=create-event]")
        org.wait_for_selector("[data-testid=organizer-panel] [data-testid=org-add-bots]")
        event_id = re.search(r"event=(ev-[\w-]+)", org.url).group(1)  # type: ignore[union-attr]
        assert org.text_content("[data-testid=event-name]") == "Club night <b>8</b>"
        assert org.locator("[data-testid=event-name] b").count() == 0

        # 3. Entrants: the browser player enters on the page, the protocol client over the API,
        # and the organizer adds six built-in bots.
        pat = context(pat_token)
        pat.goto(f"{events_url}&event={event_id}")
        pat.click("[data-testid=enter]")
        pat.wait_for_selector("[data-testid=my-entry]:has-text('You are entered')")
        r = httpx.post(f"{api_base}/api/events/{event_id}/entry", headers=_auth(cli_token))
        assert r.status_code == 200, r.text
        org.fill("[data-testid=org-bots]", "6")
        org.click("[data-testid=org-add-bots]")
        org.wait_for_selector("[data-testid=org-entrants] >> text=greedy", timeout=10000)
        assert len(_event(api_base, event_id)["entrants"]) == 8

        ends: list[MatchEnd] = []

        def protocol() -> None:
            async def go() -> None:
                async with asyncio.timeout(300):
                    await _protocol_entrant(ws, api_base, event_id, me=cli_id, token=cli_token, ends=ends)

            asyncio.run(go())

        thread = threading.Thread(target=protocol, daemon=True)
        thread.start()

        for number in (1, 2):
            # 4. A notice to every entrant; seat and start the round on the organizer's panel.
            org.fill("[data-testid=org-notice]", f"Round {number} starts now <script>")
            org.click("[data-testid=org-send-notice]")
            org.wait_for_selector(f"[data-testid=event-notices] >> text=Round {number} starts now <script>")
            if number == 2:  # the browser player, on the game page since round 1, is told at once
                pat.wait_for_selector(
                    "[data-testid=toast] >> text=Round 2 starts now <script>", timeout=10000
                )
                assert pat.locator("[data-testid=toast] script").count() == 0  # text, never markup
            org.click("[data-testid=org-seat]")
            org.wait_for_selector("[data-testid=org-start]")
            org.click("[data-testid=org-start]")
            org.wait_for_selector("[data-testid=org-tables]")
            event = _event(api_base, event_id)
            rnd = event["rounds"][number - 1]
            assert len(rnd["tables"]) == 2 and len(rnd["sets"]) == 1  # one wall set: duplicate walls
            table = next(t["index"] for t in rnd["tables"] if pat_id in t["entrants"])

            # 5. The browser player joins their seat from their event page.
            pat.goto(f"{events_url}&event={event_id}")
            pat.click("[data-testid=join-seat]")
            pat.wait_for_selector("[data-testid=board] .center", timeout=15000)
            if number == 1:
                # 6. Pause the player's table while it waits for them (the page does not play
                # yet): they are told, and their clock stands still.
                pat.wait_for_selector("[data-testid=time-left]", timeout=15000)
                org.fill("[data-testid=org-reason]", "a spilled drink")
                org.click(f"[data-testid=pause-{table}]")
                pat.wait_for_selector("[data-testid=paused-banner]:has-text('a spilled drink')")
                before = pat.text_content("[data-testid=time-left]")
                pat.wait_for_timeout(1500)
                assert pat.text_content("[data-testid=time-left]") == before  # the clock stands still
                if shots:
                    pat.screenshot(path=str(shots / "event-table-paused.png"))
                    org.screenshot(path=str(shots / "event-organizer.png"), full_page=True)
                # a visitor watches that table from the public page (spectators allowed, no delay)
                visitor = context(None)
                visitor.goto(f"{events_url}&event={event_id}")
                visitor.click(f"[data-testid=watch-{table}]")
                visitor.wait_for_selector("[data-testid=board] .center", timeout=15000)
                visitor.wait_for_selector("[data-testid=stop-watching]")  # as a spectator
                org.click(f"[data-testid=resume-{table}]")
                # From here the page plays for the player (its comforts: auto-win, no calls,
                # tsumogiri; kept for round 2), which keeps the test short.
                for toggle in ("autoWin", "noCalls", "tsumogiri"):
                    pat.click(f"[data-testid=toggle-{toggle}]")
            _play_to_the_end(pat, pw)

            # 7. Every table over (the page shows it): finish the round.
            org.wait_for_selector(f"[data-testid=org-finish]:has-text('Finish round {number}')")
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                standings = httpx.get(f"{api_base}/api/events/{event_id}/standings").json()
                if sum(s["games"] for s in standings) == 8 * number:
                    break
                time.sleep(0.3)
            if number == 2:
                # 8. A penalty, with a reason.
                org.select_option("[data-testid=org-entrant]", pat_id)
                org.fill("[data-testid=org-amount]", "-50")
                org.fill("[data-testid=org-reason]", "late for round 2")
                org.click("[data-testid=org-adjust]")
                org.wait_for_selector("[data-testid=events-status]:has-text('done: adjust')")
            org.click("[data-testid=org-finish]")
            org.wait_for_selector(f"[data-testid=round-{number}] >> text=Round {number} (finished)")

        thread.join(timeout=60)
        assert len(ends) == 2 and all(e.result is not None for e in ends)
        org.wait_for_selector("[data-testid=org-closed]")

        # 9. The final standings page (public: no one signed in) agrees with the stored games.
        public = context(None)
        public.goto(f"{events_url}&event={event_id}")
        public.wait_for_selector("text=Final standings")
        notices = public.text_content("[data-testid=event-notices]") or ""
        assert "Round 1 starts now <script>" in notices and "Round 2 starts now" in notices
        shown = public.eval_on_selector_all(
            "[data-testid=standing-row]",
            "rows => rows.map(r => [r.dataset.entrant, ...[...r.cells].map(c => c.textContent)])",
        )
        standings = httpx.get(f"{api_base}/api/events/{event_id}/standings").json()
        assert [row[0] for row in shown] == [s["name"] for s in standings]
        assert [row[3] for row in shown] == [s["shown"] for s in standings]
        assert all(s["games"] == 2 for s in standings)
        mine = next(s for s in standings if s["name"] == pat_id)
        assert mine["adjustments"] == -50
        assert next(row for row in shown if row[0] == pat_id)[-1] == "-5.0"  # the penalty, in points
        check = _cli(data, "admin", "events", "rebuild", event_id, "--check")
        assert check.returncode == 0, check.stdout + check.stderr
        # duplicate walls: both tables of a round played one set, its seed revealed and verified
        event = _event(api_base, event_id)
        ruleset = Ruleset.from_json(json.dumps(event["settings"]["ruleset"]))
        for r in event["rounds"]:
            (wall_set,) = r["sets"]
            assert sorted(wall_set["tables"]) == [0, 1] and wall_set["seed_hex"]
            published = PublishedSet(
                wall_set["set_id"],
                tuple(wall_set["tables"]),
                wall_set["seed_commitment"],
                tuple(wall_set["wall_commitments"]),
            )
            assert check_reveal(published, bytes.fromhex(wall_set["seed_hex"]), ruleset) == []
        log = httpx.get(f"{api_base}/api/events/{event_id}/log", headers=_auth(org_token))
        actions = [(a["action"], a["reason"]) for a in log.json()]
        assert ("pause", "a spilled drink") in actions and ("adjust", "late for round 2") in actions
        # the entrant's page, on a phone: their final place
        phone = context(pat_token, PHONE)
        phone.goto(f"{events_url}&event={event_id}")
        phone.wait_for_selector("text=Final standings")
        rank = next(s["rank"] for s in standings if s["name"] == pat_id)
        assert f"Final place: {rank} of 8" in (phone.text_content("[data-testid=my-standing]") or "")
        if shots:
            public.screenshot(path=str(shots / "event-standings.png"), full_page=True)
            phone.screenshot(path=str(shots / "event-phone.png"), full_page=True)
        for page in (admin, org, pat, visitor, public, phone):
            assert not page.errors, page.errors
        browser.close()
