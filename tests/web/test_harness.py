"""The real page, driven by canned scenarios (tests/web/harness), in headless Chromium.

No hub is involved: ``tests/web/harness/serve.py`` serves the page under the production headers
(CSP included) and a script that replays a scenario of :mod:`tests.web.scenarios` into the page's
controller. Each test loads one scenario, lets the page run, and checks the DOM it built and that the
browser reported no script error and no CSP violation.

Skipped when Chromium is not installed (Debian: ``apt-get install chromium``). With
``JANTAKU_SCREENSHOTS=DIR`` the run also saves screenshots at laptop (1280x800) and phone (390x844)
sizes into DIR.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.harness.serve import serving

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and os.environ.get("CI") == "true":
    raise RuntimeError("CI=true but Chromium is missing: make test installs it (scripts/ensure-browser.sh)")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)"
)

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
    "--virtual-time-budget=5000",
)


def _chromium(*args: str) -> tuple[str, str]:
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory() as profile:
        result = subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    return result.stdout, result.stderr


def _problems(stderr: str) -> list[str]:
    """Script errors and CSP violations the page reported on the console."""
    return [
        line
        for line in stderr.splitlines()
        if "CONSOLE" in line
        and re.search(r"Uncaught|Refused|Content Security Policy|Error", line)
        and "favicon" not in line
    ]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serving() as url:
        yield url


def _dom(base: str, query: str, size: str = "1280,800") -> str:
    stdout, stderr = _chromium(f"--window-size={size}", "--dump-dom", f"{base}/harness/table.html?{query}")
    assert not _problems(stderr), _problems(stderr)
    assert 'data-ready="1"' in stdout, stdout[-3000:] + stderr[-3000:]
    return stdout


def _count(dom: str, testid: str) -> int:
    return len(re.findall(rf'data-testid="{re.escape(testid)}"', dom))


def _hidden(dom: str, testid: str) -> bool:
    match = re.search(rf'<[^>]*data-testid="{re.escape(testid)}"[^>]*>', dom)
    assert match, testid
    return " hidden" in match.group(0)


def test_first_discard(base: str) -> None:
    dom = _dom(base, "scenario=start")
    assert _count(dom, "hand-tile") == 14
    assert len(re.findall(r'data-drawn="true"', dom)) == 1
    assert len(re.findall(r'data-legal="true"', dom)) == 14
    assert _count(dom, "time-left") == 1
    assert _hidden(dom, "result-dialog")
    assert 'data-testid="round"' in dom and "東1局" in dom
    for seat in range(4):
        assert _count(dom, f"score-{seat}") == 1
        assert _count(dom, f"river-{seat}") == 1


def test_busy_table(base: str) -> None:
    dom = _dom(base, "scenario=discard")
    assert _count(dom, "hand-tile") + 3 * _count(dom, "my-meld") == 14
    assert "riichi-tile" in dom and 'class="tile sideways' in dom
    assert "called" in dom
    assert _count(dom, "player-0") == 1


def test_riichi_mode(base: str) -> None:
    dom = _dom(base, "scenario=riichi&press=riichi")
    assert _count(dom, "riichi-hint") == 1
    assert _count(dom, "action-cancel") == 1
    assert 'data-riichi-mode="true"' in dom
    assert len(re.findall(r'data-legal="true"', dom)) >= 1


def test_chi_chooser(base: str) -> None:
    dom = _dom(base, "scenario=chi&press=chi&close=1")
    assert _count(dom, "action-chi") == 1 and _count(dom, "action-pass") == 1
    assert not _hidden(dom, "chooser")
    assert _count(dom, "chooser-option") >= 2
    assert _count(dom, "option-meld") >= 2


def test_pon_offer(base: str) -> None:
    dom = _dom(base, "scenario=pon")
    assert _count(dom, "action-pon") == 1 and _count(dom, "action-pass") == 1
    assert len(re.findall(r'data-legal="true"', dom)) == 0


def test_win_result(base: str) -> None:
    dom = _dom(base, "scenario=win")
    assert not _hidden(dom, "result-dialog")
    assert _count(dom, "win") == 1 and _count(dom, "yaku") == 1
    assert _count(dom, "win-points") == 1 and _count(dom, "deltas") == 1
    assert _count(dom, "result-ok") == 1


def test_draw_result(base: str) -> None:
    dom = _dom(base, "scenario=draw")
    assert _count(dom, "draw") == 1
    assert "tenpai" in dom and "noten" in dom


def test_match_end(base: str) -> None:
    dom = _dom(base, "scenario=end")
    assert _count(dom, "match-end") == 1
    for rank in range(1, 5):
        assert _count(dom, f"rank-{rank}") == 1
    assert _count(dom, "back-to-lobby") == 1


def test_kan_melds(base: str) -> None:
    dom = _dom(base, "scenario=kan&close=1")
    assert 'data-meld="ankan"' in dom
    assert 'data-testid="my-meld"' in dom


def test_spectator(base: str) -> None:
    dom = _dom(base, "scenario=spectator")
    assert _count(dom, "hand-tile") == 0
    assert _count(dom, "spectating") == 1
    assert _count(dom, "concealed-0") == 1


def test_phone_layout(base: str) -> None:
    dom = _dom(base, "scenario=discard", size="390,844")
    assert _count(dom, "hand-tile") >= 1


def test_tile_gallery(base: str) -> None:
    stdout, stderr = _chromium("--dump-dom", f"{base}/harness/tiles.html")
    assert not _problems(stderr)
    assert len(re.findall(r'data-face="0p"', stdout)) >= 3


SHOTS = (
    ("table", "scenario=discard"),
    ("riichi", "scenario=riichi&press=riichi"),
    ("chi", "scenario=chi&close=1&press=chi"),
    ("kan", "scenario=kan&close=1"),
    ("lobby", "scenario=lobby"),
    ("result-win", "scenario=win"),
    ("result-draw", "scenario=draw"),
    ("match-end", "scenario=end"),
    ("spectator", "scenario=spectator"),
)


@pytest.mark.skipif(
    not os.environ.get("JANTAKU_SCREENSHOTS"), reason="set JANTAKU_SCREENSHOTS=DIR to save screenshots"
)
def test_screenshots(base: str) -> None:
    out = Path(os.environ["JANTAKU_SCREENSHOTS"])
    out.mkdir(parents=True, exist_ok=True)
    for name, query in SHOTS:
        for label, size in (("laptop", "1280,800"), ("phone", "390,844")):
            png = out / f"{name}-{label}.png"
            target = f"{base}/harness/table.html?{query}"
            _, stderr = _chromium(f"--window-size={size}", f"--screenshot={png}", target)
            assert png.is_file() and png.stat().st_size > 10_000, stderr[-2000:]
    _chromium("--window-size=1280,800", f"--screenshot={out / 'tiles.png'}", f"{base}/harness/tiles.html")
