"""Four ``jantaku bot connect`` mjai bots play a hanchan on a real ``jantaku serve``; the server is
SIGKILLed in the middle of it (around step 440) and started again with a long disconnect grace.
Every bot reconnects, gets the game so far (``events`` frames that fit the outbound queue at any
point of a hanchan) and the match finishes; each bot saw exactly its seat's mjai view, once.

Waits are bounded polls of the store and of the processes (no timing assertions).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from tests.bots.mjai_kit import TSUMOGIRI_BOT

ROOT = Path(__file__).resolve().parents[2]
KILL_AT_STEP = 440
pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


async def run(*argv: str) -> str:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.app", *argv, cwd=ROOT, stdout=asyncio.subprocess.PIPE, env=env()
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, out
    return out.decode()


class Server:
    def __init__(self, data: Path, port: int, log: Path) -> None:
        self.data, self.port, self.log = data, port, log
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "server.app",
                "serve",
                "--port",
                str(self.port),
                "--http-port",
                "-1",
                "--data-dir",
                str(self.data),
                "--disconnect-grace-ms",
                "30000",
                "--hand-pause-ms",
                "0",
                "--action-ms",
                "3000",
                "--log-level",
                "INFO",
                cwd=ROOT,
                stdout=out,
                stderr=asyncio.subprocess.STDOUT,
                env=env(),
            )
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.returncode is None, self.log.read_text()
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.write(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                answer = await reader.read()
                writer.close()
                if answer.startswith(b"HTTP/1.1 200"):
                    return
            except OSError:
                pass
            assert time.monotonic() < deadline, self.log.read_text()
            await asyncio.sleep(0.05)

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 20)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()


def steps(db: Path) -> tuple[int, list[str]]:
    """The number of stored steps and the matches' statuses (read-only, bounded)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        count = conn.execute("SELECT count(*) FROM steps").fetchone()[0]
        statuses = [row[0] for row in conn.execute("SELECT status FROM matches")]
    return int(count), statuses


@pytest.mark.asyncio
async def test_a_sigkill_mid_hanchan_and_every_mjai_bot_resumes_and_finishes(tmp_path: Path) -> None:
    data, port = tmp_path / "data", free_port()
    tokens = []
    for i in range(4):
        out = await run("admin", "create-bot", f"crash-bot-{i}", "--data-dir", str(data))
        tokens.append(out.strip().splitlines()[-1])
    (db,) = [p for p in data.iterdir() if p.suffix in (".db", ".sqlite", ".sqlite3")]
    server = Server(data, port, tmp_path / "serve.log")
    await server.start()
    bots = []
    try:
        for i, token in enumerate(tokens):
            argv = ["bot", "connect", "--server", f"ws://127.0.0.1:{port}", "--games", "1"]
            argv += ["--", sys.executable, str(TSUMOGIRI_BOT), "--log", str(tmp_path / f"bot{i}.jsonl")]
            with (tmp_path / f"connect{i}.log").open("wb") as err:
                bots.append(
                    await asyncio.create_subprocess_exec(
                        sys.executable,
                        "-m",
                        "server.app",
                        *argv,
                        cwd=ROOT,
                        env={**env(), "JANTAKU_BOT_TOKEN": token},
                        stderr=err,
                    )
                )
        deadline = time.monotonic() + 120
        while (count := steps(db)[0]) < KILL_AT_STEP:
            assert time.monotonic() < deadline and all(b.returncode is None for b in bots), count
            await asyncio.sleep(0.02)
        await server.kill()
        assert steps(db)[1] == ["running"]
        await server.start()
        codes = await asyncio.wait_for(asyncio.gather(*(b.wait() for b in bots)), 180)
        logs = [(tmp_path / f"connect{i}.log").read_text() for i in range(4)]
        assert codes == [0, 0, 0, 0], logs
        assert steps(db)[1] == ["completed"]
        assert all("resumed match" in log for log in logs), logs
        assert "queue full" not in server.log.read_text()
        seats = set()
        for i in range(4):
            lines = [json.loads(x) for x in (tmp_path / f"bot{i}.jsonl").read_text().splitlines()]
            seats.add(lines[0]["id"])
            # The whole game once, in order: one start_game, one end_game, nothing repeated.
            kinds = [line["type"] for line in lines]
            assert kinds[0] == "start_game" and kinds[-1] == "end_game" and kinds.count("start_game") == 1
        assert seats == {0, 1, 2, 3}
    finally:
        for b in bots:
            if b.returncode is None:
                b.kill()
                await b.wait()
        await server.stop()
