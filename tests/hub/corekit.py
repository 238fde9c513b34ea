"""Test doubles for the protocol cores without I/O (:mod:`server.hub.adapter`): a frame sink, a
table inbox and the lobby's directory, all in memory."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from server.domain.records import AccountKind
from server.hub.chatroom import ChatRoom
from server.hub.inbox import InboxItem
from server.hub.outputs import Participant, TablePlayerInfo


class Sink:
    """Collects frames; ``closed``/``dropped`` say how the connection ended."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.closed: tuple[int, str] | None = None
        self.dropped: str | None = None

    @property
    def open(self) -> bool:
        return self.closed is None and self.dropped is None

    def put(self, frame: bytes) -> bool:
        if not self.open:
            return False
        self.frames.append(frame)
        return True

    def close(self, code: int, reason: str) -> None:
        if self.open:
            self.closed = (code, reason)

    def drop(self, why: str) -> None:
        self.dropped = why

    def json(self) -> list[dict[str, Any]]:
        """Every frame as JSON, then forgets them."""
        out = [json.loads(f) for f in self.frames]
        self.frames.clear()
        return out


@dataclass
class Table:
    """A table's inbox: what was submitted to it; and who hears its chat (``seats``,
    ``spectators``), its ``source`` and whether a hand is live."""

    finished: bool = False
    items: list[InboxItem] = field(default_factory=list)
    players: tuple[TablePlayerInfo, ...] = tuple(
        TablePlayerInfo(f"p{i}", AccountKind.GUEST) for i in range(4)
    )
    match_id: str = "m-1"
    source: str = "private:ABCD"
    hand_live: bool = False
    seats: list[Participant | None] = field(default_factory=lambda: [None] * 4)
    spectators: list[Participant] = field(default_factory=list)

    def chat_room(self) -> ChatRoom:
        return ChatRoom(self.match_id, self.source, self.hand_live, self.seats, self.spectators)

    def submit(self, item: InboxItem) -> None:
        self.items.append(item)

    def last_request_id(self, seat: int) -> int | None:
        return None


@dataclass
class Directory:
    """The lobby's registry: ``tables``, ``seats`` (account -> live seats), who waits."""

    tables: dict[str, Table] = field(default_factory=dict)
    seats: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    waiting: list[Participant] = field(default_factory=list)
    forgotten: list[Participant] = field(default_factory=list)
    closing: bool = False

    def table(self, match_id: str) -> Table | None:
        return self.tables.get(match_id)

    def live_seats(self, account_id: str) -> list[tuple[str, int]]:
        return self.seats.get(account_id, [])

    def leave_queue(self, p: Participant) -> bool:
        if p in self.waiting:
            self.waiting.remove(p)
            return True
        return False

    def forget(self, p: Participant) -> None:
        self.forgotten.append(p)
