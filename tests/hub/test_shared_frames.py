"""Public events are encoded once per published batch and shared by the seats; private ones never
are (issue 17: a shared rendering only where the bytes are public). server/hub/seating.py decides
what is public, server/hub/session.py renders."""

from __future__ import annotations

from server.engine import apply, legal_actions, new_match, pending_seats, redact_all
from server.engine.events import Event, RoundStarted, TileDrawn
from server.engine.rules import preset
from server.hub.clock import ManualClock
from server.hub.outputs import EventsOut, Outbound
from server.hub.seating import Seating
from server.hub.session import ProtocolSession
from server.hub.settings import ConnectionLimits, SpectatePolicy
from server.hub.spectators import SpectatorFeed
from tests.hub.corekit import Directory, Sink


def _batch() -> tuple[Event, ...]:
    """The deal (public and private events) and a few moves (discards: public; draws: private)."""
    t = new_match(preset("tenhou"), b"shared-frames")
    events = list(t.events)
    state = t.state
    for _ in range(6):
        seat = pending_seats(state)[0]
        action = min(legal_actions(state, seat), key=repr)
        t = apply(state, seat, action)
        events.extend(t.events)
        state = t.state
    return tuple(events)


def _sessions() -> list[tuple[ProtocolSession, Sink]]:
    out = []
    for _ in range(4):
        sink = Sink()
        out.append((ProtocolSession(sink, Directory(), ManualClock(), ConnectionLimits()), sink))
    return out


def _published(batch: tuple[Event, ...]) -> list[list[bytes]]:
    """What each seat's connection sends when the table publishes ``batch`` (shared frames)."""
    sessions = _sessions()
    seating = Seating(SpectatorFeed("m-1", SpectatePolicy()))
    for seat, (core, _) in enumerate(sessions):
        seating.take(seat, core)
    seating.publish("m-1", 7, batch)
    return [sink.frames for _, sink in sessions]


def _alone(batch: tuple[Event, ...]) -> list[list[bytes]]:
    """What each seat's connection sends when it renders its own redacted batch (no sharing)."""
    out = []
    for seat, (core, sink) in enumerate(_sessions()):
        core.deliver(EventsOut("m-1", 7, redact_all(batch, seat)))
        out.append(sink.frames)
    return out


def test_shared_renderings_are_byte_identical_to_per_seat_ones() -> None:
    batch = _batch()
    assert any(isinstance(e, RoundStarted) for e in batch) and any(isinstance(e, TileDrawn) for e in batch)
    assert _published(batch) == _alone(batch)


def test_public_frames_are_shared_and_private_ones_never() -> None:
    batch = _batch()
    frames = _published(batch)
    for i, event in enumerate(batch):
        private = isinstance(event, RoundStarted) or (isinstance(event, TileDrawn) and event.tile is not None)
        same_object = all(frames[s][i] is frames[0][i] for s in range(4))
        if private:
            assert not same_object, f"event {i} ({type(event).__name__}) must be each seat's own"
            assert len({frames[s][i] for s in range(4)}) > 1, "a private event reads differently per seat"
        else:
            assert same_object, f"event {i} ({type(event).__name__}) is public: encoded once"


def test_a_private_event_is_not_shared_even_when_only_its_owner_is_connected() -> None:
    batch = tuple(e for e in _batch() if isinstance(e, TileDrawn))
    seating = Seating(SpectatorFeed("m-1", SpectatePolicy()))
    (core, sink), *_ = _sessions()
    owner = batch[0].seat
    seating.take(owner, core)
    delivered: list[Outbound] = []
    spy, _ = _sessions()[1]
    spy.deliver = delivered.append  # type: ignore[method-assign,assignment]
    seating.take((owner + 1) % 4, spy)
    seating.publish("m-1", 1, batch[:1])
    (item,) = delivered
    assert isinstance(item, EventsOut) and item.shared is None, "nothing public: nothing shared"
    assert sink.frames and b'"tile":null' not in sink.frames[0]
