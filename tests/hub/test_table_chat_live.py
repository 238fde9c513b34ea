"""Chat at a real table in play: a flood of chat changes nothing the table does.

Four protocol cores hold the seats of a :class:`~server.hub.table.TableActor` on a manual clock and
a fifth watches; each seat answers its prompts (pass when it may, else the drawn tile). The same
match is played twice, once quietly and once with every connection flooding the table with chat
lines and stamps between its moves: every seat and the spectator must receive exactly the same
events, prompts and acks (the chat frames and the chat's own refusals set aside), and the table's
event history must be the same. No time is measured: the chat never enters the table.
"""

from __future__ import annotations

import json

import msgspec
import pytest

from client_protocol.messages import GuestAuth
from server.domain.records import AccountKind
from server.engine import new_match
from server.engine.events import Event, RoundEnded
from server.hub.adapter import Authenticate
from server.hub.chatroom import hand_live
from server.hub.clock import ManualClock
from server.hub.inbox import Attach, SeatSpec
from server.hub.session import ProtocolSession
from server.hub.settings import ConnectionLimits, SpectatePolicy, TableTimers
from server.hub.spectators import EventStream
from server.hub.table import TableActor
from server.hub.tablechat import TableChat
from server.hub.tablesetup import TableDeps, TableSetup
from server.services.social import SocialService
from server.store.memory import InMemoryRepository
from tests.hub.corekit import Directory, Sink
from tests.hub.helpers import EAST, account

DISCARDS = 12
CHAT_RID = 1_000_000  # the chat's request ids: its refusals are told apart from the acts' errors
# the chat's own limits are lifted: the flood must reach the table's room, not stop at the bucket
LIMITS = ConnectionLimits(
    rate_per_s=10_000.0,
    rate_burst=10_000,
    chat_per_s=10_000.0,
    chat_burst=10_000,
    chat_per_ip_per_s=10_000.0,
    chat_per_ip_burst=10_000,
)


def connection(
    name: str, clock: ManualClock, directory: Directory, desk: TableChat
) -> tuple[ProtocolSession, Sink]:
    sink = Sink()
    core = ProtocolSession(sink, directory, clock, LIMITS)
    hello = {"type": "hello", "protocol": 1, "auth": {"type": "guest", "name": name}}
    assert core.receive_hello(json.dumps(hello)) == Authenticate(GuestAuth(name=name))
    core.authenticated(account(name))
    core.welcome("token")
    core.bind_chat(desk, f"192.0.2.{len(name)}")
    sink.frames.clear()
    return core, sink


def flood(core: ProtocolSession, rid: int) -> None:
    for i in range(5):
        line = {"type": "chat", "text": f"chat {rid} {i} <b>!</b>", "request_id": CHAT_RID + rid * 10 + i}
        core.receive(msgspec.json.encode(line).decode())
    core.receive(msgspec.json.encode({"type": "stamp", "stamp": "wow", "request_id": CHAT_RID}).decode())


def game_frames(frames: list[bytes]) -> list[bytes]:
    """The frames that are not chat: no chat line, no refusal of a chat request."""
    kept = []
    for frame in frames:
        message = json.loads(frame)
        if message["type"] == "chat":
            continue
        if message["type"] == "error" and (message.get("request_id") or 0) >= CHAT_RID:
            continue
        kept.append(frame)
    return kept


async def play(source: str, *, chat: bool) -> tuple[dict[str, list[bytes]], tuple[Event, ...], list[bool]]:
    clock, directory = ManualClock(), Directory()
    desk = TableChat(SocialService(clock.now), clock, LIMITS)
    seats = {s: connection(f"p{s}", clock, directory, desk) for s in range(4)}
    specs = [
        SeatSpec(name=f"p{s}", kind=AccountKind.GUEST, account_id=seats[s][0].account.id) for s in range(4)
    ]
    table = TableActor(
        TableSetup(
            match_id="m-chat",
            ruleset=EAST,
            seed=b"chat-flood",
            seats=specs,
            timers=TableTimers(min_call_ms=0),
            spectate=SpectatePolicy(delay_steps=0, delay_s=0.0),
            source=source,
        ),
        TableDeps(repo=InMemoryRepository(), clock=clock),
    )
    directory.tables["m-chat"] = table  # type: ignore[assignment]
    await table.start({s: core for s, (core, _) in seats.items()})
    watcher, watcher_sink = connection("watcher", clock, directory, desk)
    table.submit(Attach(watcher, None, 0, announce=True))
    await table.settle()
    received: dict[str, list[bytes]] = {f"seat {s}": [] for s in range(4)}
    received["spectator"] = []
    live: list[bool] = []
    rid = 0
    while sum(1 for e in await table.history() if type(e).__name__ == "TileDiscarded") < DISCARDS:
        moved = False
        live.append(table.chat_room().hand_live)
        for s, (core, sink) in seats.items():
            frames, sink.frames[:] = list(sink.frames), []
            received[f"seat {s}"].extend(frames)
            for frame in frames:
                message = json.loads(frame)
                if message["type"] != "prompt":
                    continue
                legal = message["legal_actions"]
                choice = next((a for a in legal if a["type"] == "pass"), None)
                if choice is None:
                    choice = next(a for a in legal if a["type"] == "discard" and a["tsumogiri"])
                rid += 1
                if chat:  # before and after the act: the table's inbox must not see any of it
                    flood(core, rid)
                    flood(watcher, rid)
                act = {"type": "act", "request_id": rid, "step": message["step"], "action": choice}
                core.receive(msgspec.json.encode(act).decode())
                if chat:
                    flood(seats[(s + 1) % 4][0], rid)
                moved = True
        await table.settle()
        if not moved:
            clock.advance(0.1)
            await table.settle()
    for s, (_, sink) in seats.items():
        received[f"seat {s}"].extend(sink.frames)
    received["spectator"] = list(watcher_sink.frames)
    history = await table.history()
    await table.stop()
    return received, history, live


@pytest.mark.asyncio
@pytest.mark.parametrize("source", ["private:ABCD", "ranked:open:east"])
async def test_a_chat_flood_changes_no_event_prompt_or_ack(source: str) -> None:
    quiet, quiet_history, _ = await play(source, chat=False)
    noisy, noisy_history, live = await play(source, chat=True)
    assert noisy_history == quiet_history
    for who in quiet:
        assert game_frames(noisy[who]) == game_frames(quiet[who]), who
        assert game_frames(quiet[who]) == quiet[who]
    assert all(live)  # the real table says a hand is live all along
    lines = [json.loads(f) for f in noisy["seat 0"] if json.loads(f)["type"] == "chat"]
    spectator_lines = [json.loads(f) for f in noisy["spectator"] if json.loads(f)["type"] == "chat"]
    assert lines and {m["role"] for m in lines} == {"seated"}
    assert all(m["role"] == "spectator" for m in spectator_lines if m["from"] == "watcher")
    if source.startswith("ranked"):
        # the collusion rule: only stamps from the seats while the hand is live, text refused
        assert all("stamp" in m for m in lines)
        refused = [json.loads(f) for f in noisy["seat 0"] if json.loads(f)["type"] == "error"]
        assert refused and {m["code"] for m in refused} == {"text_off"}
    else:
        assert any("text" in m for m in lines)
    # seats never hear the spectator
    assert not any(m["from"] == "watcher" for m in lines)


def test_a_hand_is_live_once_its_deal_is_shown() -> None:
    transition = new_match(EAST, b"live")
    stream = EventStream()
    stream.append(transition.events, 0.0)
    assert not hand_live(stream, finished=False)  # nothing shown to the seats yet
    stream.publish(len(stream), 0.0)
    assert hand_live(stream, finished=True) is False
    assert hand_live(stream, finished=False)  # the deal is shown: a hand is live
    stream.append([RoundEnded(scores=(25000,) * 4, riichi_sticks=0)], 1.0)
    assert hand_live(stream, finished=False)  # the hand's end is not shown to the seats yet
    stream.publish(len(stream), 1.0)
    assert not hand_live(stream, finished=False)  # between hands: free text again where allowed
