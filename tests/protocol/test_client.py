"""The async client library against a tiny scripted websockets server on localhost (no sleeping)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from types import ModuleType
from typing import TypeVar

import pytest
from websockets.asyncio.server import ServerConnection, serve

from client_protocol import PROTOCOL_VERSION
from client_protocol import client as client_module
from client_protocol import events as w
from client_protocol.client import Client
from client_protocol.codec import decode_client, encode
from client_protocol.errors import ConnectionLostError, ErrorCode, ProtocolError, RequestRejectedError
from client_protocol.messages import (
    Ack,
    Act,
    Action,
    ActionType,
    ClientMessage,
    ErrorMessage,
    EventMessage,
    GuestAuth,
    Hello,
    Join,
    Leave,
    MatchEnd,
    MatchEndReason,
    MatchResult,
    Ping,
    Player,
    PlayerKind,
    Pong,
    Prompt,
    QueueTarget,
    Resume,
    Seated,
    SeatInfo,
    ServerMessage,
    SessionAuth,
    Snapshot,
    TablePlayer,
    TokenAuth,
    Welcome,
)
from tests.modload import REPO, load_module
from tests.protocol.samples import EVENTS, LEGAL, VIEW

M = TypeVar("M", bound=ClientMessage)
Handler = Callable[[ServerConnection], Awaitable[None]]
MATCH = "m-1"
PASS = Action(type=ActionType.PASS)
DISCARD = Action(type=ActionType.DISCARD, tile="1z", tsumogiri=True)


@contextlib.asynccontextmanager
async def fake_server(handler: Handler) -> AsyncIterator[str]:
    """Serve ``handler`` on a free localhost port; an assertion failing inside it fails the test."""
    failures: list[BaseException] = []

    async def guarded(ws: ServerConnection) -> None:
        try:
            await handler(ws)
        except Exception as exc:  # surfaced below, after the client side ran
            failures.append(exc)
            raise

    async with asyncio.timeout(10), serve(guarded, "127.0.0.1", 0, compression=None) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/ws"
    if failures:
        raise failures[0]


async def expect(ws: ServerConnection, cls: type[M]) -> M:
    message = decode_client(await ws.recv())
    assert isinstance(message, cls), message
    return message


async def send(ws: ServerConnection, *messages: ServerMessage) -> None:
    for message in messages:
        await ws.send(encode(message), text=True)


async def handshake(ws: ServerConnection, *, seats: tuple[SeatInfo, ...] = ()) -> Hello:
    hello = await expect(ws, Hello)
    assert hello.protocol == PROTOCOL_VERSION
    await send(
        ws,
        Welcome(
            protocol=PROTOCOL_VERSION,
            session_id="sess",
            session_token="resume-me",
            player=Player(id="p1", name="bot", kind=PlayerKind.GUEST),
            seats=seats,
            max_message_bytes=4096,
        ),
    )
    return hello


def event(version: int) -> EventMessage:
    """Version 1 deals a hand; later versions are draws by seat 1."""
    if version == 1:
        deal = next(e for e in EVENTS if isinstance(e, w.RoundStarted))
        return EventMessage(match_id=MATCH, version=1, event=deal)
    return EventMessage(match_id=MATCH, version=version, event=w.TileDrawn(seat=1, tile=None, rinshan=False))


def prompt(step: int, version: int) -> Prompt:
    return Prompt(
        match_id=MATCH,
        step=step,
        seat=0,
        version=version,
        legal_actions=(PASS,),
        deadline_ms=5000,
        bank_ms=10000,
    )


def seated(seat: int = 0) -> Seated:
    return Seated(
        match_id=MATCH,
        seat=seat,
        players=tuple(TablePlayer(name=f"p{i}", kind=PlayerKind.BOT) for i in range(4)),
    )


def match_end() -> MatchEnd:
    result = MatchResult(scores=(25000,) * 4, ranks=(1, 2, 3, 4), final_points=(35.0, 5.0, -15.0, -25.0))
    return MatchEnd(match_id=MATCH, reason=MatchEndReason.COMPLETED, result=result)


async def collect_until(client: Client, stop: type[ServerMessage]) -> list[ServerMessage]:
    out: list[ServerMessage] = []
    async for message in client:
        out.append(message)
        if isinstance(message, stop):
            break
    return out


@pytest.mark.asyncio
async def test_join_prompt_act_ack_match_end() -> None:
    async def handler(ws: ServerConnection) -> None:
        hello = await handshake(ws)
        assert hello.auth == GuestAuth(name="bot")
        join = await expect(ws, Join)
        assert join.target == QueueTarget(preset="tenhou") and join.request_id is not None
        await send(ws, seated(), event(1), event(2), prompt(step=7, version=2))
        act = await expect(ws, Act)
        assert act.step == 7 and act.action == PASS
        await send(ws, Ack(request_id=act.request_id, step=7, duplicate=False), event(3), match_end())
        await expect(ws, Leave)

    async with fake_server(handler) as url, await Client.connect(url, GuestAuth(name="bot")) as client:
        assert client.welcome is not None and client.welcome.session_token == "resume-me"
        await client.join_queue("tenhou")
        seen: list[ServerMessage] = []
        async for message in client:
            seen.append(message)
            if isinstance(message, Prompt):
                ack = await client.act(message.legal_actions[0])
                assert ack.step == 7 and not ack.duplicate
            if isinstance(message, MatchEnd):
                break
        await client.leave()
        assert [type(m) for m in seen] == [
            Seated,
            EventMessage,
            EventMessage,
            Prompt,
            EventMessage,
            MatchEnd,
        ]
        assert client.match_id == MATCH and client.seat == 0
        assert client.tracker is not None and client.tracker.version == 3


@pytest.mark.asyncio
async def test_token_string_authenticates_with_token_auth() -> None:
    async def handler(ws: ServerConnection) -> None:
        hello = await handshake(ws)
        assert hello.auth == TokenAuth(token="secret-token")

    async with fake_server(handler) as url:
        client = await Client.connect(url, "secret-token")
        await client.close()


@pytest.mark.asyncio
async def test_rejected_act_raises_and_is_not_iterated() -> None:
    async def handler(ws: ServerConnection) -> None:
        await handshake(ws)
        await send(ws, seated(), prompt(step=3, version=0))
        act = await expect(ws, Act)
        await send(
            ws,
            ErrorMessage(code=ErrorCode.ILLEGAL_ACTION, message="not legal", request_id=act.request_id),
            ErrorMessage(code=ErrorCode.RATE_LIMITED, message="slow down"),
        )
        act = await expect(ws, Act)
        assert act.step == 2  # an explicit step is sent as given
        await send(
            ws, ErrorMessage(code=ErrorCode.STALE_STEP, message="step 2 is over", request_id=act.request_id)
        )

    async with fake_server(handler) as url, await Client.connect(url, GuestAuth()) as client:
        assert isinstance(await client.recv(), Seated)
        assert isinstance(await client.recv(), Prompt)
        with pytest.raises(RequestRejectedError) as info:
            await client.act(DISCARD)
        assert info.value.code is ErrorCode.ILLEGAL_ACTION and info.value.request_id is not None
        unrelated = await client.recv()  # an error not tied to an act is handed out as a message
        assert isinstance(unrelated, ErrorMessage) and unrelated.code is ErrorCode.RATE_LIMITED
        with pytest.raises(RequestRejectedError) as info:
            await client.act(PASS, step=2)
        assert info.value.code is ErrorCode.STALE_STEP


@pytest.mark.asyncio
async def test_resending_a_request_id_gets_a_duplicate_ack() -> None:
    applied: list[int] = []

    async def handler(ws: ServerConnection) -> None:
        await handshake(ws)
        await send(ws, seated(), prompt(step=5, version=0))
        for _ in range(2):
            act = await expect(ws, Act)
            duplicate = act.request_id in applied
            if not duplicate:
                applied.append(act.request_id)
            await send(ws, Ack(request_id=act.request_id, step=act.step, duplicate=duplicate))

    async with fake_server(handler) as url, await Client.connect(url, GuestAuth()) as client:
        await client.recv()
        await client.recv()
        first = await client.act(PASS, request_id=99)
        second = await client.act(PASS, request_id=99)
        assert (first.duplicate, second.duplicate) == (False, True)
        assert applied == [99]


@pytest.mark.asyncio
async def test_act_without_a_prompt_is_a_usage_error() -> None:
    async def handler(ws: ServerConnection) -> None:
        await handshake(ws)

    async with fake_server(handler) as url, await Client.connect(url, GuestAuth()) as client:
        with pytest.raises(ValueError, match="no prompt"):
            await client.act(PASS)


@pytest.mark.parametrize("code", [ErrorCode.BAD_VERSION, ErrorCode.UNAUTHENTICATED])
@pytest.mark.asyncio
async def test_refused_hello_raises(code: ErrorCode) -> None:
    async def handler(ws: ServerConnection) -> None:
        await expect(ws, Hello)
        await send(ws, ErrorMessage(code=code, message="no"))
        await ws.wait_closed()

    async with fake_server(handler) as url:
        with pytest.raises(RequestRejectedError) as info:
            await Client.connect(url, TokenAuth(token="bad"))
        assert info.value.code is code


@pytest.mark.asyncio
async def test_welcome_must_come_first() -> None:
    async def handler(ws: ServerConnection) -> None:
        await expect(ws, Hello)
        await send(ws, Pong())
        await ws.wait_closed()

    async with fake_server(handler) as url:
        with pytest.raises(ProtocolError, match="expected welcome"):
            await Client.connect(url, GuestAuth())


@pytest.mark.asyncio
async def test_a_server_that_never_welcomes_times_out() -> None:
    async def handler(ws: ServerConnection) -> None:
        await expect(ws, Hello)
        await ws.wait_closed()

    async with fake_server(handler) as url:
        with pytest.raises(ConnectionLostError, match="no welcome"):
            await Client.connect(url, GuestAuth(), timeout=0.05)


@pytest.mark.asyncio
async def test_unreachable_server_raises_connection_lost() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ConnectionLostError, match="cannot connect"):
        await Client.connect(f"ws://127.0.0.1:{port}/ws", GuestAuth(), timeout=5)


@pytest.mark.asyncio
async def test_reconnect_resumes_from_the_last_version_seen() -> None:
    connections: list[Hello] = []
    resumed = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        connections.append(
            await handshake(ws, seats=(SeatInfo(match_id=MATCH, seat=0),) if connections else ())
        )
        if len(connections) == 1:
            await expect(ws, Join)
            await send(ws, seated(), event(1), event(2), event(3))
            await ws.close(1011, "server lost its mind")
            return
        resume = await expect(ws, Resume)
        assert resume.match_id == MATCH and resume.since_version == 3
        resumed.set()
        await send(ws, event(3), event(4), prompt(step=9, version=4))  # 3 again: dropped by the client
        act = await expect(ws, Act)
        await send(ws, Ack(request_id=act.request_id, step=act.step, duplicate=False), match_end())

    async with fake_server(handler) as url, await Client.connect(url, GuestAuth(name="bot")) as client:
        await client.join_queue()
        with pytest.raises(ConnectionLostError) as info:
            await collect_until(client, MatchEnd)
        assert info.value.code == 1011 and "mind" in info.value.reason
        assert client.tracker is not None and client.tracker.version == 3
        with pytest.raises(ConnectionLostError):
            await client.act(PASS, step=1)  # nothing to send on
        welcome = await client.reconnect()
        assert welcome.seats == (SeatInfo(match_id=MATCH, seat=0),)
        assert connections[1].auth == SessionAuth(session_token="resume-me")
        await resumed.wait()
        rest: list[ServerMessage] = []
        async for message in client:
            rest.append(message)
            if isinstance(message, Prompt):
                await client.act(PASS)
            if isinstance(message, MatchEnd):
                break
        assert [m.version for m in rest if isinstance(m, EventMessage)] == [4]
        assert client.tracker.version == 4


@pytest.mark.asyncio
async def test_a_resume_answered_busy_retry_is_sent_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster answers ``busy_retry`` while the match moves between nodes: the client resumes
    again (from the same version) until the match is found, without the application's help."""
    monkeypatch.setattr(client_module, "RESUME_RETRY_S", 0.01)
    resumes: list[Resume] = []

    async def handler(ws: ServerConnection) -> None:
        await handshake(ws, seats=(SeatInfo(match_id=MATCH, seat=0),))
        for _ in range(2):
            resumes.append(await expect(ws, Resume))
            await send(
                ws,
                ErrorMessage(code=ErrorCode.BUSY_RETRY, message="moving", request_id=resumes[-1].request_id),
            )
        resumes.append(await expect(ws, Resume))
        await send(ws, seated(), event(1), prompt(step=3, version=1))
        await ws.wait_closed()

    async with fake_server(handler) as url, await Client.connect(url, GuestAuth(name="bot")) as client:
        await client.resume(MATCH)
        got = await collect_until(client, Prompt)
        assert [type(m) for m in got] == [ErrorMessage, ErrorMessage, Seated, EventMessage, Prompt]
        assert [(r.match_id, r.since_version) for r in resumes] == [(MATCH, 0)] * 3
        assert len({r.request_id for r in resumes}) == 3


@pytest.mark.asyncio
async def test_reconnect_falls_back_to_the_token_when_the_session_is_unknown() -> None:
    hellos: list[Hello] = []

    async def handler(ws: ServerConnection) -> None:
        hello = await expect(ws, Hello)
        hellos.append(hello)
        if isinstance(hello.auth, SessionAuth):
            await send(ws, ErrorMessage(code=ErrorCode.UNAUTHENTICATED, message="unknown session"))
            await ws.wait_closed()
            return
        await send(
            ws,
            Welcome(
                protocol=PROTOCOL_VERSION,
                session_id=f"s{len(hellos)}",
                session_token="stale",
                player=Player(id="b", name="bot", kind=PlayerKind.BOT),
                seats=(),
                max_message_bytes=4096,
            ),
        )
        if len(hellos) == 1:
            await ws.close()
        else:
            await ws.wait_closed()

    async with fake_server(handler) as url, await Client.connect(url, "tok") as client:
        with pytest.raises(ConnectionLostError):
            await client.recv()
        welcome = await client.reconnect()
        assert welcome.session_id == "s3"
        assert [type(h.auth) for h in hellos] == [TokenAuth, SessionAuth, TokenAuth]


@pytest.mark.asyncio
async def test_a_gap_in_versions_makes_the_client_resume() -> None:
    async def handler(ws: ServerConnection) -> None:
        await handshake(ws)
        await send(ws, seated(), event(1), event(3), event(4))  # 2 is missing
        resume = await expect(ws, Resume)
        assert resume.since_version == 1
        await send(ws, event(2), event(3), event(4), match_end())

    async with fake_server(handler) as url, await Client.connect(url, GuestAuth()) as client:
        messages = await collect_until(client, MatchEnd)
        assert [m.version for m in messages if isinstance(m, EventMessage)] == [1, 2, 3, 4]


@pytest.mark.asyncio
async def test_a_snapshot_replaces_the_tracker() -> None:
    async def handler(ws: ServerConnection) -> None:
        await handshake(ws)
        await send(ws, seated(seat=2), event(1))
        await expect(ws, Resume)
        discard = w.TileDiscarded(seat=0, tile="1m", tsumogiri=False, riichi=False)
        await send(
            ws,
            Snapshot(match_id=MATCH, version=40, view=VIEW),
            EventMessage(match_id=MATCH, version=41, event=discard),
            match_end(),
        )

    async with fake_server(handler) as url, await Client.connect(url, GuestAuth()) as client:
        assert isinstance(await client.recv(), Seated)
        assert isinstance(await client.recv(), EventMessage)
        await client.resume(MATCH, since_version=0)
        messages = await collect_until(client, MatchEnd)
        assert [type(m) for m in messages] == [Snapshot, EventMessage, MatchEnd]
        assert client.tracker is not None and client.tracker.version == 41 and client.seat == 0
        assert client.tracker.view().seats[0].river[-1].tile == "1m"
        assert client.tracker.view().seats[0].hand == ("2m", "0p")


@pytest.mark.asyncio
async def test_ping_pong_and_bad_frames() -> None:
    async def handler(ws: ServerConnection) -> None:
        await handshake(ws)
        ping = await expect(ws, Ping)
        await send(ws, Pong(nonce=12345), Pong(nonce=ping.nonce))  # an unknown nonce is ignored
        await ws.send('{"type": "from_the_future", "x": 1}')  # a newer server's message: skipped
        await ws.send('{"type": "ack"}')  # a broken one: raised
        await send(ws, Pong(nonce=None), match_end())

    async with fake_server(handler) as url, await Client.connect(url, GuestAuth()) as client:
        rtt = await client.ping()
        assert rtt >= 0
        with pytest.raises(ProtocolError) as info:
            await client.recv()
        assert info.value.code is ErrorCode.MALFORMED
        assert isinstance(await client.recv(), MatchEnd)  # the stray pong was consumed, not handed out


@pytest.mark.asyncio
async def test_close_ends_iteration() -> None:
    async def handler(ws: ServerConnection) -> None:
        await handshake(ws)
        await send(ws, seated())
        await ws.wait_closed()

    async with fake_server(handler) as url:
        client = await Client.connect(url, GuestAuth())
        assert isinstance(await client.recv(), Seated)
        assert client.connected
        await client.close()
        assert not client.connected
        assert [m async for m in client] == []
        with pytest.raises(ConnectionLostError):
            await client.join_queue()


def _load_example() -> ModuleType:
    return load_module("random_bot_example", REPO / "examples" / "random_bot.py")


@pytest.mark.asyncio
async def test_example_random_bot_plays_legal_actions() -> None:
    example = _load_example()
    chosen: list[Action] = []

    async def handler(ws: ServerConnection) -> None:
        await handshake(ws)
        await expect(ws, Join)
        await send(ws, seated())
        for step in range(5):
            legal = Prompt(
                match_id=MATCH, step=step, seat=0, version=0, legal_actions=LEGAL, deadline_ms=1, bank_ms=0
            )
            await send(ws, legal)
            act = await expect(ws, Act)
            assert act.step == step and act.action in LEGAL
            chosen.append(act.action)
            await send(ws, Ack(request_id=act.request_id, step=step, duplicate=False))
        await send(ws, match_end())

    async with fake_server(handler) as url:
        end = await example.play(url, GuestAuth(name="randy"), "tenhou", random.Random(1))
    assert isinstance(end, MatchEnd) and len(chosen) == 5


@pytest.mark.asyncio
async def test_an_inconsistent_event_is_reported_and_the_client_resyncs() -> None:
    async def handler(ws: ServerConnection) -> None:
        await handshake(ws)
        bad = w.TileDiscarded(seat=0, tile="7z", tsumogiri=False, riichi=False)  # seat 0 holds no 7z
        await send(ws, seated(), event(1), EventMessage(match_id=MATCH, version=2, event=bad), event(3))
        resume = await expect(ws, Resume)
        assert resume.since_version == 1
        await send(ws, Snapshot(match_id=MATCH, version=3, view=VIEW), match_end())

    async with fake_server(handler) as url, await Client.connect(url, GuestAuth()) as client:
        assert isinstance(await client.recv(), Seated)
        assert isinstance(await client.recv(), EventMessage)
        with pytest.raises(ProtocolError, match="not in its hand"):
            await client.recv()
        rest = await collect_until(client, MatchEnd)
        assert [type(m) for m in rest] == [Snapshot, MatchEnd]  # event 3 came after a bad one: dropped
        assert client.tracker is not None and client.tracker.version == 3
