"""``jantaku serve`` in a subprocess for the browser tests: started on free ports with a data
directory of its own, its addresses read from the lines it prints, stopped when the block ends;
and the registered test players that play a ranked queue beside the browser."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from client_protocol.client import Client
from client_protocol.errors import RequestRejectedError
from client_protocol.messages import MatchEnd, Prompt, SessionAuth

ROOT = Path(__file__).resolve().parents[2]
SERVE = (sys.executable, "-m", "server.app", "serve", "--port", "0")


@dataclass(frozen=True, slots=True)
class Served:
    """A running server: ``page`` the browser's URL as printed ("play in a browser: ...", query
    included), ``api`` the review API's base URL (``http://host:port``; empty with the API off)."""

    page: str
    api: str
    data: Path

    @property
    def page_base(self) -> str:
        """The page's URL without its query."""
        return self.page.split("?", 1)[0]

    @property
    def admin(self) -> str:
        """The admin pages' URL."""
        assert self.api, "the review API is off"
        return f"{self.api}/admin/"

    @property
    def ws(self) -> str:
        """The game port's websocket URL."""
        return self.page_base.replace("http://", "ws://").rstrip("/") + "/ws"


@contextlib.contextmanager
def running_server(data: Path, *args: str, api: bool = True) -> Iterator[Served]:
    """``jantaku serve --port 0 --data-dir DATA ARGS`` until the block ends; waits for its page URL
    (and the review API's, unless ``api`` is False) and fails with the server's log otherwise."""
    log = data / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [*SERVE, "--data-dir", str(data), *args],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        page = review = None
        deadline = time.monotonic() + 30
        while (page is None or (api and review is None)) and time.monotonic() < deadline:
            if process.poll() is not None:
                break
            text = log.read_text()
            found = re.search(r"play in a browser: (http://\S+)", text)
            admin = re.search(r"admin review: (http://[^/\s]+)/admin/", text)
            page, review = (found.group(1) if found else None), (admin.group(1) if admin else None)
            time.sleep(0.1)
        assert page and (review or not api), log.read_text()
        yield Served(page, review or "", data)
    finally:
        process.terminate()
        process.wait(timeout=20)


def register(api: str, name: str) -> str:
    """A new account's session token (password ``pw-12345678``)."""
    r = httpx.post(f"{api}/api/accounts/register", json={"name": name, "password": "pw-12345678"})
    assert r.status_code == 201, r.text
    token: str = r.json()["session_token"]
    return token


async def play_queue(ws_url: str, token: str, queue: str, ends: list[MatchEnd]) -> None:
    """A registered player on our protocol: joins ``queue``, takes the first legal action of every
    prompt until its match ends, and appends the match's end to ``ends``."""
    client = await Client.connect(ws_url, SessionAuth(session_token=token))
    try:
        await client.join_queue(queue)
        async for message in client:
            if isinstance(message, Prompt):
                with contextlib.suppress(RequestRejectedError):  # a newer prompt follows
                    await client.act(message.legal_actions[0], step=message.step)
            elif isinstance(message, MatchEnd):
                ends.append(message)
                return
    finally:
        await client.close()
