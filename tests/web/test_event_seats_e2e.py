"""The organizer's seat tools in Debian's Chromium (docs/tournaments.md, "The events pages"): on an
event's page the organizer sets an entrant's start points (and puts another's back to the ruleset's),
seats the round, locks a seat (a substitute for it is refused, the refusal shown, nothing changed)
and unlocks it, starts the round, seats built-in bots as substitutes for two absent players at the
running table (the stand-ins shown), and once the game has ended downloads the event's archive;
after each step the API must say what the page did.

``jantaku serve`` on free ports (SQLite in a temporary directory), one table of four: two
registered players who never connect and two built-in bots; the match is short (east only, 1,000
starting points). Skipped without Playwright or Chromium, like tests/web/test_e2e.py. With
``JANTAKU_SCREENSHOTS_DIR`` set the run saves ``event-seats.png`` and ``event-seats-phone.png``
(the 390x844 phone layout) there.
"""

from __future__ import annotations

import importlib
import io
import json
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.serving import running_server
from tests.web.test_e2e import CHROMIUM, _shots, _watch_errors, pytestmark
from tests.web.test_events_e2e import PHONE, QUICK, _auth, _cli, _event, _register

__all__ = ["pytestmark"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    """(the page's URL, the API's base URL, an administrator's token) of a running ``jantaku serve``."""
    data = tmp_path_factory.mktemp("event-seats")
    made = _cli(str(data), "admin", "create-admin", "root")  # (before the server: one migration)
    assert made.returncode == 0, made.stderr
    flags = ["--bot-delay-ms", "0", "--hand-pause-ms", "200", "--action-ms", "8000", "--bank-ms", "5000"]
    with running_server(data, *flags) as running:
        yield running.page_base.rstrip("/"), running.api, made.stdout.strip().split()[-1]


def _table(api: str, event_id: str) -> dict[str, Any]:
    """The only table of the event's only round."""
    (rnd,) = _event(api, event_id)["rounds"]
    (table,) = rnd["tables"]
    return dict(table)


def _entrant(api: str, event_id: str, entrant: str) -> dict[str, Any]:
    return dict(next(e for e in _event(api, event_id)["entrants"] if e["id"] == entrant))


def _organized(api: str, admin_token: str, organizer: str, **settings: Any) -> tuple[str, str, str]:
    """(the organizer's account id and token, the event's id) of a new event of ``settings``
    (QUICK rules) made by a new player ``organizer``, granted the role by the administrator."""
    org_id, org_token = _register(api, organizer)
    r = httpx.post(
        f"{api}/api/admin/organizers",
        json={"name": organizer, "reason": "runs a test night"},
        headers=_auth(admin_token),
    )
    assert r.status_code == 200, r.text
    body = {"ruleset_json": json.loads(QUICK.to_json())} | settings
    r = httpx.post(f"{api}/api/events", json=body, headers=_auth(org_token))
    assert r.status_code == 201, r.text
    return org_id, org_token, str(r.json()["id"])


def test_an_organizer_locks_substitutes_sets_start_points_and_downloads_the_archive(
    server: tuple[str, str, str], tmp_path: Path
) -> None:
    url, api, admin_token = server
    org_id, org_token, event_id = _organized(api, admin_token, "director", name="Seats night", rounds=1)
    pat_id, pat_token = _register(api, "pat")
    sam_id, sam_token = _register(api, "sam")
    for token in (pat_token, sam_token):
        r = httpx.post(f"{api}/api/events/{event_id}/entry", headers=_auth(token))
        assert r.status_code == 200, r.text
    r = httpx.post(f"{api}/api/events/{event_id}/bots", json={"count": 2}, headers=_auth(org_token))
    assert r.status_code == 200, r.text
    shots = _shots()

    pw: Any = importlib.import_module("playwright.sync_api")
    with pw.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
        ctx.add_init_script(f"localStorage.setItem('jantaku.session_token', {json.dumps(org_token)})")
        org = ctx.new_page()
        _watch_errors(org)
        org.set_default_timeout(10000)
        org.goto(f"{url}/static/events.html?api={api}&event={event_id}")
        org.wait_for_selector("[data-testid=org-set-start-points]")

        def status(kind: str, text: str) -> None:
            org.wait_for_selector(
                f"[data-testid=events-status][data-kind={kind}]:has-text({json.dumps(text)})"
            )

        # 1. Start points, before the round's tables are made: pat's own, sam's set and put back.
        org.fill("[data-testid=org-reason]", "the league leader's head start")
        org.select_option("[data-testid=org-sp-entrant]", pat_id)
        org.fill("[data-testid=org-start-points]", "2000")
        org.click("[data-testid=org-set-start-points]")
        org.wait_for_selector(f"[data-testid=start-points-{pat_id}]:has-text('2000')")
        assert _entrant(api, event_id, pat_id)["start_points"] == 2000
        org.select_option("[data-testid=org-sp-entrant]", sam_id)
        org.fill("[data-testid=org-start-points]", "1500")
        org.click("[data-testid=org-set-start-points]")
        org.wait_for_selector(f"[data-testid=start-points-{sam_id}]:has-text('1500')")
        org.select_option("[data-testid=org-sp-entrant]", sam_id)
        org.click("[data-testid=org-set-start-points]")  # empty: the ruleset's again
        org.wait_for_selector(f"[data-testid=start-points-{sam_id}]", state="detached")
        assert _entrant(api, event_id, sam_id)["start_points"] is None
        # a value the API refuses is shown as its error, and changes nothing
        org.select_option("[data-testid=org-sp-entrant]", pat_id)
        org.fill("[data-testid=org-start-points]", "2050")
        org.click("[data-testid=org-set-start-points]")
        status("error", "multiple of 100")
        assert _entrant(api, event_id, pat_id)["start_points"] == 2000

        # 2. Seat the round; lock pat's seat; a substitute for it is refused; unlock it.
        org.click("[data-testid=org-seat]")
        org.wait_for_selector("[data-testid=org-seats]")
        table = _table(api, event_id)
        pat_seat, sam_seat = table["entrants"].index(pat_id), table["entrants"].index(sam_id)
        pat_cell = f"0-{pat_seat}"
        org.fill("[data-testid=org-reason]", "a dispute about pat's entry")
        org.click(f"[data-testid=lock-{pat_cell}]")
        org.wait_for_selector(f"[data-testid=locked-{pat_cell}]")
        assert _table(api, event_id)["locked"] == [pat_seat]
        org.fill(f"[data-testid=org-sub-{pat_cell}]", "bot:greedy")
        org.click(f"[data-testid=substitute-{pat_cell}]")
        status("error", "is locked: unlock it first")
        assert _table(api, event_id)["stand_ins"] == []
        if shots:
            org.screenshot(path=str(shots / "event-seats.png"), full_page=True)
        assert org.text_content(f"[data-testid=lock-{pat_cell}]") == "Unlock"
        org.click(f"[data-testid=lock-{pat_cell}]")
        org.wait_for_selector(f"[data-testid=locked-{pat_cell}]", state="detached")
        assert _table(api, event_id)["locked"] == []
        # a built-in bot entrant's seat offers no substitute
        bot_seat = next(s for s in range(4) if s not in (pat_seat, sam_seat))
        assert org.locator(f"[data-testid=substitute-0-{bot_seat}]").count() == 0

        # 3. Start the round: pat and sam never come; built-in bots play their seats from here.
        org.click("[data-testid=org-start]")
        org.wait_for_selector("[data-testid=org-tables]")
        started = _table(api, event_id)
        assert started["start_scores"][pat_seat] == 2000 and started["start_scores"][sam_seat] == 1000
        org.fill("[data-testid=org-reason]", "pat did not come")
        org.fill(f"[data-testid=org-sub-{pat_cell}]", "bot:greedy")
        org.click(f"[data-testid=substitute-{pat_cell}]")
        org.wait_for_selector(f"[data-testid=stand-ins-{pat_cell}]:has-text('bot greedy, ')")
        org.fill("[data-testid=org-reason]", "sam did not come")
        org.fill(f"[data-testid=org-sub-0-{sam_seat}]", "bot:random")
        org.click(f"[data-testid=substitute-0-{sam_seat}]")
        org.wait_for_selector(f"[data-testid=stand-ins-0-{sam_seat}]:has-text('bot random, ')")
        stood = _table(api, event_id)
        assert sorted(stood["substitutes"]) == sorted([pat_seat, sam_seat])
        by_seat = {s["seat"]: s for s in stood["stand_ins"]}
        assert by_seat[pat_seat]["by"].startswith("bot:greedy:") and by_seat[sam_seat]["by"].startswith(
            "bot:random:"
        )
        assert all(s["from_step"] is not None for s in stood["stand_ins"])  # at the running table
        shown = org.text_content(f"[data-testid=stand-ins-{pat_cell}]")
        assert shown == f"bot greedy, after step {by_seat[pat_seat]['from_step']}"
        # what the page refuses is what the API refuses: an entrant already seated in the round
        org.fill(f"[data-testid=org-sub-{pat_cell}]", sam_id)
        org.click(f"[data-testid=substitute-{pat_cell}]")
        status("error", "already sits in this round")
        assert len(_table(api, event_id)["stand_ins"]) == 2

        # 4. The game ends (four bots now): the archive is offered; what it downloads is the API's.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            standings = httpx.get(f"{api}/api/events/{event_id}/standings").json()
            if sum(s["games"] for s in standings) == 4:
                break
            time.sleep(0.3)
        assert sum(s["games"] for s in standings) == 4
        org.wait_for_selector("[data-testid=org-archive]", timeout=15000)  # (the page refreshes itself)
        if shots:
            phone = browser.new_context(viewport=PHONE)
            phone.add_init_script(f"localStorage.setItem('jantaku.session_token', {json.dumps(org_token)})")
            small = phone.new_page()
            _watch_errors(small)
            small.goto(f"{url}/static/events.html?api={api}&event={event_id}")
            small.wait_for_selector("[data-testid=org-archive]")
            small.screenshot(path=str(shots / "event-seats-phone.png"), full_page=True)
            assert not small.errors, small.errors
        with org.expect_download() as download:
            org.click("[data-testid=org-archive]")
        assert download.value.suggested_filename == f"{event_id}.zip"
        saved = tmp_path / "archive.zip"
        download.value.save_as(saved)
        status("ok", f"the archive {event_id}.zip")
        archive = saved.read_bytes()
        r = httpx.get(f"{api}/api/events/{event_id}/export", headers=_auth(org_token))
        assert r.status_code == 200 and r.content == archive  # the same stored event, byte for byte
        with zipfile.ZipFile(io.BytesIO(archive)) as z:
            files = z.namelist()
            stored = json.loads(z.read("event.json"))
        match_id = started["match_id"]
        for ending in ("tenhou6.json", "mjai.jsonl", "moves.json"):  # moves: a substitute played
            assert f"games/r1-t0-{match_id}.{ending}" in files, files
        assert {"standings.csv", "standings.json", "event.json"} <= set(files)
        assert next(e for e in stored["entrants"] if e["id"] == pat_id)["start_points"] == 2000

        # 5. Every action is in the audit log, with the reason typed on the page.
        log = httpx.get(f"{api}/api/events/{event_id}/log", headers=_auth(org_token)).json()
        actions = [(a["action"], a["reason"]) for a in log if a["actor"] == org_id]
        for done in (
            ("start_points", "the league leader's head start"),
            ("lock_seat", "a dispute about pat's entry"),
            ("unlock_seat", "a dispute about pat's entry"),
            ("substitute", "pat did not come"),
            ("substitute", "sam did not come"),
        ):
            assert done in actions, actions
        assert [a for a, _ in actions].count("substitute") == 2  # the refused ones left no trace
        assert [a for a, _ in actions].count("start_points") == 3
        assert not org.errors, org.errors
        browser.close()


def test_an_organizer_checks_entrants_in_and_closes_the_event_early(server: tuple[str, str, str]) -> None:
    """An event with check-in: the organizer checks a player in and out and in again from the
    entrants list, seats round 1, and closes the event before it starts (asked once more; without a
    reason refused, nothing changed): the seated round is dropped and the panel says so."""
    url, api, admin_token = server
    _, org_token, event_id = _organized(
        api, admin_token, "closer", name="Short night", rounds=3, checkin=True
    )
    pat_id, pat_token = _register(api, "quinn")
    r = httpx.post(f"{api}/api/events/{event_id}/entry", headers=_auth(pat_token))
    assert r.status_code == 200, r.text
    r = httpx.post(f"{api}/api/events/{event_id}/bots", json={"count": 3}, headers=_auth(org_token))
    assert r.status_code == 200, r.text

    pw: Any = importlib.import_module("playwright.sync_api")
    with pw.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        ctx.add_init_script(f"localStorage.setItem('jantaku.session_token', {json.dumps(org_token)})")
        org = ctx.new_page()
        _watch_errors(org)
        org.set_default_timeout(10000)
        org.goto(f"{url}/static/events.html?api={api}&event={event_id}")
        org.wait_for_selector(f"[data-testid=checkin-{pat_id}]")

        def status(kind: str, text: str) -> None:
            org.wait_for_selector(
                f"[data-testid=events-status][data-kind={kind}]:has-text({json.dumps(text)})"
            )

        # 1. Check-in on quinn's behalf, out, and in again (each in the event's log).
        org.fill("[data-testid=org-reason]", "checked in at the desk")
        assert org.text_content(f"[data-testid=checkin-{pat_id}]") == "Check in"
        org.click(f"[data-testid=checkin-{pat_id}]")
        org.wait_for_selector(f"[data-testid=checkin-{pat_id}]:has-text('Check out')")
        assert _entrant(api, event_id, pat_id)["checked_in"] == [1]
        org.click(f"[data-testid=checkin-{pat_id}]")
        org.wait_for_selector(f"[data-testid=checkin-{pat_id}]:has-text('Check in')")
        assert _entrant(api, event_id, pat_id)["checked_in"] == []
        org.click(f"[data-testid=checkin-{pat_id}]")
        org.wait_for_selector(f"[data-testid=checkin-{pat_id}]:has-text('Check out')")

        # 2. Seat round 1: check-in closes for it (no button), the close button stays.
        org.click("[data-testid=org-seat]")
        org.wait_for_selector("[data-testid=org-start]")
        assert org.locator(f"[data-testid=checkin-{pat_id}]").count() == 0

        # 3. Close without a reason: refused, nothing changed; declined at the question: nothing sent.
        org.fill("[data-testid=org-reason]", "")
        org.once("dialog", lambda dialog: dialog.accept())
        org.click("[data-testid=org-close]")
        status("error", "invalid_request")
        assert _event(api, event_id)["status"] != "cancelled"
        org.fill("[data-testid=org-reason]", "the hall closes early")
        org.once("dialog", lambda dialog: dialog.dismiss())
        org.click("[data-testid=org-close]")
        org.wait_for_timeout(300)
        assert _event(api, event_id)["closed"] is None and len(_event(api, event_id)["rounds"]) == 1

        # 4. Close it: the seated round is dropped, no round was played: the event is cancelled.
        org.once("dialog", lambda dialog: dialog.accept())
        org.click("[data-testid=org-close]")
        org.wait_for_selector("[data-testid=org-closed]:has-text('closed before any round was played')")
        event = _event(api, event_id)
        assert event["status"] == "cancelled" and event["rounds"] == []
        assert event["closed"]["dropped_round"] == 1 and event["closed"]["rounds_played"] == 0
        log = httpx.get(f"{api}/api/events/{event_id}/log", headers=_auth(org_token)).json()
        assert [e["action"] for e in log if e["action"] in ("checkin_by_organizer", "close")] == [
            "checkin_by_organizer",
            "checkin_by_organizer",
            "checkin_by_organizer",
            "close",
        ]
        browser.close()
