"""The committed JSON Schema is exactly what the message structs generate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client_protocol import PROTOCOL_VERSION
from client_protocol.schema import SCHEMA_PATH, main, protocol_schema, render

REPO_SCHEMA = Path(__file__).resolve().parents[2] / "schema" / "protocol.schema.json"


def test_committed_schema_is_up_to_date() -> None:
    assert SCHEMA_PATH == REPO_SCHEMA
    assert REPO_SCHEMA.read_text(encoding="utf-8") == render(), (
        "schema/protocol.schema.json is stale: run `python -m client_protocol.schema`"
    )


def test_schema_shape() -> None:
    schema = protocol_schema()
    assert schema["x-protocol-version"] == PROTOCOL_VERSION
    defs = schema["$defs"]
    client = defs["ClientMessage"]["discriminator"]["mapping"]
    server = defs["ServerMessage"]["discriminator"]["mapping"]
    assert set(client) == {
        "hello",
        "join",
        "act",
        "resume",
        "ping",
        "leave",
        "chat",
        "stamp",
        "lobby_join",
        "lobby_leave",
        "lobby_say",
        "report",
        "invite",
    }
    assert "prompt" in server and "event" in server and "snapshot" in server
    # Client messages reject unknown fields; server messages leave room for additions.
    assert defs["Act"]["additionalProperties"] is False
    assert "additionalProperties" not in defs["Prompt"]
    assert "stale_step" in defs["ErrorCode"]["enum"]


def test_render_is_deterministic_json() -> None:
    text = render()
    assert text.endswith("}\n")
    assert json.loads(text) == protocol_schema()
    assert render() == text


def test_main_writes_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out" / "protocol.schema.json"
    assert main(["--check", "-o", str(target)]) == 1
    assert main(["-o", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == render()
    assert main(["--check", "-o", str(target)]) == 0
    target.write_text("{}\n", encoding="utf-8")
    assert main(["--check", "-o", str(target)]) == 1
    capsys.readouterr()
    assert main(["-o", "-"]) == 0
    assert capsys.readouterr().out == render()
