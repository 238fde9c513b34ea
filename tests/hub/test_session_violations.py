"""What counts toward the violations that close a connection, and what does not
(docs/protocol.md#transport: "Violations"; the protocol core without I/O, as in test_session.py)."""

from __future__ import annotations

import re
from pathlib import Path

from websockets.frames import CloseCode

from client_protocol.codec import MAX_JSON_DEPTH
from server.hub.decisions import REMEMBERED_ANSWERS
from server.hub.settings import ConnectionLimits
from tests.hub.corekit import Directory, Table
from tests.hub.test_session import HELLO, frame, session, welcomed

DOCS = Path(__file__).resolve().parents[2] / "docs"
LIMITS = ConnectionLimits(rate_per_s=1.0, rate_burst=100, max_violations=3)


def test_unknown_types_binary_frames_and_malformed_messages_count_and_the_last_closes() -> None:
    core, sink, _, _ = welcomed(limits=LIMITS)
    core.receive(frame({"type": "dance"}))
    core.receive(b'{"type":"ping","nonce":1}')  # a binary frame: malformed, the connection stays
    assert [m["code"] for m in sink.json()] == ["unknown_type", "malformed"]
    assert sink.open
    core.receive('{"type":"ping","nonce":1,"nonce":2}')  # a repeated key: malformed, the third
    assert sink.json()[0]["code"] == "malformed"
    assert sink.closed is not None and sink.closed[0] == CloseCode.POLICY_VIOLATION


def test_refused_requests_count_for_nothing() -> None:
    table = Table()
    core, sink, _, _ = welcomed(Directory(tables={"m-1": table}), LIMITS)
    core.attached("m-1", 0)
    join = frame({"type": "join", "request_id": 5, "target": {"type": "queue", "preset": "tenhou"}})
    leave = frame({"type": "leave", "match_id": "m-9", "request_id": 6})
    for _ in range(LIMITS.max_violations + 2):
        core.receive(HELLO)  # a second hello
        core.receive(join)  # joining while seated
        core.receive(leave)  # leaving what it does not follow
    codes = {m["code"] for m in sink.json()}
    assert codes == {"forbidden", "not_found"}
    assert sink.open


def test_a_binary_hello_is_a_bad_hello() -> None:
    core, sink, _, _ = session()
    assert core.receive_hello(HELLO.encode()) is None
    assert sink.json()[0]["code"] == "malformed"
    assert sink.closed == (CloseCode.POLICY_VIOLATION, "bad hello")


def test_the_numbers_the_docs_give_are_the_servers() -> None:
    """docs/protocol.md and docs/hub.md state the limits a client author plans around."""
    protocol = " ".join((DOCS / "protocol.md").read_text(encoding="utf-8").split())
    hub = " ".join((DOCS / "hub.md").read_text(encoding="utf-8").split())
    remembered = {int(n) for n in re.findall(r"last (\d+) applied acts", protocol)}
    remembered |= {int(n) for n in re.findall(r"\*\*last (\d+)\*\* answers", hub)}
    assert remembered == {REMEMBERED_ANSWERS}
    assert f"JSON nested deeper than {MAX_JSON_DEPTH} arrays/objects" in protocol
    violations = ConnectionLimits().max_violations
    assert f"the {violations}th closes the connection" in protocol
    assert f"after {violations} rate-limited or malformed messages" in hub
