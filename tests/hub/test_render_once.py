"""Events are rendered once per step: the wire structs the step log was made of are the ones the
seats that see an event whole are sent (every public event, a seat's own draw); only a redacted
copy is rendered again, per seat. Spectators share one rendering of their batch. The bytes are
those of rendering every seat's events on its own (tests/hub/test_shared_frames.py)."""

from __future__ import annotations

import json

import pytest

from server.domain.records import AccountKind
from server.engine import redact
from server.engine.events import Event, RoundStarted, TileDrawn
from server.eventlog.codec import render_events
from server.eventlog.convert import event_to_wire
from server.hub import outputs
from server.hub.clock import ManualClock
from server.hub.inbox import SeatSpec
from server.hub.outputs import EventsOut
from server.hub.seating import Seating
from server.hub.session import ProtocolSession
from server.hub.settings import ConnectionLimits, SpectatePolicy, TableTimers
from server.hub.spectators import EventStream, SpectatorFeed
from server.hub.table import TableActor
from server.hub.tablesetup import TableDeps, TableSetup
from server.store.memory import InMemoryRepository
from tests.hub.corekit import Directory, Sink
from tests.hub.helpers import EAST, account
from tests.hub.test_shared_frames import _alone, _batch, _sessions


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[Event]:
    rendered: list[Event] = []
    real = event_to_wire

    def counting(event: Event) -> object:
        rendered.append(event)
        return real(event)

    monkeypatch.setattr(outputs, "event_to_wire", counting)
    return rendered


def test_the_logs_rendering_is_sent_and_only_redacted_copies_are_rendered_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    batch = _batch()
    log_rendering = render_events(batch)
    again = _counting(monkeypatch)
    sessions = _sessions()
    seating = Seating(SpectatorFeed("m-1", SpectatePolicy()))
    for seat, (core, _) in enumerate(sessions):
        seating.take(seat, core)
    seating.publish("m-1", 7, batch, log_rendering)
    assert [sink.frames for _, sink in sessions] == _alone(batch)
    expected = [
        redact(event, seat)
        for event in batch
        for seat in range(4)
        if isinstance(event, RoundStarted) or (isinstance(event, TileDrawn) and event.seat != seat)
    ]
    assert sorted(map(repr, again)) == sorted(map(repr, expected))
    assert all(e is not o for e in again for o in batch), "an event the log rendered was rendered again"


def test_spectators_share_one_rendering_of_their_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    batch = _batch()
    feed = SpectatorFeed("m-1", SpectatePolicy(delay_steps=0, delay_s=0.0))
    watchers = _sessions()[:2]
    for core, _ in watchers:
        feed.add(core)
    stream = EventStream()
    stream.append(batch, 0.0)
    stream.publish(len(batch), 0.0)
    again = _counting(monkeypatch)
    assert feed.release(0.0, stream, everything=True)
    frames_a, frames_b = (sink.frames for _, sink in watchers)
    assert frames_a == frames_b and all(x is y for x, y in zip(frames_a, frames_b, strict=True))
    assert len(again) == len(batch), "each event rendered once for all the spectators"
    spectator_alone = _sessions()[0]
    spectator_alone[0].deliver(EventsOut("m-1", 1, tuple(redact(e, None) for e in batch)))
    assert spectator_alone[1].frames == frames_a


@pytest.mark.asyncio
async def test_a_table_sends_its_logs_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end: four sessions of our protocol play at a table; once the deal is out, the only
    events their frames are rendered from again are other seats' draws (and the next deals)."""
    clock, directory = ManualClock(), Directory()
    sinks = [Sink() for _ in range(4)]
    cores = [ProtocolSession(sink, directory, clock, ConnectionLimits()) for sink in sinks]
    for seat, core in enumerate(cores):
        core.authenticated(account(f"p{seat}", AccountKind.PLAYER))
    specs = [SeatSpec(name=c.account.name, kind=c.account.kind, account_id=c.account.id) for c in cores]
    table = TableActor(
        TableSetup(
            match_id="m-1",
            ruleset=EAST,
            seed=b"render-once",
            seats=specs,
            timers=TableTimers(min_call_ms=0, hand_pause_ms=0),
            spectate=SpectatePolicy(),
        ),
        TableDeps(repo=InMemoryRepository(), clock=clock),
    )
    directory.tables["m-1"] = table  # type: ignore[assignment]
    await table.start(dict(enumerate(cores)))
    await table.settle()
    again = _counting(monkeypatch)
    acts = 0
    while acts < 40:
        for core, sink in zip(cores, sinks, strict=True):
            prompts = [f for f in sink.json() if f["type"] == "prompt"]
            if prompts:
                act = {"type": "act", "request_id": acts + 1, "step": prompts[-1]["step"]}
                core.receive(json.dumps(act | {"action": prompts[-1]["legal_actions"][0]}))
                await table.settle()
                acts += 1
    assert table.state is not None and table.state.step >= 40
    assert again, "other seats' draws are rendered for them"
    for event in again:
        redacted_draw = isinstance(event, TileDrawn) and event.tile is None
        assert redacted_draw or isinstance(event, RoundStarted), f"{event} was rendered again"
    await table.stop()
