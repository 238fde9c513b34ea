"""Real ``jantaku serve`` nodes for the cluster tests: a fresh PostgreSQL database per cluster,
Redis keys under a prefix of their own, the nodes as subprocesses, and a round-robin TCP proxy in
front that knows nothing about tables (like a plain load balancer without sticky sessions)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from server.store.repository import SqlRepository

ROOT = Path(__file__).resolve().parents[2]
NODE_OPTIONS = (
    "--http-port=-1",
    "--bot-delay-ms=0",
    "--hand-pause-ms=0",
    "--action-ms=4000",
    "--bank-ms=6000",
    "--disconnect-grace-ms=30000",
    "--bot-fill-after=60",
    "--spectate-delay-s=0",
    "--gc-freeze-every=0",
    "--log-format=text",
    "--log-level=INFO",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def jantaku(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.app", *args],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def export_and_verify(database_url: str, match_id: str, record: Path) -> None:
    """``jantaku export --format tenhou6`` of a stored match into ``record``, then ``jantaku verify``
    of it: both must succeed (every hand replayed through the engine equal)."""
    out = ("--database-url", database_url, "--out", str(record))
    exported = jantaku("export", "--format", "tenhou6", *out, match_id)
    assert exported.returncode == 0, exported.stderr
    verified = jantaku("verify", "--json", str(record))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout) and json.loads(record.read_text())


@asynccontextmanager
async def fresh_pg_database(server_url: str) -> AsyncIterator[str]:
    """``CREATE DATABASE jantaku_cluster_<random>`` on the test server, migrated; dropped after."""
    name = f"jantaku_cluster_{secrets.token_hex(4)}"
    admin = create_async_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
        url = make_url(server_url).set(database=name).render_as_string(hide_password=False)
        repo = await SqlRepository.open(url)  # migrated here, before the nodes start (each checks it)
        await repo.close()
        yield url
    finally:
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


@dataclass
class Node:
    node_id: str
    port: int
    log: Path
    process: subprocess.Popen[bytes] | None = None
    http_port: int | None = None  # the node's HTTP API (None: off, as NODE_OPTIONS says)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def logged(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@dataclass
class Cluster:
    database_url: str
    redis_url: str
    prefix: str
    workdir: Path
    nodes: list[Node] = field(default_factory=list)
    proxy_port: int = 0
    proxy: RoundRobinProxy | None = None
    options: tuple[str, ...] = ()  # after NODE_OPTIONS (the last of an option wins)

    @property
    def url(self) -> str:
        """The one address clients know: the round-robin proxy."""
        return f"ws://127.0.0.1:{self.proxy_port}/ws"

    def start_node(self, node: Node) -> None:
        command = [
            sys.executable,
            "-m",
            "server.app",
            "serve",
            f"--port={node.port}",
            f"--node-id={node.node_id}",
            f"--database-url={self.database_url}",
            f"--redis-url={self.redis_url}",
            f"--cluster-prefix={self.prefix}",
            f"--data-dir={self.workdir / node.node_id}",
            *NODE_OPTIONS,
            *self.options,
            *([f"--http-port={node.http_port}"] if node.http_port is not None else []),
        ]
        env = {k: v for k, v in os.environ.items() if not k.startswith("JANTAKU_")}
        with node.log.open("ab") as out:
            node.process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)

    async def wait_ready(self, node: Node, timeout: float = 60.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            assert node.process is not None and node.process.poll() is None, node.logged()[-3000:]
            if await http_status(node.port, "/readyz") == 200:
                return
            await asyncio.sleep(0.2)
        raise AssertionError(f"node {node.node_id} not ready: {node.logged()[-3000:]}")

    def kill(self, node: Node, sig: int = signal.SIGKILL) -> None:
        assert node.process is not None
        node.process.send_signal(sig)

    def stop_all(self) -> None:
        """The end of a test: nothing is kept, so no graceful shutdown to wait for."""
        for node in self.nodes:
            if node.process is not None and node.process.poll() is None:
                node.process.send_signal(signal.SIGKILL)
        for node in self.nodes:
            if node.process is not None:
                try:
                    node.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    node.process.kill()
                    node.process.wait()


async def lease_owner(cluster: Cluster, match_id: str) -> str | None:
    """The node holding the lease of ``match_id`` now (None: nobody, between owners)."""
    client: Redis = Redis.from_url(cluster.redis_url, decode_responses=True)
    try:
        owner = await client.get(f"{cluster.prefix}:table:{match_id}")
        return None if owner is None else str(owner)
    finally:
        await client.aclose()


async def http_status(port: int, path: str) -> int | None:
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 2)
    except (OSError, TimeoutError):
        return None
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 2)
        return int(line.split()[1]) if line else None
    except (OSError, TimeoutError, ValueError, IndexError):
        return None
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def http_json(port: int, path: str, bearer: str) -> tuple[int, Any]:
    """GET ``path`` with ``Authorization: Bearer``; the status and the JSON body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {bearer}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


class RoundRobinProxy:
    """A TCP load balancer in miniature: each new connection goes to the next backend in turn
    (skipping one that refuses connections, as a load balancer's health check would)."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self._turn = itertools.count()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.chosen: list[int] = []

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            for _ in range(len(self.ports)):
                port = self.ports[next(self._turn) % len(self.ports)]
                try:
                    up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
                except OSError:
                    continue
                self.chosen.append(port)
                await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
                return
        except asyncio.CancelledError:
            pass
        finally:
            writer.close()
            self._tasks.discard(task)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (OSError, asyncio.IncompleteReadError):
        pass
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            writer.close()


@asynccontextmanager
async def running_cluster(
    database_url: str,
    redis_url: str,
    prefix: str,
    workdir: Path,
    size: int = 3,
    *,
    options: tuple[str, ...] = (),
    http: bool = False,
) -> AsyncIterator[Cluster]:
    """``http``: every node serves its HTTP API too (each on a port of its own)."""
    cluster = Cluster(database_url, redis_url, prefix, workdir, options=options)
    cluster.nodes = [
        Node(f"n{i}", free_port(), workdir / f"n{i}.log", http_port=free_port() if http else None)
        for i in range(size)
    ]
    proxy = RoundRobinProxy([n.port for n in cluster.nodes])
    try:
        for node in cluster.nodes:
            cluster.start_node(node)
        await asyncio.gather(*(cluster.wait_ready(n) for n in cluster.nodes))
        cluster.proxy_port = await proxy.start()
        cluster.proxy = proxy
        yield cluster
    finally:
        await proxy.close()
        await asyncio.to_thread(cluster.stop_all)
