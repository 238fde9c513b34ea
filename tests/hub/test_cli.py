"""``jantaku admin ...`` and ``jantaku serve`` (in a real subprocess, stopped with SIGTERM)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from client_protocol.client import Client
from client_protocol.errors import ConnectionLostError
from client_protocol.messages import Seated, TokenAuth
from server.app.cli import main
from server.hub.stats import ENV as STATS_ENV

ROOT = Path(__file__).resolve().parents[2]


def test_admin_creates_lists_and_revokes_accounts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ["--data-dir", str(tmp_path)]
    assert main(["admin", "create-bot", "robo", *data]) == 0
    out = capsys.readouterr().out
    token = out.strip().splitlines()[-1]
    assert re.fullmatch(r"b-[0-9a-f]{16}\.[A-Za-z0-9_\-]{43}", token)
    assert main(["admin", "create-player", "alice", *data]) == 0
    assert main(["admin", "create-bot", "robo", *data]) == 1  # names are unique
    capsys.readouterr()
    assert main(["admin", "list", *data]) == 0
    listing = capsys.readouterr().out
    assert "robo" in listing and "alice" in listing and token not in listing
    database = tmp_path / "jantaku.sqlite3"  # the accounts live in the database
    assert database.is_file() and not (tmp_path / "accounts.json").exists()
    assert token.encode() not in database.read_bytes()
    assert main(["admin", "revoke", "robo", *data]) == 0
    assert main(["admin", "revoke", "nobody", *data]) == 1
    assert main(["admin", "list", *data]) == 0
    assert "revoked" in capsys.readouterr().out


def test_admin_and_serve_refuse_what_they_cannot_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["admin", "create-bot", "x", "--database-url", "mysql://db/x"]) == 2
    assert "unsupported database URL" in capsys.readouterr().err
    assert main(["admin", "create-bot", "bad name", "--data-dir", str(tmp_path)]) == 1
    assert main(["admin"]) == 2
    assert main(["serve", "--action-ms", "-5", "--data-dir", str(tmp_path)]) == 2
    assert main(["serve", "--port", "99999", "--data-dir", str(tmp_path)]) == 2


async def get_stats(port: int) -> dict[str, Any]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /stats?heap=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    stats: dict[str, Any] = json.loads((await reader.read()).split(b"\r\n\r\n", 1)[1])
    writer.close()
    return stats


async def http_status(port: int, path: str) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    status = int((await reader.read()).split(b" ", 2)[1])
    writer.close()
    return status


@pytest.mark.asyncio
async def test_serve_runs_until_sigterm_and_closes_with_1012(tmp_path: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "server.app",
        "serve",
        "--port",
        "0",
        "--data-dir",
        str(tmp_path),
        "--log-level",
        "WARNING",
        "--drain-s",
        "30",
        cwd=ROOT,
        env={**os.environ, STATS_ENV: "1"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        async with asyncio.timeout(20):
            line = (await proc.stdout.readline()).decode()
        url = re.search(r"ws://\S+/ws", line)
        assert url is not None, line
        port = int(url.group(0).rsplit(":", 1)[1].split("/")[0])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert (await reader.read()).startswith(b"HTTP/1.1 200")
        writer.close()
        # serve runs the garbage-collector policy: young collections on its tick, survivors frozen.
        # Its ticks are the server's own (0.1 s): wait until two came (bounded), then check.
        async with asyncio.timeout(20):
            while (stats := await get_stats(port))["gc"]["gen0"]["collections"] < 2:
                pass
        assert stats["gc"]["frozen"] > 10_000 and stats["gc"]["gen0"]["collections"] >= 2
        # A bot created by `jantaku admin` (another process) while the server runs can play.
        admin = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server.app",
            "admin",
            "create-bot",
            "robo",
            "--data-dir",
            str(tmp_path),
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await admin.communicate()
        assert admin.returncode == 0
        bot_token = out.decode().strip().splitlines()[-1]
        async with await Client.connect(url.group(0), TokenAuth(token=bot_token)) as client:
            await client.join_queue("tenhou+bots")
            async for message in client:
                if isinstance(message, Seated):
                    break
            proc.send_signal(signal.SIGTERM)
            # The drain window: /readyz says 503 while the game goes on; a second SIGTERM ends it.
            async with asyncio.timeout(10):
                while await http_status(port, "/readyz") != 503:
                    await asyncio.sleep(0.05)
            assert await http_status(port, "/healthz") == 200
            proc.send_signal(signal.SIGTERM)
            with pytest.raises(ConnectionLostError) as lost:
                while True:
                    await client.recv()
            assert lost.value.code == 1012
        async with asyncio.timeout(20):
            assert await proc.wait() == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
