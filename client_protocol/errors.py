"""Error codes of the protocol and the exceptions of :mod:`client_protocol`.

Exception tree::

    Exception
    └── JantakuError                 root of everything client_protocol raises
        ├── ProtocolError            (also a ValueError) a message that breaks the protocol, with an ErrorCode
        │   └── RequestRejectedError the server answered one of our requests with an ``error`` message
        └── ConnectionLostError      the websocket closed (or never opened); ``reconnect()`` may follow

A :class:`ProtocolError` is what the codec raises for any bad input (never another exception), and
what the server turns into an ``error`` message: ``code`` is the machine-readable :class:`ErrorCode`,
``message`` a human-readable reason that quotes the offending input.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """The closed set of error codes an ``error`` message carries (see ``docs/protocol.md``)."""

    MALFORMED = "malformed"  # not JSON, wrong field types, missing/unknown fields, bad tile notation
    UNKNOWN_TYPE = "unknown_type"  # the "type" field names no message of this protocol version
    BAD_VERSION = "bad_version"  # hello.protocol is a version this server does not speak
    UNAUTHENTICATED = "unauthenticated"  # no successful hello yet, or the credentials were refused
    FORBIDDEN = "forbidden"  # authenticated, but not allowed to do this (e.g. a spectator acting)
    NOT_YOUR_TURN = "not_your_turn"  # the seat has no pending decision
    ILLEGAL_ACTION = "illegal_action"  # a well-formed action that is not among the legal actions
    STALE_STEP = "stale_step"  # act.step is not the step of the seat's pending prompt
    RATE_LIMITED = "rate_limited"  # too many messages; persisting gets the connection closed
    TOO_LARGE = "too_large"  # the frame exceeds the size cap
    BUSY_RETRY = "busy_retry"  # the server cannot take this now (e.g. shutting down); retry later
    NOT_FOUND = "not_found"  # unknown match, private table code or queue preset
    INTERNAL = "internal"  # a server bug; the request had no effect
    # chat and stamps (docs/social.md): the message was not delivered
    EMPTY = "empty"  # nothing left of the text after normalisation
    TOO_LONG = "too_long"  # more characters than the room allows
    UNKNOWN_STAMP = "unknown_stamp"  # not one of the stamps
    TEXT_OFF = "text_off"  # free text is off in this room (or while a hand is live)
    STAMPS_OFF = "stamps_off"  # stamps are off in this room
    NOT_IN_ROOM = "not_in_room"  # this connection follows no table (or lobby channel) to talk at
    UNKNOWN_CHANNEL = "unknown_channel"  # no such lobby channel
    TOO_MANY_CHANNELS = "too_many_channels"  # the connection follows as many lobby channels as allowed
    CHAT_BANNED = "chat_banned"  # an administrator's chat ban (or suspension) is running
    SUSPENDED = "suspended"  # a join for a seat while an administrator's suspension runs


class JantakuError(Exception):
    """Root of every exception raised by :mod:`client_protocol`."""


class ProtocolError(JantakuError, ValueError):
    """A message that breaks the protocol.

    >>> err = ProtocolError(ErrorCode.MALFORMED, "expected an object", request_id=7)
    >>> err.code, err.message, err.request_id
    (<ErrorCode.MALFORMED: 'malformed'>, 'expected an object', 7)
    >>> str(err)
    'malformed: expected an object'
    """

    def __init__(self, code: ErrorCode, message: str, *, request_id: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.request_id = request_id


class RequestRejectedError(ProtocolError):
    """The server answered one of this client's requests with an ``error`` message."""


class ConnectionLostError(JantakuError):
    """The websocket is closed; ``code``/``reason`` are the close frame's, when there was one."""

    def __init__(self, message: str, *, code: int | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
