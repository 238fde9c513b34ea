"""``jantaku serve`` runs the review API beside the hub (``--http-port``), in the same process."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from server.app.review_api import review_port
from server.hub.settings import SettingsError

ROOT = Path(__file__).resolve().parents[2]


def test_review_port_option() -> None:
    assert review_port(8765, None) == 8766
    assert review_port(0, None) == 0
    assert review_port(65535, None) == 0
    assert review_port(8765, 9000) == 9000
    assert review_port(8765, 0) == 0
    assert review_port(8765, -1) is None
    with pytest.raises(SettingsError):
        review_port(8765, 70000)


@contextmanager
def serving(tmp_path: Path, *args: str) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "server.app", "serve", "--data-dir", str(tmp_path / "data"), *args],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        deadline = time.monotonic() + 30
        while "SIGTERM stops" not in log.read_text() and process.poll() is None:
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield process, log
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=20) == 0, log.read_text()


def test_serve_prints_and_serves_the_admin_url(tmp_path: Path) -> None:
    with serving(tmp_path, "--port", "0") as (_, log):
        found = re.search(r"admin review: (http://\S+)/admin/ \(API (http://\S+)/api/", log.read_text())
        assert found, log.read_text()
        with urllib.request.urlopen(found.group(1) + "/api/openapi.json", timeout=10) as r:
            assert json.load(r)["info"]["title"] == "Jantaku HTTP API"
        with urllib.request.urlopen(found.group(1) + "/admin/", timeout=10) as r:
            assert "Jantaku admin" in r.read().decode()
        text = log.read_text()  # the hub's own lines first (tests read its websocket URL there)
        assert 0 <= text.index("Jantaku hub running. Connect clients to ws://") < text.index("admin review:")


def test_serve_without_the_review_api(tmp_path: Path) -> None:
    with serving(tmp_path, "--port", "0", "--http-port", "-1") as (_, log):
        assert "admin review" not in log.read_text()
    with serving(tmp_path, "--port", "0", "--database-url", "memory:") as (_, log):
        assert "admin review API off: it needs the SQL store" in log.read_text()


def _free_pair() -> tuple[int, socket.socket]:
    """A free port P whose P + 1 is held by the returned socket."""
    for _ in range(50):
        held = socket.socket()
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1] - 1
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                held.close()
                continue
        return port, held
    raise AssertionError("no free pair of ports")


def test_a_busy_default_port_leaves_the_hub_running(tmp_path: Path) -> None:
    port, held = _free_pair()
    try:
        with serving(tmp_path, "--port", str(port), "--log-level", "ERROR") as (process, log):
            assert process.poll() is None
            assert f"admin review API off: cannot listen on 127.0.0.1:{port + 1}" in log.read_text()
    finally:
        held.close()


def test_a_busy_explicit_port_is_an_error(tmp_path: Path) -> None:
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    try:
        busy = held.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "server.app", "serve", "--port", "0", "--http-port", str(busy)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            input="",
        )
        assert result.returncode == 1, result.stdout + result.stderr
        assert f"the admin review API cannot listen on 127.0.0.1:{busy}" in result.stderr
    finally:
        held.close()
