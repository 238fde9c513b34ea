"""Spectating for streams (docs/social.md#spectating-for-streams): a delay in hands, the caster view
with every hand open (only after the delay, only where the policy offers it), named observers, and
the read-only overlay document, which holds nothing a spectator could not see at the same moment."""

from __future__ import annotations

import json

import pytest

from client_protocol.errors import ErrorCode
from server.domain.records import AccountKind
from server.engine import apply, default_action, new_match, pending_seats
from server.engine.events import Event, MatchEnded, RoundStarted, TileDrawn
from server.hub.clock import SystemClock
from server.hub.livetables import table_entry
from server.hub.outputs import CatchupOut, ErrorOut, EventsOut
from server.hub.overlay import Overlay
from server.hub.placement import LocalPlacement
from server.hub.settings import HubSettings, SettingsError, SpectatePolicy, TableTimers
from server.hub.spectators import EventStream, SpectatorFeed
from server.hub.table import TableActor
from server.hub.tables import LocalTables
from server.services.tables import SeatRequest, TableSpec
from server.store.memory import InMemoryRepository
from tests.hub.helpers import EAST, FakeParticipant, account

QUICK = TableTimers(action_ms=0, bank_ms=0)


def hands_of_play(n_hands: int) -> list[tuple[Event, ...]]:
    """The omniscient events of a bot-played east game, one tuple per step, through ``n_hands``
    hands (or the match's end)."""
    t = new_match(EAST, b"stream")
    steps = [t.events]
    hands = 1
    while not isinstance(t.events[-1], MatchEnded) and pending_seats(t.state):
        seat = pending_seats(t.state)[0]
        t = apply(t.state, seat, default_action(t.state, seat))
        steps.append(t.events)
        hands += sum(isinstance(e, RoundStarted) for e in t.events)
        if hands > n_hands:
            break
    return steps


def hand_of(events: list[Event], i: int) -> int:
    return sum(isinstance(e, RoundStarted) for e in events[: i + 1])


# -- the delay in hands ---------------------------------------------------------------------------


def test_a_hand_delay_shows_a_hand_only_once_the_next_one_has_begun() -> None:
    stream = EventStream()
    feed = SpectatorFeed("m", SpectatePolicy(delay_s=0.0, delay_hands=1))
    watcher = FakeParticipant(account("watcher"))
    feed.add(watcher)
    every: list[Event] = []
    for step in hands_of_play(3):
        stream.append(step, 0.0)
        stream.publish(len(stream), 0.0)
        every.extend(step)
        feed.release(0.0, stream)
        # Whatever was released belongs to a hand at least one hand older than the newest begun.
        newest = hand_of(every, len(every) - 1)
        assert all(hand_of(every, i) < newest for i in range(feed.released))
    seen = [e for out in watcher.of(EventsOut) for e in out.events]
    assert seen, "the first hands were released once the next ones began"
    assert hand_of(every, len(seen) - 1) < hand_of(every, len(every) - 1)
    assert feed.next_release(stream) is None  # the rest waits for a hand, not for a time


def test_without_a_hand_delay_the_same_stream_goes_out_as_it_is_published() -> None:
    stream = EventStream()
    feed = SpectatorFeed("m", SpectatePolicy(delay_s=0.0))
    for step in hands_of_play(2):
        stream.append(step, 0.0)
        stream.publish(len(stream), 0.0)
        feed.release(0.0, stream)
        assert feed.released == len(stream)


def test_the_policy_refuses_nonsense() -> None:
    with pytest.raises(SettingsError):
        SpectatePolicy(delay_hands=-1)
    with pytest.raises(SettingsError):
        SpectatePolicy(delay_hands=17)
    with pytest.raises(SettingsError, match="caster"):
        SpectatePolicy(delay_s=5.0, caster=True)  # open hands five seconds late: a collusion channel
    SpectatePolicy(delay_s=0.0, delay_hands=1, caster=True)
    SpectatePolicy(delay_s=60.0, caster=True)
    with pytest.raises(SettingsError):
        SpectatePolicy(observers=("",))


# -- the caster view --------------------------------------------------------------------------------


def test_the_caster_sees_every_hand_open_and_a_spectator_sees_none_of_it() -> None:
    stream = EventStream()
    feed = SpectatorFeed("m", SpectatePolicy(delay_s=0.0, delay_hands=1, caster=True))
    public, caster = FakeParticipant(account("public")), FakeParticipant(account("caster"))
    feed.add(public)
    feed.add(caster, caster=True)
    for step in hands_of_play(3):
        stream.append(step, 0.0)
        stream.publish(len(stream), 0.0)
        feed.release(0.0, stream)
    shown = [e for out in public.of(EventsOut) for e in out.events]
    opened = [e for out in caster.of(EventsOut) for e in out.events]
    assert len(shown) == len(opened) == feed.released > 0
    deals = [e for e in opened if isinstance(e, RoundStarted)]
    assert deals and all(all(h is not None for h in e.hands) for e in deals)
    assert any(isinstance(e, TileDrawn) and e.tile is not None for e in opened)
    assert all(all(h is None for h in e.hands) for e in shown if isinstance(e, RoundStarted))
    assert all(e.tile is None for e in shown if isinstance(e, TileDrawn))


def test_a_policy_without_a_caster_view_gives_the_public_one_to_whoever_asks() -> None:
    feed = SpectatorFeed("m", SpectatePolicy(delay_s=0.0))
    p = FakeParticipant(account("sneaky"))
    feed.add(p, caster=True)
    assert not feed.is_caster(p)


# -- on a live table: the lobby's checks, named observers, the overlay -----------------------------


async def live_table(policy: SpectatePolicy) -> tuple[LocalTables, TableActor]:
    tables = LocalTables(
        repo=InMemoryRepository(),
        clock=SystemClock(),
        settings=HubSettings(timers=QUICK, spectate=policy),
        placement=LocalPlacement(),
        seed_source=lambda: b"stream",
    )
    spec = TableSpec(
        seats=tuple(SeatRequest.built_in("greedy") for _ in range(4)),
        ruleset=EAST,
        source="private:WATCH",
        timers=QUICK,
        spectate=policy,
    )
    table = await tables.start(tables.reserve(spec, {}))
    return tables, table


@pytest.mark.asyncio
async def test_named_observers_only_and_the_caster_view_on_a_live_table() -> None:
    from server.hub.lobby import Lobby  # the checks live where a spectate request lands

    policy = SpectatePolicy(delay_s=0.0, delay_hands=1, caster=True, observers=("olga",))
    tables, table = await live_table(policy)
    lobby = Lobby.__new__(Lobby)  # only ``tables`` is read by ``spectate``
    lobby.tables = {table.match_id: table}
    olga = FakeParticipant(account("olga", AccountKind.PLAYER))
    guest_olga = FakeParticipant(account("olga", AccountKind.GUEST))  # a guest's name proves nothing
    stranger = FakeParticipant(account("stranger", AccountKind.PLAYER))
    assert await lobby.spectate(stranger, table.match_id, 1) is None
    assert await lobby.spectate(guest_olga, table.match_id, 2) is None
    for refused in (stranger, guest_olga):
        (error,) = refused.of(ErrorOut)
        assert error.code is ErrorCode.FORBIDDEN and "named observers" in error.message
    assert await lobby.spectate(olga, table.match_id, 3, caster=True) is table
    assert table_entry(table) is None  # not in the public list of live tables
    await table.ended.wait()
    await table.settle()
    catchup = [e for out in olga.of(CatchupOut) for e in out.events]
    live = [e for out in olga.of(EventsOut) for e in out.events]
    deals = [e for e in catchup + live if isinstance(e, RoundStarted)]
    assert deals and all(all(h is not None for h in e.hands) for e in deals)
    assert tables  # kept alive to the end


@pytest.mark.asyncio
async def test_the_caster_view_is_refused_where_the_policy_offers_none() -> None:
    from server.hub.lobby import Lobby

    _, table = await live_table(SpectatePolicy(delay_s=0.0))
    lobby = Lobby.__new__(Lobby)
    lobby.tables = {table.match_id: table}
    p = FakeParticipant(account("viewer"))
    assert await lobby.spectate(p, table.match_id, 7, caster=True) is None
    (error,) = p.of(ErrorOut)
    assert error.code is ErrorCode.FORBIDDEN and "caster" in error.message
    await table.ended.wait()


def test_the_overlay_follows_the_released_events_and_holds_no_concealed_tile() -> None:
    stream = EventStream()
    policy = SpectatePolicy(delay_s=0.0, delay_hands=1)
    feed = SpectatorFeed("m", policy)
    players = ("a", "b", "c", "d")
    every: list[Event] = []
    for step in hands_of_play(3):
        stream.append(step, 0.0)
        stream.publish(len(stream), 0.0)
        every.extend(step)
        feed.release(0.0, stream)
        document = feed.overlay_view(stream, players)
        assert document["version"] == feed.released
    # The overlay equals a fresh projection of exactly the released, redacted events.
    fresh = Overlay("m", players)
    from server.engine import redact_all

    fresh.apply(redact_all(tuple(every[: feed.released]), None), feed.released)
    assert feed.overlay_view(stream, players) == fresh.document(policy)
    document = feed.overlay_view(stream, players)
    assert document["round"] is not None and len(document["seats"]) == 4
    assert any(seat["discards"] for seat in document["seats"])
    text = json.dumps(document)
    assert '"wall"' not in text and '"salt"' not in text and '"hand"' not in text
    # Nothing of the hand still being played (beyond the delay) is in it.
    newest = max(i for i, e in enumerate(every) if isinstance(e, RoundStarted))
    assert feed.released <= newest


def test_an_overlay_asked_for_late_starts_from_the_hand_the_delay_has_released() -> None:
    stream = EventStream()
    policy = SpectatePolicy(delay_s=0.0)
    feed = SpectatorFeed("m", policy)
    steps = hands_of_play(2)
    for step in steps:
        stream.append(step, 0.0)
        stream.publish(len(stream), 0.0)
        feed.release(0.0, stream)
        stream.forget(feed.released)
    late = feed.overlay_view(stream, ("a", "b", "c", "d"))
    every = [e for step in steps for e in step]
    last_deal = next(e for e in reversed(every) if isinstance(e, RoundStarted))
    assert late["round"]["kyoku"] == last_deal.kyoku + 1
    assert late["version"] == len(stream)
