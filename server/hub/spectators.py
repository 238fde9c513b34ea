"""A match's event stream as the table publishes it, and the spectators who follow it late.

:class:`EventStream` holds the omniscient events (version ``v`` is ``events[v - 1]``) and when the
seats saw each; ``published`` events have gone to the seats (the rest are held back by the minimum
call window).

:class:`SpectatorFeed` releases published events to spectators once ``delay_steps`` more events
have been published after them and ``delay_s`` seconds have passed since the seats saw them
(``SpectatePolicy``), and everything when the match ends. The delay counts events, a public
number: the engine's own steps also count the call windows everyone passed, and a feed paced by
them would tell who could have called. Redaction is
``server.engine.views.redact(event, None)``, as for any viewer.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.engine import redact_all
from server.engine.events import Event
from server.hub.outputs import EventsOut, Outbound, Participant
from server.hub.settings import SpectatePolicy


class EventStream:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self.times: list[float] = []  # when each event was published to the seats
        self.published = 0  # events sent to the seats

    def __len__(self) -> int:
        return len(self.events)

    @property
    def all_published(self) -> bool:
        return self.published == len(self.events)

    def append(self, events: Sequence[Event], now: float) -> None:
        self.events.extend(events)
        self.times.extend([now] * len(events))

    def publish(self, upto: int, now: float) -> tuple[Event, ...]:
        """Mark events ``published + 1 .. upto`` as seen by the seats now; returns them."""
        first = self.published
        if upto <= first:
            return ()
        for i in range(first, upto):
            self.times[i] = now
        self.published = upto
        return tuple(self.events[first:upto])


class SpectatorFeed:
    def __init__(self, match_id: str, policy: SpectatePolicy) -> None:
        self.match_id = match_id
        self.policy = policy
        self.members: dict[Participant, None] = {}
        self.released = 0  # events released so far (versions 1..released)

    def __contains__(self, participant: Participant) -> bool:
        return participant in self.members

    def __bool__(self) -> bool:
        return bool(self.members)

    def add(self, participant: Participant) -> None:
        self.members[participant] = None

    def remove(self, participant: Participant) -> bool:
        if participant in self.members:
            del self.members[participant]
            return True
        return False

    def broadcast(self, item: Outbound) -> None:
        for member in self.members:
            member.deliver(item)

    def release_all(self, match_id: str) -> None:
        """The match is over: no spectator follows it any more."""
        for member in self.members:
            member.released(match_id)

    def next_release(self, stream: EventStream) -> float | None:
        """When the next event may go out (None: nothing to release, or waiting for steps)."""
        i = self.released
        if i >= stream.published or stream.published - (i + 1) < self.policy.delay_steps:
            return None
        return stream.times[i] + self.policy.delay_s

    def release(self, now: float, stream: EventStream, *, everything: bool = False) -> bool:
        """Send what the delay allows (all that is published with ``everything``); True if any."""
        upto = self.released
        if everything:
            upto = stream.published
        else:
            while upto < stream.published:
                if stream.published - (upto + 1) < self.policy.delay_steps:
                    break
                if now - stream.times[upto] < self.policy.delay_s:
                    break
                upto += 1
        if upto <= self.released:
            return False
        batch = redact_all(tuple(stream.events[self.released : upto]), None)
        self.broadcast(EventsOut(self.match_id, self.released + 1, batch))
        self.released = upto
        return True
