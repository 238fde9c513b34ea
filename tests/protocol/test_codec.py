"""Every class of bad input gives a ProtocolError with the right code, and nothing else escapes."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from client_protocol import PROTOCOL_VERSION
from client_protocol.codec import decode_client, decode_json, decode_server, encode
from client_protocol.errors import ErrorCode, ProtocolError
from client_protocol.messages import MAX_CLIENT_MESSAGE_BYTES, Hello, Ping, TokenAuth

ACT = {
    "type": "act",
    "request_id": 5,
    "step": 3,
    "action": {"type": "discard", "tile": "5m", "tsumogiri": False},
}


def _with(**changes: Any) -> bytes:
    return json.dumps({**ACT, **changes}).encode()


def _code(data: bytes | str) -> tuple[ErrorCode, int | None]:
    with pytest.raises(ProtocolError) as info:
        decode_client(data)
    assert info.value.message  # always a human-readable reason
    return info.value.code, info.value.request_id


@pytest.mark.parametrize(
    ("data", "code"),
    [
        # not JSON at all
        (b"", ErrorCode.MALFORMED),
        (b"{", ErrorCode.MALFORMED),
        (b"\xff\xfe", ErrorCode.MALFORMED),
        (b"hello", ErrorCode.MALFORMED),
        (b'{"type":"ping"} trailing', ErrorCode.MALFORMED),
        (b"[" * 2000 + b"]" * 2000, ErrorCode.MALFORMED),
        (b'{"type": "ping", "nonce": ' + b"[" * 2000 + b"]" * 2000 + b"}", ErrorCode.MALFORMED),
        (b'{"type": "ping", "x": ' + b"{" * 2000 + b"}" * 2000 + b"}", ErrorCode.MALFORMED),
        # JSON, but not an object
        (b"[]", ErrorCode.MALFORMED),
        (b'"act"', ErrorCode.MALFORMED),
        (b"42", ErrorCode.MALFORMED),
        (b"null", ErrorCode.MALFORMED),
        # no or unknown type
        (b"{}", ErrorCode.MALFORMED),
        (b'{"step": 1}', ErrorCode.MALFORMED),
        (b'{"type": "dance"}', ErrorCode.UNKNOWN_TYPE),
        (b'{"type": 7}', ErrorCode.UNKNOWN_TYPE),
        (b'{"type": null}', ErrorCode.UNKNOWN_TYPE),
        (b'{"type": "welcome", "protocol": 1}', ErrorCode.UNKNOWN_TYPE),  # a server message from a client
        (b'{"type": "ACT"}', ErrorCode.UNKNOWN_TYPE),
        # known type, bad fields
        (_with(step="3"), ErrorCode.MALFORMED),
        (_with(step=-1), ErrorCode.MALFORMED),
        (_with(step=1.5), ErrorCode.MALFORMED),
        (_with(step=True), ErrorCode.MALFORMED),
        (_with(request_id=2**53), ErrorCode.MALFORMED),
        (_with(extra=1), ErrorCode.MALFORMED),
        (_with(action={"type": "discard", "tile": "5m", "colour": "red"}), ErrorCode.MALFORMED),
        (_with(action={"type": "discard", "tile": "8z"}), ErrorCode.MALFORMED),
        (_with(action={"type": "discard", "tile": "55m"}), ErrorCode.MALFORMED),
        (_with(action={"type": "discard", "tile": 5}), ErrorCode.MALFORMED),
        (_with(action={"type": "chi", "consumed": "46p"}), ErrorCode.MALFORMED),
        (_with(action={"type": "chi", "consumed": ["4p", "x"]}), ErrorCode.MALFORMED),
        (_with(action={"type": "fly"}), ErrorCode.MALFORMED),
        (_with(action="pass"), ErrorCode.MALFORMED),
        (b'{"type": "act", "request_id": 5}', ErrorCode.MALFORMED),
        (b'{"type": "hello", "protocol": 1}', ErrorCode.MALFORMED),
        (
            b'{"type": "hello", "protocol": 1, "auth": {"type": "password", "password": "x"}}',
            ErrorCode.MALFORMED,
        ),
        (b'{"type": "hello", "protocol": 1, "auth": {"type": "token", "token": ""}}', ErrorCode.MALFORMED),
        (b'{"type": "join", "target": {"type": "queue"}}', ErrorCode.MALFORMED),
        (b'{"type": "resume", "match_id": "", "since_version": 0}', ErrorCode.MALFORMED),
        # protocol version
        (b'{"type": "hello", "protocol": 2, "auth": {"type": "guest"}}', ErrorCode.BAD_VERSION),
        (b'{"type": "hello", "protocol": 0, "auth": {"type": "guest"}}', ErrorCode.BAD_VERSION),
        (b'{"type": "hello", "protocol": 99, "auth": {"type": "future-auth"}}', ErrorCode.BAD_VERSION),
        (b'{"type": "hello", "protocol": "1", "auth": {"type": "guest"}}', ErrorCode.MALFORMED),
        # size
        (b'{"type":"ping","nonce":1}' + b" " * MAX_CLIENT_MESSAGE_BYTES, ErrorCode.TOO_LARGE),
        (
            '{"type":"hello","protocol":1,"auth":{"type":"guest","name":"' + "雀" * 1400 + '"}}',
            ErrorCode.TOO_LARGE,
        ),
    ],
)
def test_bad_input_gives_the_right_code(data: bytes | str, code: ErrorCode) -> None:
    assert _code(data)[0] is code


def test_request_id_is_kept_when_readable() -> None:
    assert _code(_with(step="x")) == (ErrorCode.MALFORMED, 5)
    assert _code(b'{"type": "dance", "request_id": 8}') == (ErrorCode.UNKNOWN_TYPE, 8)
    assert _code(_with(request_id=-1, step="x")) == (ErrorCode.MALFORMED, None)
    assert _code(_with(request_id=True, step="x")) == (ErrorCode.MALFORMED, None)


def test_error_message_names_the_field() -> None:
    with pytest.raises(ProtocolError, match=r"\$\.action\.tile"):
        decode_client(_with(action={"type": "discard", "tile": "8z"}))


def test_good_hello_decodes() -> None:
    hello = Hello(protocol=PROTOCOL_VERSION, auth=TokenAuth(token="x"))
    assert decode_client(encode(hello)) == hello


def test_server_side_decoding_errors() -> None:
    with pytest.raises(ProtocolError) as info:
        decode_server(b'{"type": "hello", "protocol": 1, "auth": {"type": "guest"}}')
    assert info.value.code is ErrorCode.UNKNOWN_TYPE
    with pytest.raises(ProtocolError) as info:
        decode_server(b'{"type": "ack", "request_id": 1}')
    assert info.value.code is ErrorCode.MALFORMED
    with pytest.raises(ProtocolError) as info:
        decode_server(b"x" * 10, max_bytes=5)
    assert info.value.code is ErrorCode.TOO_LARGE


def test_deep_nesting_in_a_lenient_server_message() -> None:
    # Unknown fields are skipped in server messages, but a deeply nested one must still fail cleanly.
    with pytest.raises(ProtocolError) as info:
        decode_server(b'{"type": "pong", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}")
    assert info.value.code is ErrorCode.MALFORMED


def test_size_cap_is_configurable() -> None:
    data = encode(Ping(nonce=1))
    assert decode_client(data, max_bytes=len(data)) == Ping(nonce=1)
    with pytest.raises(ProtocolError):
        decode_client(data, max_bytes=len(data) - 1)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
_keys = st.sampled_from(["type", "request_id", "step", "action", "auth", "protocol", "target", "tile"])
_messages = st.dictionaries(
    _keys, _json | st.sampled_from(["act", "hello", "join", "discard", "5m", 1]), max_size=6
)


@given(st.binary(max_size=200))
def test_random_bytes_only_raise_protocol_error(data: bytes) -> None:
    for decode in (decode_client, decode_server):
        with contextlib.suppress(ProtocolError):
            decode(data)


@given(_messages)
def test_random_objects_only_raise_protocol_error(raw: dict[str, Any]) -> None:
    data = msgspec.json.encode(raw)
    for decode in (decode_client, decode_server):
        try:
            decode(data)
        except ProtocolError as exc:
            assert exc.code in (
                ErrorCode.MALFORMED,
                ErrorCode.UNKNOWN_TYPE,
                ErrorCode.BAD_VERSION,
                ErrorCode.TOO_LARGE,
            )


@pytest.mark.parametrize(
    "data",
    [
        # two actions in one act: which one would be played?
        '{"type":"act","request_id":5,"step":3,"action":{"type":"pass"},"action":{"type":"ron"}}',
        '{"type":"act","request_id":5,"step":3,"step":4,"action":{"type":"pass"}}',
        '{"type":"act","request_id":5,"step":3,"action":{"type":"discard","tile":"5m","tile":"1z"}}',
        # a colon inside a string changes nothing; whitespace around the colon neither
        '{"type":"hello","protocol":1,"auth":{"type":"guest","name":"a:b"} , "auth" :{"type":"guest"}}',
        # a repeated field at its default value, which the message leaves out when re-encoded
        '{"type":"hello","protocol":1,"auth":{"type":"guest"},"hints":false,"hints":false}',
        '{"type":"hello","protocol":1,"auth":{"type":"guest"},"client":null,"hints":false,"client":"x"}',
        # an escaped key is the same key (the slow path: the text has a backslash)
        '{"type":"act","request_id":5,"step":3,"action":{"type":"pass"},"\\u0061ction":{"type":"ron"}}',
    ],
)
def test_duplicate_keys_are_malformed(data: str) -> None:
    """docs/protocol.md#encoding: a JSON object may not repeat a key (JSON leaves it to the parser
    which one wins; we take neither)."""
    code, _ = _code(data)
    assert code is ErrorCode.MALFORMED
    code, _ = _code(data.encode())
    assert code is ErrorCode.MALFORMED


def test_the_same_key_in_different_objects_is_no_duplicate() -> None:
    spelt_out = (
        '{"type":"hello","protocol":1,"auth":{"type":"guest","name":null},"client":null,"hints":false}'
    )
    assert isinstance(decode_client(spelt_out), Hello)
    message = decode_client('{"type":"hello","protocol":1,"auth":{"type":"guest","name":"a:\\"b\\""}}')
    assert isinstance(message, Hello)
    assert decode_client(_with(action={"type": "discard", "tile": "5m", "tsumogiri": False})).step == 3  # type: ignore[union-attr]


def test_duplicate_keys_are_malformed_at_every_entry_point() -> None:
    """The untyped decoder (mjai frames, ``/private/new``'s rules) refuses them too."""
    assert decode_json('{"a":{"b":1},"c":{"b":2}}') == {"a": {"b": 1}, "c": {"b": 2}}
    for text in ('{"type":"dahai","pai":"5m","pai":"1z"}', '[{"a":1,"a":1}]'):
        with pytest.raises(ProtocolError) as info:
            decode_json(text)
        assert info.value.code is ErrorCode.MALFORMED and "repeats a key" in info.value.message


def test_how_the_nesting_limit_counts() -> None:
    """docs/protocol.md#transport: the message's own object is level 1; 16 levels pass, 17 do not;
    brackets inside strings do not count; an act with a chi is 3 levels deep."""
    assert decode_json("[" * 16 + "]" * 16) is not None
    with pytest.raises(ProtocolError) as info:
        decode_json("[" * 17 + "]" * 17)
    assert info.value.code is ErrorCode.MALFORMED
    assert decode_json('{"a":"' + "[{" * 40 + '"}') == {"a": "[{" * 40}
    chi = {**ACT, "action": {"type": "chi", "consumed": ["4s", "6s"]}}
    assert decode_client(json.dumps(chi)).action.consumed == ("4s", "6s")  # type: ignore[union-attr]
    with pytest.raises(ProtocolError):
        decode_json('{"a":' * 17 + "1" + "}" * 17)
    assert decode_json('{"a":' * 14 + '{"b":[1]}' + "}" * 14) is not None  # 16 levels
