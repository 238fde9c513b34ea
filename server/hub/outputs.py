"""The small interface between the tables/lobby and a protocol adapter.

Tables and the lobby speak engine values (already redacted by :func:`server.engine.views.redact`,
the only redaction) to a :class:`Participant`; an adapter turns them into its own wire format. Our
websocket protocol is :mod:`server.hub.session`; an mjai endpoint would be a second adapter
implementing the same :class:`Participant` and feeding the same inbox messages
(:mod:`server.hub.table`), with no change to the table.

``deliver`` must never block and never raise: an adapter queues what it gets (bounded) and drops its
own connection when the queue overflows. That is how a slow client can never stall a table.

A table also tells a participant which match it follows: :meth:`Participant.attached` when it
seats it (or lets it watch), :meth:`Participant.released` when the match is over for it. An adapter
keeps its state from these calls, never from what it is given to send.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from client_protocol.errors import ErrorCode
from client_protocol.events import Event as WireEvent
from client_protocol.messages import (
    EventNotice,
    FriendPresence,
    FriendsChanged,
    Invited,
    InviteSent,
    MatchEndReason,
)
from server.domain.records import Account, AccountKind
from server.engine.actions import Action
from server.engine.events import Event
from server.engine.hints import Hints
from server.eventlog.convert import event_to_wire


@dataclass(frozen=True, slots=True)
class TablePlayerInfo:
    name: str
    kind: AccountKind


@dataclass(frozen=True, slots=True)
class QueuedOut:
    """Waiting for a table: quick match ``preset``, or a private table."""

    preset: str
    players_waiting: int


@dataclass(frozen=True, slots=True)
class SeatedOut:
    match_id: str
    seat: int | None  # None: spectating
    players: tuple[TablePlayerInfo, ...]


class SharedFrames:
    """The encoded frames of ONE published batch that every seat receives byte for byte alike, and
    the batch's events as the step log rendered them.

    A table publishes a batch to each seat redacted for that seat; an event that no seat's
    redaction changes (``public[i]``: the redacted event is the very same object for all four
    seats) renders to the same bytes for everyone, so the first adapter that encodes it leaves
    the frame here and the other seats send it as is. An event that any seat sees differently (a
    deal, a drawn tile) is never public: each seat encodes its own. Only adapters whose frames
    depend on nothing but the event and its version may use this (ours: :mod:`server.hub.session`);
    the others ignore it. ``tests/hub/test_shared_frames.py`` checks both rules.

    ``rendered[i]``, when the table has it, is the wire form of ``origin[i]`` (the omniscient event)
    made once for the step log (:func:`server.eventlog.codec.render_events`): a seat whose event
    is that very object (every public event; a seat's own draw) sends it instead of rendering it
    again (:meth:`wire_of`; ``tests/hub/test_render_once.py``).
    """

    __slots__ = ("frames", "origin", "public", "rendered")

    def __init__(
        self,
        public: tuple[bool, ...],
        origin: tuple[Event, ...] = (),
        rendered: Sequence[WireEvent | None] | None = None,
    ) -> None:
        self.public = public
        self.frames: dict[tuple[str, int], bytes] = {}  # (adapter, index) -> the frame
        self.origin = origin
        self.rendered = rendered

    def wire_of(self, i: int, event: Event) -> WireEvent:
        """The wire form of ``event``, the ``i``-th of the batch as a seat received it."""
        rendered = self.rendered
        if rendered is not None and event is self.origin[i]:
            wire = rendered[i]
            if wire is not None:
                return wire
        return event_to_wire(event)


@dataclass(frozen=True, slots=True)
class EventsOut:
    """Events ``first_version``, ``first_version + 1``, ... of the receiver's stream.

    ``shared``: the batch's frames that are the same for every seat (:class:`SharedFrames`)."""

    match_id: str
    first_version: int
    events: tuple[Event, ...]
    shared: SharedFrames | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class CatchupOut:
    """The receiver's whole stream so far (versions 1..len(events)) after a join or resume; the
    client has everything up to ``since_version``. The adapter sends the missing tail or a snapshot."""

    match_id: str
    seat: int | None
    since_version: int
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class PromptOut:
    match_id: str
    step: int
    seat: int
    version: int
    legal: frozenset[Action]
    deadline_ms: int
    bank_ms: int
    hints: Hints | None = None  # only for a participant that wants them (``Participant.wants_hints``)


@dataclass(frozen=True, slots=True)
class PlayedForOut:
    """The moves the table played for the receiver's seat while it had no connection:
    ``(decision step, action)``, oldest first (told when the seat comes back)."""

    match_id: str
    moves: tuple[tuple[int, Action], ...]


@dataclass(frozen=True, slots=True)
class AckOut:
    request_id: int
    step: int
    duplicate: bool


@dataclass(frozen=True, slots=True)
class ErrorOut:
    code: ErrorCode
    message: str
    request_id: int | None = None


@dataclass(frozen=True, slots=True)
class ResultOut:
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    final_points: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class MatchEndOut:
    match_id: str
    reason: MatchEndReason
    result: ResultOut | None


@dataclass(frozen=True, slots=True)
class LeftOut:
    match_id: str | None


@dataclass(frozen=True, slots=True)
class ChatOut:
    """A chat line or a stamp at a table (:mod:`server.hub.tablechat`; not game state, never in
    the event log). ``seat``: the seated sender's, None for a spectator. One object goes to every
    listener: the first adapter that encodes it leaves its frame in ``frames`` for the others."""

    match_id: str
    seat: int | None
    name: str
    text: str | None
    stamp: str | None
    frames: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)
    line_id: int | None = None  # to report it (docs/social.md)
    account_id: str | None = None  # the sender's account, None for a guest (public: to mute it)


@dataclass(frozen=True, slots=True)
class SocialOut:
    """News for a player (server.hub.friends): a friend's presence, an invitation, a change of its
    friends, an event's notice; ``message`` is the protocol's own message (other protocols ignore
    it)."""

    message: FriendPresence | Invited | InviteSent | FriendsChanged | EventNotice


Outbound = (
    QueuedOut
    | SeatedOut
    | EventsOut
    | CatchupOut
    | PromptOut
    | AckOut
    | ErrorOut
    | MatchEndOut
    | LeftOut
    | PlayedForOut
    | ChatOut
    | SocialOut
)


class Participant(Protocol):
    """One connected client as seen by tables and the lobby (one per connection)."""

    @property
    def participant_id(self) -> str:
        """Unique per connection (for logs)."""
        ...

    @property
    def account(self) -> Account: ...

    @property
    def wants_hints(self) -> bool:
        """Its prompts carry hints (:mod:`server.engine.hints`): computed only for those that ask."""
        ...

    def deliver(self, item: Outbound) -> None:
        """Queue ``item`` for the client; never blocks, never raises."""
        ...

    def attached(self, match_id: str, seat: int | None) -> bool:
        """The table of ``match_id`` seats this participant in ``seat`` (None: as a spectator), before
        sending it anything. False: the connection is already over; the table leaves it out."""
        ...

    def released(self, match_id: str) -> None:
        """``match_id`` is over for this participant: the match ended, or it left the table."""
        ...
