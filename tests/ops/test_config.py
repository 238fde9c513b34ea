"""``jantaku serve`` settings from flags, environment and a TOML file; structured logs without secrets."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import logging
from pathlib import Path

import pytest

from client_protocol.messages import Seated, TokenAuth
from server.app.cli import build_parser, main
from server.domain.records import AccountKind
from server.hub import config, logs
from server.store.memory import InMemoryRepository
from server.web.api import create_app, serve_http
from tests.hub.netkit import connect_client, play, serving
from tests.ops.test_metrics import http_get


def serve_args(argv: list[str], env: dict[str, str]) -> argparse.Namespace:
    args = build_parser().parse_args(["serve", *argv])
    return config.resolve(args.serve_parser, args, args.serve_defaults, environ=env)


def test_flags_beat_environment_beat_file_beat_defaults(tmp_path: Path) -> None:
    conf = tmp_path / "jantaku.toml"
    conf.write_text(
        'port = 9001\naction_ms = 1111\nbank_ms = 2222\nhost = "0.0.0.0"\nno_spectators = true\n'
        'allow_origin = ["https://a.test"]\nlog_format = "json"\n'
    )
    env = {"JANTAKU_ACTION_MS": "3333", "JANTAKU_PORT": "9002", "DATABASE_URL": "memory:"}
    args = serve_args(["--config", str(conf), "--port", "9003"], env)
    assert args.port == 9003  # flag
    assert args.action_ms == 3333  # environment over the file
    assert args.bank_ms == 2222 and args.host == "0.0.0.0"  # file
    assert (
        args.no_spectators is True and args.allow_origin == ["https://a.test"] and args.log_format == "json"
    )
    assert args.database_url == "memory:"  # DATABASE_URL as always
    assert args.min_call_ms == 0 and args.fill_bot == "greedy" and args.data_dir == Path("data")  # defaults
    # The file can come from the environment too; no file at all: defaults.
    assert serve_args([], {"JANTAKU_CONFIG": str(conf)}).bank_ms == 2222
    plain = serve_args([], {})
    assert (plain.port, plain.action_ms, plain.allow_origin, plain.config) == (8765, 5000, [], None)
    env_list = serve_args([], {"JANTAKU_ALLOW_ORIGIN": "https://a.test,https://b.test"})
    assert env_list.allow_origin == ["https://a.test", "https://b.test"]


@pytest.mark.parametrize(
    ("file_text", "env", "expected"),
    [
        ("prot = 1\n", {}, "unknown key(s) prot"),
        ("config = 'x.toml'\n", {}, "unknown key(s) config"),
        ('action_ms = "soon"\n', {}, "action_ms from config file"),
        ('fill_bot = "nobody"\n', {}, "'nobody' is not one of"),
        ("port = [1]\n", {}, "port from config file"),
        ("port = \n", {}, "not valid TOML"),
        ("", {"JANTAKU_BANK_MS": "lots"}, "bank_ms from environment JANTAKU_BANK_MS"),
        ("", {"JANTAKU_NO_SPECTATORS": "maybe"}, "no_spectators from environment"),
        ("action_ms = -5\n", {}, "action_ms must be"),
    ],
)
def test_bad_settings_are_clear_errors_with_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *,
    file_text: str,
    env: dict[str, str],
    expected: str,
) -> None:
    conf = tmp_path / "jantaku.toml"
    conf.write_text(file_text)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["serve", "--config", str(conf), "--data-dir", str(tmp_path)]) == 2
    assert expected in capsys.readouterr().err


def test_a_missing_config_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--config", str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml" in capsys.readouterr().err


def test_help_describes_every_setting_with_its_default_and_environment_variable() -> None:
    args = build_parser().parse_args(["serve"])
    text = " ".join(args.serve_parser.format_help().split())
    for dest in args.serve_defaults:
        assert config.env_name(dest) in text, dest
        if dest != "config":
            assert f"file key {dest}" in text, dest
    assert "default: 5000; env JANTAKU_ACTION_MS" in text


def test_json_logs_are_one_object_per_line_with_context(root_logging: None) -> None:
    out = io.StringIO()
    logs.configure("INFO", "json", stream=out)
    logging.getLogger("server.hub.table").warning("table %s: slow", "m1", extra={"match_id": "m1", "seat": 2})
    logging.getLogger("x").info('sent {"type": "token", "token": "abc"}')
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["level"] == "WARNING" and first["logger"] == "server.hub.table"
    assert first["message"] == "table m1: slow" and first["match_id"] == "m1" and first["seat"] == 2
    assert "time" in first and "abc" not in second["message"]
    text = io.StringIO()
    logs.configure("INFO", "text", stream=text)
    logging.getLogger("y").info("hi", extra={"match_id": "m2"})
    assert text.getvalue().rstrip().endswith("y: hi match_id=m2")


@pytest.mark.asyncio
async def test_a_bot_token_never_reaches_the_logs(root_logging: None) -> None:
    out = io.StringIO()
    logs.configure("DEBUG", "json", stream=out)
    async with serving() as hub:
        _, token = await hub.auth.create_account("robo", AccountKind.BOT)
        bot = await connect_client(hub, auth=TokenAuth(token=token))
        assert bot.welcome is not None
        await bot.close()
    written = out.getvalue()
    assert written and token not in written
    for line in written.splitlines():
        json.loads(line)


@pytest.mark.asyncio
async def test_hub_logs_carry_the_match_and_session_as_fields(root_logging: None) -> None:
    out = io.StringIO()
    logs.configure("INFO", "json", stream=out)
    async with serving() as hub:
        client = await connect_client(hub, "fields")
        await client.join_queue("tenhou+bots")
        seated = await play(client, stop=lambda m: isinstance(m, Seated))
        assert isinstance(seated, Seated)
        await client.close()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    started = [r for r in lines if " started (" in r["message"]]
    assert started and started[0]["match_id"] == seated.match_id
    hello = [r for r in lines if "hello from" in r["message"]]
    assert hello and hello[0]["session"] and hello[0]["account"]


@pytest.mark.asyncio
async def test_plain_http_requests_are_not_logged_as_websocket_connections(root_logging: None) -> None:
    """A probe, a static file or a 404 is an HTTP exchange, not a websocket connection: websockets'
    "HTTP response sent" / "connection closed" pair is not written for it (it was, for every file
    of the browser client); a websocket connection is still logged, with its path and peer."""
    out = io.StringIO()
    logs.configure("INFO", "json", stream=out)
    async with serving() as hub:
        for path in ("/healthz", "/readyz", "/metrics", "/healthz?x=1", "/", "/static/style.css"):
            status, _, _ = await http_get(hub.port, path)
            assert status == 200, path
        status, _, body = await http_get(hub.port, "/nothing-here")
        assert status == 404 and json.loads(body)["error"]["code"] == "not_found"
        plain = out.getvalue()
        client = await connect_client(hub)
        await client.close()
    lines = [json.loads(line) for line in plain.splitlines()]
    about_requests = [
        r for r in lines if r["logger"].startswith("websockets") and "listening" not in r["message"]
    ]
    assert not about_requests, about_requests
    other = [json.loads(line) for line in out.getvalue().splitlines()[len(lines) :]]
    opened = [r for r in other if r["logger"] == "websockets.server" and "connection open" in r["message"]]
    assert opened and opened[0]["websocket"].startswith("/ws from 127.0.0.1"), other


def test_the_drain_window_is_a_setting_like_the_others(tmp_path: Path) -> None:
    assert serve_args([], {}).drain_s == 5.0
    assert serve_args(["--drain-s", "2.5"], {"JANTAKU_DRAIN_S": "9"}).drain_s == 2.5
    assert serve_args([], {"JANTAKU_DRAIN_S": "0"}).drain_s == 0.0
    toml = tmp_path / "jantaku.toml"
    toml.write_text("drain_s = 1.5\n")
    assert serve_args(["--config", str(toml)], {}).drain_s == 1.5


@pytest.mark.asyncio
async def test_the_admin_port_logs_in_the_one_format(capfd: pytest.CaptureFixture[str]) -> None:
    """A client asking for HTTP/2 (an ``Upgrade: h2c`` header, as Java's HttpClient sends by
    default) makes uvicorn warn: the line is in the configured format, not uvicorn's own on stderr
    (issue 27 item 11)."""
    out = io.StringIO()
    logs.configure("INFO", "json", stream=out)
    stop = asyncio.Event()
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    app = create_app(InMemoryRepository())
    task = asyncio.create_task(serve_http(app, "127.0.0.1", 0, stop, on_ready=ready.set_result))
    try:
        port = int((await asyncio.wait_for(ready, 10)).rsplit(":", 1)[1])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            b"GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings, close\r\n"
            b"Upgrade: h2c\r\nHTTP2-Settings: AAEAAEAAAAIAAAABAAMAAABkAAQBAAAAAAUAAEAA\r\n\r\n"
        )
        await writer.drain()
        answer = await reader.read()
        writer.close()
        assert answer.startswith(b"HTTP/1.1 401"), answer  # answered as HTTP/1.1
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]  # every line is JSON
    assert any("Unsupported upgrade request" in r["message"] for r in lines), lines
    assert "Unsupported upgrade" not in capfd.readouterr().err
