"""The one codec of the protocol: messages to JSON bytes and back.

Decoding never raises anything but :class:`~client_protocol.errors.ProtocolError`, whose ``code`` says
what was wrong (``too_large``, ``malformed``, ``unknown_type`` or ``bad_version``) and whose
``request_id`` is the offending message's, when it had a readable one.

Every frame a client sends the server, on any endpoint (our protocol, mjai, the query parameters of
``/private/new``), goes through the same two limits first: at most ``max_bytes``
(:data:`MAX_CLIENT_MESSAGE_BYTES`) and at most :data:`MAX_JSON_DEPTH` nested arrays and objects.
:func:`decode_json` is that check for untyped JSON; :func:`decode_client` for our messages.

>>> decode_json("[" * 40 + "]" * 40)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
client_protocol.errors.ProtocolError: malformed: JSON nested deeper than 16 levels

>>> from client_protocol.messages import Ping
>>> encode(Ping(nonce=1))
b'{"type":"ping","nonce":1}'
>>> decode_client(b'{"type":"ping","nonce":1}')
Ping(nonce=1)
>>> decode_client(b'{"type":"dance"}')  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
client_protocol.errors.ProtocolError: unknown_type: unknown message type 'dance'; expected one of act, ...
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

from client_protocol import PROTOCOL_VERSION
from client_protocol.errors import ErrorCode, ProtocolError
from client_protocol.messages import (
    CLIENT_MESSAGE_TYPES,
    MAX_CLIENT_MESSAGE_BYTES,
    MAX_SERVER_MESSAGE_BYTES,
    SERVER_MESSAGE_TYPES,
    ClientMessage,
    Hello,
    ServerMessage,
)

_ENCODER = msgspec.json.Encoder()
_RAW_DECODER = msgspec.json.Decoder()
_CLIENT_DECODER: msgspec.json.Decoder[ClientMessage] = msgspec.json.Decoder(ClientMessage)
_SERVER_DECODER: msgspec.json.Decoder[ServerMessage] = msgspec.json.Decoder(ServerMessage)
_CLIENT_TAGS = frozenset(str(cls.__struct_config__.tag) for cls in CLIENT_MESSAGE_TYPES)
_SERVER_TAGS = frozenset(str(cls.__struct_config__.tag) for cls in SERVER_MESSAGE_TYPES)
_MAX_REQUEST_ID = 2**53 - 1

MAX_JSON_DEPTH = 16
"""Deepest nesting of arrays and objects a client frame may have (our deepest message has 3)."""
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def encode(message: ClientMessage | ServerMessage) -> bytes:
    """The UTF-8 JSON of one message (send it as a websocket *text* frame)."""
    return _ENCODER.encode(message)


def decode_json(data: bytes | str, *, max_bytes: int = MAX_CLIENT_MESSAGE_BYTES) -> Any:
    """Any JSON a client sends, within the size and depth limits of every entry point; raises
    :class:`ProtocolError` (``too_large``, ``malformed``) and nothing else."""
    _check_size(data, max_bytes)
    _check_depth(data)
    try:
        value = _RAW_DECODER.decode(data)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise ProtocolError(ErrorCode.MALFORMED, f"not valid JSON: {exc}") from None
    if _has_duplicate_keys(data, value):
        raise _duplicate_keys(None)
    return value


def decode_client(data: bytes | str, *, max_bytes: int = MAX_CLIENT_MESSAGE_BYTES) -> ClientMessage:
    """Parse one client-to-server frame; a ``hello`` must carry this :data:`PROTOCOL_VERSION`."""
    _check_size(data, max_bytes)
    _check_depth(data)
    try:
        message = _CLIENT_DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as exc:
        raise _classify(data, exc, _CLIENT_TAGS) from None
    if _has_duplicate_keys(data, message):
        raise _duplicate_keys(getattr(message, "request_id", None))
    if isinstance(message, Hello) and message.protocol != PROTOCOL_VERSION:
        raise _bad_version(message.protocol)
    return message


def decode_server(data: bytes | str, *, max_bytes: int = MAX_SERVER_MESSAGE_BYTES) -> ServerMessage:
    """Parse one server-to-client frame (unknown fields are ignored, unknown types are errors)."""
    _check_size(data, max_bytes)
    try:
        return _SERVER_DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as exc:
        raise _classify(data, exc, _SERVER_TAGS) from None


def _has_duplicate_keys(data: bytes | str, decoded: Any) -> bool:
    """Did an object of ``data`` repeat a key? The decoders keep the last one; we refuse both.

    Counting colons instead of walking the objects in Python (this runs on every frame): outside
    strings a JSON text has one colon per key, so without escapes it has K + S colons, K keys and
    S in its strings. Re-encoding a decoded value writes one colon per key it kept and the colons of
    the strings it kept (at most S). Untyped JSON keeps every distinct key once: the counts are
    equal exactly when no key was repeated. A typed message (``decoded`` a struct, which omits
    fields at their default) keeps at most the distinct keys: equal counts still prove there was
    no repeat, and only a message that spelt out a default is decoded untyped to be sure. A text
    with a backslash (an escaped key may equal another, an escape may write a colon) takes the
    exact, slower way."""
    if isinstance(data, str):
        if "\\" in data:
            return _has_duplicate_keys_slow(data)
        colons = data.count(":")
    else:
        if b"\\" in data:
            return _has_duplicate_keys_slow(data)
        colons = data.count(b":")
    if colons == _ENCODER.encode(decoded).count(b":"):
        return False
    if isinstance(decoded, msgspec.Struct):
        return colons != _ENCODER.encode(_RAW_DECODER.decode(data)).count(b":")
    return True


def _has_duplicate_keys_slow(data: bytes | str) -> bool:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        if len({k for k, _ in items}) != len(items):
            raise _DuplicateKeyError
        return dict(items)

    try:
        json.loads(data, object_pairs_hook=pairs)
    except _DuplicateKeyError:
        return True
    return False


class _DuplicateKeyError(Exception):
    pass


def _duplicate_keys(request_id: int | None) -> ProtocolError:
    return ProtocolError(ErrorCode.MALFORMED, "a JSON object repeats a key", request_id=request_id)


def _check_size(data: bytes | str, max_bytes: int) -> None:
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ProtocolError(ErrorCode.TOO_LARGE, f"message of {size} bytes exceeds the cap of {max_bytes}")


def _check_depth(data: bytes | str) -> None:
    """Refuse JSON nested deeper than :data:`MAX_JSON_DEPTH` (before any recursive decoder sees it)."""
    text = data if isinstance(data, str) else data.decode("utf-8", "replace")
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return  # the common case: too few brackets to nest that deep
    depth = 0
    for ch in _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)):
        depth = depth + 1 if ch in "[{" else depth - 1
        if depth > MAX_JSON_DEPTH:
            raise ProtocolError(ErrorCode.MALFORMED, f"JSON nested deeper than {MAX_JSON_DEPTH} levels")


def _classify(data: bytes | str, exc: Exception, known_tags: frozenset[str]) -> ProtocolError:
    """Turn a failed typed decode into the most precise ProtocolError (only runs on bad input)."""
    try:
        raw: Any = msgspec.json.decode(data)
    except msgspec.DecodeError as json_exc:
        return ProtocolError(ErrorCode.MALFORMED, f"not valid JSON: {json_exc}")
    except RecursionError:  # msgspec bounds nesting by the interpreter's recursion limit
        return ProtocolError(ErrorCode.MALFORMED, "JSON nested too deeply")
    if not isinstance(raw, dict):
        return ProtocolError(ErrorCode.MALFORMED, f"a message must be a JSON object, got {_json_kind(raw)}")
    request_id = raw.get("request_id")
    if (
        isinstance(request_id, bool)
        or not isinstance(request_id, int)
        or not 0 <= request_id <= _MAX_REQUEST_ID
    ):
        request_id = None
    if "type" not in raw:
        return ProtocolError(ErrorCode.MALFORMED, "a message needs a 'type' field", request_id=request_id)
    tag = raw["type"]
    if not isinstance(tag, str) or tag not in known_tags:
        expected = ", ".join(sorted(known_tags))
        return ProtocolError(
            ErrorCode.UNKNOWN_TYPE,
            f"unknown message type {tag!r}; expected one of {expected}",
            request_id=request_id,
        )
    protocol = raw.get("protocol")
    if (
        tag == "hello"
        and isinstance(protocol, int)
        and not isinstance(protocol, bool)
        and protocol != PROTOCOL_VERSION
    ):
        return _bad_version(protocol)
    return ProtocolError(ErrorCode.MALFORMED, f"{tag}: {exc}", request_id=request_id)


def _bad_version(protocol: int) -> ProtocolError:
    return ProtocolError(
        ErrorCode.BAD_VERSION,
        f"protocol version {protocol} is not supported; this server speaks {PROTOCOL_VERSION}",
    )


def _json_kind(value: Any) -> str:
    match value:
        case list():
            return "an array"
        case str():
            return "a string"
        case bool():
            return "a boolean"
        case int() | float():
            return "a number"
        case None:
            return "null"
        case _:  # pragma: no cover - msgspec.json.decode returns only JSON types
            return type(value).__name__
