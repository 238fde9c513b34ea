"""A match's event stream as the table publishes it, and the spectators who follow it late.

:class:`EventStream` holds the omniscient events (version ``v`` is absolute index ``v - 1``) and
when the seats saw each; ``published`` events have gone to the seats (the rest are held back by the
minimum call window). It keeps in memory only the hands from the one holding the first event not
yet released to spectators (:meth:`EventStream.forget`); the older ones are read back from the
store when a catch-up needs them (:mod:`server.hub.catchups`).

:class:`SpectatorFeed` releases published events to spectators once ``delay_steps`` more events
have been published after them and ``delay_s`` seconds have passed since the seats saw them
(``SpectatePolicy``), and everything when the match ends. The delay counts events, a public
number: the engine's own steps also count the call windows everyone passed, and a feed paced by
them would tell who could have called. Redaction is
``server.engine.views.redact(event, None)``, as for any viewer.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

from client_protocol.events import Event as WireEvent
from server.engine import redact_all
from server.engine.events import Event, RoundStarted
from server.engine.views import CASTER, hold_reveals
from server.hub.outputs import EventsOut, Outbound, Participant, SharedFrames
from server.hub.overlay import Overlay
from server.hub.settings import SpectatePolicy


class EventStream:
    """The match's events by version (version ``v`` is absolute index ``v - 1``), of which only the
    tail from :attr:`base` on is kept in memory (:meth:`forget`); versions ``1..base`` are read back
    from the store's step log when someone needs them (:mod:`server.hub.history`)."""

    __slots__ = (
        "base",
        "events",
        "forgotten_round",
        "hand_starts",
        "hands",
        "published",
        "rendered",
        "round_starts",
        "times",
    )

    def __init__(self) -> None:
        self.base = 0  # events forgotten: the kept ones are versions base + 1 .. len(self)
        self.events: list[Event] = []  # the kept events (absolute index i is events[i - base])
        self.times: list[float] = []  # when each kept event was published to the seats
        self.hands = 0  # RoundStarted events so far
        self.hand_starts: list[int] = []  # absolute indices of the kept RoundStarted events (not the first)
        self.round_starts: list[int] = []  # absolute indices of every RoundStarted (a hand delay counts them)
        self.published = 0  # events sent to the seats
        # The newest RoundStarted forgotten (:meth:`forget`): between two hands the one just played
        # may be forgotten already while the next one is still held back.
        self.forgotten_round: RoundStarted | None = None
        # the step log's rendering of events not yet published (by absolute index): they go to
        # the seats as they are (publish hands them over with the batch, then forgets them)
        self.rendered: dict[int, WireEvent] = {}

    def __len__(self) -> int:
        return self.base + len(self.events)

    @property
    def all_published(self) -> bool:
        return self.published == len(self)

    def append(
        self, events: Sequence[Event], now: float, rendered: Sequence[WireEvent] | None = None
    ) -> None:
        """Add a step's events (``rendered``: as its log rendered them, for :meth:`publish_rendered`)."""
        first = len(self)
        if rendered is not None:
            self.rendered.update(enumerate(rendered, start=first))
        for i, event in enumerate(events):
            if isinstance(event, RoundStarted):
                self.hands += 1
                self.round_starts.append(first + i)
                if self.hands > 1:  # the first hand stays with the match's start: a join reads nothing
                    self.hand_starts.append(first + i)
        self.events.extend(events)
        self.times.extend([now] * len(events))

    def hands_begun_after(self, i: int) -> int:
        """How many hands have begun, and been shown to the seats, after absolute index ``i``."""
        starts = self.round_starts
        return bisect_left(starts, self.published) - bisect_right(starts, i)

    def window(self, start: int, stop: int) -> tuple[Event, ...]:
        """Events at absolute indices ``start .. stop - 1`` (all kept: ``start >= base``)."""
        assert start >= self.base, (start, self.base)
        return tuple(self.events[start - self.base : stop - self.base])

    def event(self, i: int) -> Event:
        return self.events[i - self.base]

    def time(self, i: int) -> float:
        return self.times[i - self.base]

    def last(self) -> Event:
        return self.events[-1]

    def publish(self, upto: int, now: float) -> tuple[Event, ...]:
        """Mark events ``published + 1 .. upto`` as seen by the seats now; returns them."""
        return self.publish_rendered(upto, now)[0]

    def publish_rendered(
        self, upto: int, now: float
    ) -> tuple[tuple[Event, ...], tuple[WireEvent | None, ...] | None]:
        """:meth:`publish`, with the step log's rendering of each of them (None: not rendered; no
        tuple when none was)."""
        first = self.published
        if upto <= first:
            return (), None
        rendered = None
        if self.rendered:
            pop = self.rendered.pop
            rendered = tuple(pop(i, None) for i in range(first, upto))
        base, times = self.base, self.times
        for i in range(first - base, upto - base):
            times[i] = now
        self.published = upto
        return self.window(first, upto), rendered

    def forget(self, needed: int) -> None:
        """Nothing before absolute index ``needed`` is needed in memory any more: forget the hands
        that ended before the one holding it (the kept events start at a hand's RoundStarted)."""
        starts = self.hand_starts
        cut = None
        while starts and starts[0] <= needed:
            cut = starts[0]
            if len(starts) > 1 and starts[1] <= needed:
                starts.pop(0)
                continue
            break
        if cut is None or cut <= self.base:
            return
        drop = cut - self.base
        gone = next((e for e in reversed(self.events[:drop]) if isinstance(e, RoundStarted)), None)
        if gone is not None:
            self.forgotten_round = gone
        del self.events[:drop]
        del self.times[:drop]
        self.base = cut


class SpectatorFeed:
    def __init__(self, match_id: str, policy: SpectatePolicy) -> None:
        self.match_id = match_id
        self.policy = policy
        self.members: dict[Participant, bool] = {}  # spectator -> whether it has the caster view
        self.released = 0  # events released so far (versions 1..released)
        self.hold = False  # wall reveals and the seed held back (Seating's ``hold``)
        self.overlay: Overlay | None = None  # projected once someone asked for it (:meth:`overlay_view`)

    def __contains__(self, participant: Participant) -> bool:
        return participant in self.members

    def __bool__(self) -> bool:
        return bool(self.members)

    def add(self, participant: Participant, *, caster: bool = False) -> None:
        self.members[participant] = caster and self.policy.caster

    def is_caster(self, participant: Participant) -> bool:
        return self.members.get(participant, False)

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

    def _due(self, stream: EventStream, i: int, now: float) -> bool:
        """Whether the delay lets event ``i`` (published) go to spectators now."""
        policy = self.policy
        return (
            stream.published - (i + 1) >= policy.delay_steps
            and now - stream.time(i) >= policy.delay_s
            and (policy.delay_hands == 0 or stream.hands_begun_after(i) >= policy.delay_hands)
        )

    def latest_round(self, stream: EventStream, now: float) -> RoundStarted | None:
        """The start of the latest hand a spectator may see now (None: none yet): the newest one
        that the delay has released, or would release to a spectator joining now."""
        for i in range(stream.published - 1, stream.base - 1, -1):
            event = stream.event(i)
            if not isinstance(event, RoundStarted):
                continue
            if i < self.released or self._due(stream, i, now):
                return event
        # Every forgotten event was released (the stream forgets only up to ``released``): the hand
        # forgotten last is what a spectator saw, e.g. while the next one waits for the hand pause.
        return stream.forgotten_round

    def next_release(self, stream: EventStream) -> float | None:
        """When the next event may go out (None: nothing to release, or waiting for steps or hands)."""
        i, policy = self.released, self.policy
        if i >= stream.published or stream.published - (i + 1) < policy.delay_steps:
            return None
        if policy.delay_hands and stream.hands_begun_after(i) < policy.delay_hands:
            return None
        return stream.time(i) + policy.delay_s

    def release(self, now: float, stream: EventStream, *, everything: bool = False) -> bool:
        """Send what the delay allows (all that is published with ``everything``); True if any.
        Without spectators the count moves on all the same (nothing is sent): a spectator who
        joins later catches up to where the delay allows, and the events before need no memory."""
        upto = self.released
        if everything:
            upto = stream.published
        else:
            while upto < stream.published and self._due(stream, upto, now):
                upto += 1
        if upto <= self.released:
            return False
        if self.members or self.overlay is not None:
            window = stream.window(self.released, upto)
            if self.hold:
                window = hold_reveals(window)
            batch = redact_all(window, None)
            if self.overlay is not None:
                self.overlay.apply(batch, upto)
            # every spectator of one view receives the same frames: encoded once (SharedFrames)
            public = [m for m, caster in self.members.items() if not caster]
            casters = [m for m, caster in self.members.items() if caster]
            for members, events in ((public, batch), (casters, redact_all(window, CASTER))):
                if members:
                    item = EventsOut(
                        self.match_id, self.released + 1, events, SharedFrames((True,) * len(events))
                    )
                    for member in members:
                        member.deliver(item)
        self.released = upto
        return True

    def overlay_view(self, stream: EventStream, players: Sequence[str]) -> dict[str, Any]:
        """The stream overlay's document (:mod:`server.hub.overlay`): public information up to what
        the delay has released, as any spectator sees it. Projected from the kept events the first
        time it is asked for, then kept up to date as the delay releases more."""
        if self.overlay is None:
            self.overlay = Overlay(self.match_id, tuple(players))
            start = stream.base
            if stream.forgotten_round is not None and start >= self.released:
                self.overlay.apply((stream.forgotten_round,), self.released)
            if start < self.released:
                window = stream.window(start, self.released)
                self.overlay.apply(
                    redact_all(hold_reveals(window) if self.hold else window, None), self.released
                )
        return self.overlay.document(self.policy)
