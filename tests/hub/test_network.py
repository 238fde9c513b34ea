"""The hub over real localhost websockets: whole matches, reconnection, bad peers, the edges.

Every client here runs each message it receives through the leak scanner; at the end, every event
it received is compared with the omniscient log redacted for its seat. No test sleeps: waits are on
messages, events and closed connections.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from client_protocol.errors import ConnectionLostError, ErrorCode, RequestRejectedError
from client_protocol.messages import (
    Action,
    ActionType,
    ErrorMessage,
    MatchEnd,
    MatchEndReason,
    Prompt,
    Queued,
    Seated,
    SessionAuth,
    Snapshot,
    TokenAuth,
)
from client_protocol.seatview import SeatView as WireSeatView
from client_protocol.tracker import tile_sort_key
from server.domain.records import AccountKind
from server.engine.views import seat_view
from server.hub.server import Hub
from server.hub.settings import PACED_TIMERS, ConnectionLimits, TableTimers
from server.hub.table import TableActor
from server.hub.wire import meld_to_wire, tile_to_wire, tiles_to_wire
from tests.hub.helpers import ScannedClient
from tests.hub.netkit import (
    FAST_LIMITS,
    Raw,
    connect_client,
    http_get,
    next_of,
    play,
    serving,
    small_buffer_socket,
)


def _table(hub: Hub, match_id: str) -> TableActor:
    table = hub.lobby.table(match_id)
    assert table is not None
    return table


async def _verify(hub: Hub, *clients: ScannedClient) -> None:
    for client in clients:
        assert await client.verify(hub.repo) > 0


def assert_view_matches_engine(view: WireSeatView, table: TableActor, seat: int) -> None:
    """The client's rebuilt view against the engine's own seat_view of the authoritative state."""
    assert table.state is not None
    truth = seat_view(table.state, seat)
    mine = view.seats[seat]
    assert mine.hand is not None
    assert sorted(mine.hand, key=tile_sort_key) == sorted(tiles_to_wire(truth.hand), key=tile_sort_key)
    assert mine.drawn == (None if truth.drawn is None else tile_to_wire(truth.drawn))
    assert view.scores == truth.scores
    assert view.dora_indicators == tiles_to_wire(truth.dora_indicators)
    assert view.tiles_left == truth.live_remaining
    assert view.round is not None
    assert (view.round.kyoku, view.round.honba, view.round.riichi_sticks) == (
        truth.kyoku,
        truth.honba,
        truth.riichi_sticks,
    )
    for s, public in enumerate(truth.seats):
        got = view.seats[s]
        assert got.hand_size == public.hand_size and got.riichi == public.riichi
        assert got.norths == public.norths
        assert got.melds == tuple(meld_to_wire(m) for m in public.melds)
        assert [(r.tile, r.tsumogiri, r.sideways, r.called) for r in got.river] == [
            (tile_to_wire(r.tile), r.tsumogiri, r.sideways, r.called) for r in public.river
        ]
        if s != seat:
            assert got.hand is None


# -- whole matches ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_full_match_of_four_network_clients() -> None:
    async with serving() as hub:
        clients = [await connect_client(hub, f"bot{i}") for i in range(4)]
        for client in clients:
            await client.join_queue("tenhou")

        def chooser(seed: int) -> Callable[[Prompt], Action]:
            rng = random.Random(seed)
            return lambda p: rng.choice(p.legal_actions)

        ends = await asyncio.gather(*(play(c, chooser(i)) for i, c in enumerate(clients)))
        match_ids = {c.match_id for c in clients}
        assert len(match_ids) == 1 and sorted(c.seat for c in clients) == [0, 1, 2, 3]  # type: ignore[type-var]
        match_id = match_ids.pop()
        assert match_id is not None
        result = await hub.repo.get_result(match_id)
        assert result is not None
        for end in ends:
            assert isinstance(end, MatchEnd) and end.reason is MatchEndReason.COMPLETED
            assert end.result is not None and end.result.ranks == result.ranks
        await _verify(hub, *clients)
        for client in clients:
            assert client.tracker is not None and client.tracker.view().match_result is not None
            await client.close()


@pytest.mark.asyncio
async def test_a_mixed_table_of_one_client_and_three_bots() -> None:
    async with serving() as hub:
        client = await connect_client(hub)
        await client.join_queue("tenhou+bots")
        end = await play(client)
        assert isinstance(end, MatchEnd) and end.result is not None
        seated = next(m for m in client.received if isinstance(m, Seated))
        assert [p.kind.value for p in seated.players].count("bot") == 3
        await _verify(hub, client)
        await client.close()


# -- reconnection -----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_reconnect_in_the_middle_of_a_hand_resumes_exactly() -> None:
    timers = TableTimers(action_ms=60_000, bank_ms=0, disconnect_grace_ms=60_000)
    async with serving(timers=timers) as hub:
        client = await connect_client(hub)
        await client.join_queue("tenhou+bots")
        turns = 0

        def deep_in_a_hand(message: object) -> bool:
            nonlocal turns
            if isinstance(message, Prompt) and any(
                a.type is ActionType.DISCARD for a in message.legal_actions
            ):
                turns += 1
                return turns >= 6 and client.tracker is not None and client.tracker.version > 70
            return False

        prompt = await play(client, stop=deep_in_a_hand)
        assert isinstance(prompt, Prompt) and client.match_id is not None and client.seat is not None
        table = _table(hub, client.match_id)
        before = client.tracker.view()  # type: ignore[union-attr]
        last_applied = max(table._decisions._answered[client.seat])
        # The connection drops; a new one authenticates with the session token and resumes. The
        # welcome names the last request id applied, for a client that lost its own count.
        welcome = await client.reconnect()
        assert [(s.match_id, s.seat, s.last_request_id) for s in welcome.seats] == [
            (client.match_id, client.seat, last_applied)
        ]
        again = await next_of(client, Prompt)
        assert again.step == prompt.step and again.legal_actions == prompt.legal_actions
        assert client.tracker is not None and client.tracker.view() == before
        assert_view_matches_engine(client.tracker.view(), table, client.seat)
        # Resuming from nothing: too much is missing, so a snapshot comes, equal to the client's fold.
        await client.resume(client.match_id, since_version=0)
        snapshot = await next_of(client, Snapshot)
        assert snapshot.view == before and snapshot.version == before_version(client)
        third = await next_of(client, Prompt)
        assert third.step == prompt.step
        assert_view_matches_engine(client.tracker.view(), table, client.seat)
        await client.act(third.legal_actions[0], step=third.step)
        end = await play(client)
        assert isinstance(end, MatchEnd)
        await _verify(hub, client)
        await client.close()


def before_version(client: ScannedClient) -> int:
    assert client.tracker is not None
    return client.tracker.version


@pytest.mark.asyncio
async def test_a_new_connection_of_the_same_player_replaces_the_old() -> None:
    async with serving() as hub:
        first = await connect_client(hub)
        assert first.welcome is not None
        second = await connect_client(hub, auth=SessionAuth(session_token=first.welcome.session_token))
        with pytest.raises(ConnectionLostError) as lost:
            await first.recv()
        assert lost.value.code == 4001 and "replaced" in lost.value.reason  # CLOSE_REPLACED
        assert second.welcome is not None and second.welcome.player.id == first.welcome.player.id
        await second.close()


# -- bad peers --------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_client_that_stops_reading_is_dropped_and_the_table_finishes() -> None:
    limits = ConnectionLimits(
        outbound_queue=48,
        snapshot_after=16,
        write_limit=1024,
        send_buffer_bytes=4096,
        close_timeout_s=0.5,
        hello_timeout_s=5,
    )
    async with serving(limits=limits, timers=TableTimers(action_ms=0, bank_ms=0)) as hub:
        raw, welcome = await Raw.guest(hub, "sloth", sock=small_buffer_socket(hub), max_queue=1)
        await raw.send({"type": "join", "target": {"type": "queue", "preset": "tenhou+bots"}})
        seated = await raw.expect(Seated)
        table = _table(hub, seated.match_id)
        # ... and the client reads nothing more. The table must not wait for it.
        await asyncio.wait_for(table.ended.wait(), 20)
        assert table.outcome is not None and table.outcome.reason is MatchEndReason.COMPLETED
        code, read = await raw.until_closed()
        assert code == 1006 and read < len(await table.history())  # aborted: no close frame, events lost
        assert hub.connection_of(welcome["player"]["id"]) is None
        assert not raw.leaks


@pytest.mark.asyncio
async def test_a_garbage_flood_gets_the_sender_closed_while_another_table_plays_on() -> None:
    async with serving() as hub:
        player = await connect_client(hub, "steady")
        await player.join_queue("tenhou+bots")
        flooder, _ = await Raw.guest(hub, "flood")

        async def flood() -> tuple[int | None, int]:
            garbage: list[str | bytes] = ["not json", "[]", '{"type":"dance"}', b"\x00\x01", '{"type":"act"}']
            try:
                for i in range(500):
                    await flooder.send(garbage[i % len(garbage)])
            except ConnectionClosed:
                pass
            return await flooder.until_closed()

        (code, _), end = await asyncio.gather(flood(), play(player))
        assert code == 1008
        assert isinstance(end, MatchEnd) and end.reason is MatchEndReason.COMPLETED
        await _verify(hub, player)
        await player.close()


@pytest.mark.asyncio
async def test_too_many_messages_are_rate_limited_then_closed() -> None:
    limits = ConnectionLimits(rate_per_s=1, rate_burst=3, max_violations=4, close_timeout_s=0.5)
    async with serving(limits=limits) as hub:
        raw, _ = await Raw.guest(hub)
        for nonce in range(10):
            await raw.send({"type": "ping", "nonce": nonce})
        replies = [await raw.recv_json() for _ in range(7)]
        assert [r["type"] for r in replies[:3]] == ["pong"] * 3
        assert [r.get("code") for r in replies[3:]] == ["rate_limited"] * 4
        code, _ = await raw.until_closed()
        assert code == 1008


@pytest.mark.asyncio
async def test_an_oversized_frame_closes_the_connection() -> None:
    async with serving() as hub:
        raw, _ = await Raw.guest(hub)
        await raw.send(json.dumps({"type": "ping", "nonce": 1, "pad": "x" * 5000}))
        code, _ = await raw.until_closed()
        assert code == 1009


# -- the protocol's error cases ---------------------------------------------------------------------


@pytest.mark.asyncio
async def test_duplicate_stale_out_of_turn_illegal_and_malformed_acts() -> None:
    timers = TableTimers(action_ms=60_000, bot_delay_ms=60_000)
    async with serving(timers=timers, keep_order=True) as hub:
        client = await connect_client(hub)
        await client.join_queue("tenhou+bots")
        prompt = await next_of(client, Prompt)
        assert prompt.seat == 0 and prompt.step == 3  # the dealer, after the 3 events of the deal
        legal = set(prompt.legal_actions)
        illegal = next(
            Action(type=ActionType.DISCARD, tile=t, tsumogiri=False)
            for t in ("1m", "9m", "1p", "9p", "1s", "9s", "1z", "7z")
            if Action(type=ActionType.DISCARD, tile=t, tsumogiri=False) not in legal
        )
        codes = []
        for action, step in ((illegal, 3), (prompt.legal_actions[0], 5)):
            with pytest.raises(RequestRejectedError) as err:
                await client.act(action, step=step)
            codes.append(err.value.code)
        assert codes == [ErrorCode.ILLEGAL_ACTION, ErrorCode.STALE_STEP]
        ack = await client.act(prompt.legal_actions[0], step=3, request_id=4242)
        dup = await client.act(prompt.legal_actions[0], step=3, request_id=4242)
        assert (ack.duplicate, dup.duplicate, dup.step) == (False, True, 3)
        # Now a bot is thinking over its turn (a bot that could call the discard passed at once).
        assert client.match_id is not None
        table = hub.lobby.tables[client.match_id]
        await table.settle()
        assert table.state is not None
        now = table.state.step
        for step, code in ((3, ErrorCode.STALE_STEP), (table.version + 1, ErrorCode.NOT_YOUR_TURN)):
            with pytest.raises(RequestRejectedError) as err:
                await client.act(prompt.legal_actions[0], step=step)
            assert err.value.code is code
        # Malformed and unknown messages are answered and change nothing.
        ws = client._ws
        assert ws is not None
        await ws.send('{"type":"act","request_id":99,"step":"1","action":{"type":"pass"}}')
        await ws.send('{"type":"act","request_id":98,"step":1,"action":{"type":"discard","tile":"5x"}}')
        await ws.send('{"type":"teleport","request_id":97}')
        errors = [await next_of(client, ErrorMessage) for _ in range(3)]
        assert [(e.code, e.request_id) for e in errors] == [
            (ErrorCode.MALFORMED, 99),
            (ErrorCode.MALFORMED, 98),
            (ErrorCode.UNKNOWN_TYPE, 97),
        ]
        assert await hub.repo.step_count(client.match_id or "") == now + 1
        # A spectator may watch but not act.
        watcher = await connect_client(hub, "watcher")
        assert client.match_id is not None
        await watcher.spectate(client.match_id)
        await next_of(watcher, Seated)
        with pytest.raises(RequestRejectedError) as err:
            await watcher.act(prompt.legal_actions[0], step=1)
        assert err.value.code is ErrorCode.FORBIDDEN
        await watcher.close()
        await client.close()


@pytest.mark.asyncio
async def test_hello_errors() -> None:
    limits = ConnectionLimits(hello_timeout_s=0.3, close_timeout_s=0.5)
    async with serving(limits=limits) as hub:
        old = await Raw.open(hub, hello={"type": "hello", "protocol": 99, "auth": {"type": "guest"}})
        assert (await old.recv_json())["code"] == "bad_version"
        assert (await old.until_closed())[0] == 1008
        early = await Raw.open(hub, hello={"type": "ping", "nonce": 1})
        assert (await early.recv_json())["code"] == "unauthenticated"
        await early.send({"type": "hello", "protocol": 1, "auth": {"type": "guest"}})
        assert (await early.recv_json())["type"] == "welcome"
        await early.close()
        bad = await Raw.open(
            hub, hello={"type": "hello", "protocol": 1, "auth": {"type": "token", "token": "b-x.y"}}
        )
        assert (await bad.recv_json())["code"] == "unauthenticated"
        assert (await bad.until_closed())[0] == 1008
        silent = await Raw.open(hub)
        assert (await silent.recv_json())["code"] == "unauthenticated"
        assert (await silent.until_closed())[0] == 1008


@pytest.mark.asyncio
async def test_browser_origins_are_checked() -> None:
    async with serving(allowed_origins=("https://friend.test",)) as hub:
        port = urlsplit(hub.url).port
        # Scheme, host and port are compared: another port or scheme of the same host is another
        # web app (any page served on this machine could otherwise open browser connections).
        for evil in (
            "https://evil.test",
            "http://127.0.0.1:1",
            "http://127.0.0.1:3000",
            "ws://127.0.0.1",
            f"ws://127.0.0.1:{port}",
            "http://friend.test",
            "https://friend.test:8443",
            "null",
        ):
            with pytest.raises(InvalidStatus) as err:
                await connect(hub.url, origin=evil)  # type: ignore[arg-type]
            assert err.value.response.status_code == 403, evil
        for origin in (f"http://127.0.0.1:{port}", "https://friend.test", "https://friend.test:443", None):
            ws = await connect(hub.url, origin=origin)  # type: ignore[arg-type]
            await ws.close()


@pytest.mark.asyncio
async def test_http_endpoints_and_a_private_table() -> None:
    async with serving(timers=PACED_TIMERS) as hub:  # the server paces; this table does not
        assert await http_get(hub, "/healthz") == (200, "ok\n")
        status, body = await http_get(hub, "/")
        assert status == 200 and "<!doctype html>" in body  # the browser client
        assert (await http_get(hub, "/nope"))[0] == 404
        assert (await http_get(hub, "/private/new?bots=2"))[0] == 401
        alice = await connect_client(hub, "alice")
        assert alice.welcome is not None
        auth = {"Authorization": f"Bearer {alice.welcome.session_token}"}
        status, body = await http_get(hub, "/private/new?bots=9", auth)
        assert status == 422 and json.loads(body)["error"]["details"][0]["loc"] == ["query", "bots"]
        rules = '{"start_points":30000,"return_points":30000}'
        query = f"bots=2&action_ms=3000&hand_pause_ms=0&bot_delay_ms=0&rules={rules}"
        status, body = await http_get(hub, f"/private/new?{query}", auth)
        assert status == 200, body
        invite = json.loads(body)
        assert invite["players_needed"] == 2
        bob = await connect_client(hub, "bob")
        await alice.join_private(invite["code"])
        assert (await next_of(alice, Queued)).players_waiting == 1
        await bob.join_private(invite["code"])
        seated = await next_of(bob, Seated)
        assert (await next_of(alice, Seated)).match_id == seated.match_id
        table = _table(hub, seated.match_id)
        assert table.ruleset.start_points == 30000 and table.timers.action_ms == 3000
        assert table.timers.hand_pause_ms == 0 and table.timers.bot_delay_ms == 0
        ends = await asyncio.gather(play(alice), play(bob))
        assert all(isinstance(e, MatchEnd) for e in ends)
        await _verify(hub, alice, bob)
        await alice.close()
        await bob.close()


@pytest.mark.asyncio
async def test_graceful_shutdown_closes_with_1012() -> None:
    async with serving(timers=TableTimers(bot_delay_ms=60_000), limits=FAST_LIMITS) as hub:
        client = await connect_client(hub)
        await client.join_queue("tenhou+bots")
        await next_of(client, Seated)
        await hub.shutdown()
        with pytest.raises(ConnectionLostError) as lost:
            while True:
                await client.recv()
        assert lost.value.code == 1012
        with pytest.raises((InvalidStatus, OSError)):
            await connect(hub.url)
        await client.close()


@pytest.mark.asyncio
async def test_api_tokens_authenticate_bots() -> None:
    async with serving() as hub:
        account, token = await hub.auth.create_account("robo", AccountKind.BOT)
        bot = await connect_client(hub, auth=TokenAuth(token=token))
        assert bot.welcome is not None and bot.welcome.player.kind.value == "bot"
        assert bot.welcome.player.id == account.id
        await bot.join_queue("tenhou+bots")
        end = await play(bot)
        assert isinstance(end, MatchEnd)
        await _verify(hub, bot)
        await bot.close()
