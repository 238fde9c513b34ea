"""docs/protocol.md: every message of the example session is valid and the session obeys the rules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from client_protocol import PROTOCOL_VERSION
from client_protocol.codec import decode_client, decode_server
from client_protocol.errors import ErrorCode, ProtocolError
from client_protocol.messages import (
    CLIENT_MESSAGE_TYPES,
    Ack,
    Act,
    ClientMessage,
    ErrorMessage,
    EventMessage,
    Hello,
    MatchEnd,
    Prompt,
    Resume,
    Seated,
    ServerMessage,
    Snapshot,
    Welcome,
)
from client_protocol.tracker import MatchTracker
from server.hub.wire import action_from_wire, legal_actions_to_wire

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

Line = tuple[str, str]  # ("→" or "←", the JSON text)


def _example_lines() -> list[Line]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Example session", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```text\n(.*?)```", section, flags=re.S)
    assert len(blocks) >= 2
    lines: list[Line] = []
    for block in blocks:
        for line in block.splitlines():
            if line.startswith(("→ ", "← ")):
                lines.append((line[0], line[2:]))
            else:
                assert line.startswith("#") or not line.strip(), f"stray line in the example: {line!r}"
    return lines


def _decoded() -> list[tuple[str, ClientMessage | ServerMessage | ProtocolError]]:
    out: list[tuple[str, ClientMessage | ServerMessage | ProtocolError]] = []
    for direction, data in _example_lines():
        if direction == "←":
            out.append((direction, decode_server(data)))  # a server line must always be valid
        else:
            try:
                out.append((direction, decode_client(data)))
            except ProtocolError as exc:
                out.append((direction, exc))
    return out


def test_example_covers_the_protocol() -> None:
    kinds = {type(m).__name__ for _, m in _decoded()}
    for needed in ("Hello", "Welcome", "Join", "Queued", "Seated", "EventMessage", "Prompt", "Act", "Ack"):
        assert needed in kinds
    for needed in ("ErrorMessage", "Resume", "Snapshot", "MatchEnd", "Ping", "Pong", "ProtocolError"):
        assert needed in kinds


def test_example_session_follows_the_rules() -> None:
    messages = _decoded()
    assert isinstance(messages[0][1], Hello) and messages[0][1].protocol == PROTOCOL_VERSION
    assert isinstance(messages[1][1], Welcome)
    assert isinstance(messages[-1][1], MatchEnd)
    tracker: MatchTracker | None = None
    prompt: Prompt | None = None
    acts: dict[int, Act] = {}
    acked: set[int] = set()
    for i, (direction, message) in enumerate(messages):
        following = messages[i + 1][1] if i + 1 < len(messages) else None
        match message:
            case ProtocolError():  # a deliberately bad client line: answered by the matching error
                assert isinstance(following, ErrorMessage)
                assert (following.code, following.request_id) == (message.code, message.request_id)
            case Hello():
                assert isinstance(following, Welcome)
            case Seated():
                tracker = MatchTracker(message.match_id, message.seat)
            case EventMessage():
                assert tracker is not None and tracker.apply(message), f"line {i}: event out of order"
            case Snapshot():
                tracker = MatchTracker.from_snapshot(message)
            case Prompt():
                assert tracker is not None and message.version == tracker.version
                assert message.seat == tracker.seat
                engine_actions = [action_from_wire(a) for a in message.legal_actions]
                assert legal_actions_to_wire(engine_actions) == message.legal_actions, (
                    "not in the server's order"
                )
                prompt = message
            case Resume():
                assert tracker is not None and message.since_version == tracker.version
            case Act():
                rejected = isinstance(following, ErrorMessage) and following.request_id == message.request_id
                if rejected:  # the only rejection the example shows: an act for a decision that is over
                    assert isinstance(following, ErrorMessage) and following.code is ErrorCode.STALE_STEP
                    assert prompt is None or message.step != prompt.step
                elif message.request_id in acts:  # a resent request: must be the same message
                    assert acts[message.request_id] == message
                else:
                    assert prompt is not None and message.step == prompt.step
                    assert message.action in prompt.legal_actions
                    acts[message.request_id] = message
            case Ack():
                act = acts[message.request_id]
                assert message.step == act.step
                assert message.duplicate == (message.request_id in acked)
                acked.add(message.request_id)
                if prompt is not None and prompt.step == act.step:
                    prompt = None  # answered
            case _:
                pass
        assert (direction == "→") == isinstance(message, (ProtocolError, *CLIENT_MESSAGE_TYPES))
    assert tracker is not None and tracker.view().match_result is not None


def test_python_snippet_parses() -> None:
    text = DOC.read_text(encoding="utf-8")
    snippets = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert snippets
    for snippet in snippets:
        ast.parse(snippet)


@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_error_code_is_documented(code: ErrorCode) -> None:
    assert f"| `{code.value}` |" in DOC.read_text(encoding="utf-8")
