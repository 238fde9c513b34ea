"""Errors the services and the hub raise that every adapter translates (the websocket protocol's
``error`` message, an HTTP error body): each carries the protocol's :class:`ErrorCode`."""

from __future__ import annotations

from client_protocol.errors import ErrorCode


class LobbyError(Exception):
    """Matchmaking refused (a private table, a queue, a join): ``code`` says why."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
