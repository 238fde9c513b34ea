"""Table control across nodes (server/cluster/control.py) on a real Redis: a request reaches the
node that runs the table and is answered (done with its step, or refused with its code); a node
that does not run it answers ``absent`` and the asker looks again (over if the match is over);
nobody answering is no answer (the factory's ``busy``); a malformed request is dropped without an
answer; a substitute that reaches the owner after the asker gave up is dropped, not applied."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import pytest

from server.cluster import control
from server.cluster.control import ControlDesk
from server.cluster.settings import ClusterSettings
from server.services.tables import TableAnswer, TableCommand


class Host:
    def __init__(self, runs: set[str]) -> None:
        self.runs = runs
        self.done: list[tuple[str, str, str]] = []
        self.locked: set[int] = set()

    async def control_table(self, match_id: str, command: TableCommand) -> TableAnswer | None:
        if match_id not in self.runs:
            return None
        if command.action == "substitute" and command.seat in self.locked:
            return TableAnswer(code="malformed", message=f"seat {command.seat} is locked")
        if command.action == "lock" and command.seat is not None:
            self.locked.add(command.seat)
        self.done.append((match_id, command.action, command.reason))
        return TableAnswer(step=41 if command.action == "substitute" else None)


def cmd(action: str, reason: str = "", **seat: int) -> TableCommand:
    return TableCommand(action, reason, seat=seat.get("seat"))


def desk(url: str, prefix: str, node: str) -> ControlDesk:
    return ControlDesk(ClusterSettings(redis_url=url, node_id=node, key_prefix=prefix))


@pytest.mark.asyncio
async def test_a_request_is_done_by_the_owner_and_nobody_else(
    redis_server: str, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(control, "ANSWER_S", 1.0)
    monkeypatch.setattr(control, "RELAY_PAUSE_S", 0.05)
    a, b = desk(redis_server, redis_prefix, "a"), desk(redis_server, redis_prefix, "b")
    host_b = Host({"m-1"})
    b.start(host_b)
    a.start(Host(set()))
    running = {"m-1": True, "m-2": True}

    async def owner_b() -> str | None:
        return "b"

    def still(match_id: str) -> Callable[[], Awaitable[bool]]:
        async def check() -> bool:
            return running[match_id]

        return check

    try:
        done = TableAnswer()
        assert await a.relay("m-1", cmd("pause", "a dispute"), owner=owner_b, running=still("m-1")) == done
        assert await a.relay("m-1", cmd("end", "closing"), owner=owner_b, running=still("m-1")) == done
        assert host_b.done == [("m-1", "pause", "a dispute"), ("m-1", "end", "closing")]
        # a substitute's step comes back; a refusal comes back with its code, nothing done
        sub = TableCommand("substitute", seat=1, account_id="a-sub")
        assert await a.relay("m-1", sub, owner=owner_b, running=still("m-1")) == TableAnswer(step=41)
        assert await a.relay("m-1", cmd("lock", seat=2), owner=owner_b, running=still("m-1")) == done
        locked = TableCommand("substitute", seat=2, bot="tsumogiri")
        refused = await a.relay("m-1", locked, owner=owner_b, running=still("m-1"))
        assert refused == TableAnswer(code="malformed", message="seat 2 is locked")
        assert [d[1] for d in host_b.done] == ["pause", "end", "substitute", "lock"]
        # b does not run m-2: absent, asked again while it runs, then it is over (nothing to do)
        assert await a.relay("m-2", cmd("pause"), owner=owner_b, running=still("m-2")) is None
        running["m-2"] = False
        assert await a.relay("m-2", cmd("pause"), owner=owner_b, running=still("m-2")) == TableAnswer(
            over=True
        )

        async def owner_gone() -> str | None:
            return "c"  # a node that died: nobody takes its requests

        assert await a.relay("m-1", cmd("unpause"), owner=owner_gone, running=still("m-1")) is None
        assert host_b.done[-1][1] == "lock" and b.served == 4
        # a malformed request is dropped, and the desk goes on serving
        await b.redis.rpush(
            f"{redis_prefix}:control:b",
            "not json",
            json.dumps({"id": "x", "match": "m-1", "action": "explode"}),
            json.dumps({"id": "y", "match": "m-1", "command": {"action": "explode"}}),
            json.dumps({"id": "z", "match": "m-1", "command": {"action": "lock", "seat": "0"}}),
            json.dumps({"id": "w", "match": "m-1", "command": {"action": "lock", "seat": True}}),
        )
        assert await a.ask("b", "m-1", cmd("unpause")) == done
        assert host_b.done[-1] == ("m-1", "unpause", "")
        with pytest.raises(ValueError):
            cmd("explode")
    finally:
        await asyncio.gather(a.stop(), b.stop())


@pytest.mark.asyncio
async def test_a_substitute_that_arrives_after_the_asker_gave_up_is_dropped(
    redis_server: str, redis_prefix: str
) -> None:
    """The asker waits ``ANSWER_S`` and then tells the organizer ``busy``: a substitute reaching
    the owner later (sent more than ``FRESH_MS`` ago on Redis's clock) is not applied (the
    organizer was told it was not seated) and not answered; a late lock is still applied (it is
    idempotent), and a fresh substitute is."""
    b = desk(redis_server, redis_prefix, "b")
    host = Host({"m-1"})
    b.start(host)
    seconds, micros = await b.redis.time()
    now_ms = int(seconds) * 1000 + int(micros) // 1000
    late = now_ms - control.FRESH_MS - 1000

    def request(request_id: str, command: TableCommand, sent_ms: int) -> str:
        return json.dumps(
            {"id": request_id, "match": "m-1", "command": command.to_wire(), "sent_ms": sent_ms}
        )

    try:
        sub = TableCommand("substitute", seat=0, account_id="a-sub")
        await b.redis.rpush(
            f"{redis_prefix}:control:b",
            request("late-sub", sub, late),
            request("late-lock", cmd("lock", seat=3), late),
            request("fresh-sub", sub, now_ms),
        )
        got = await b.redis.blpop([f"{redis_prefix}:control-reply:fresh-sub"], timeout=5)
        assert got is not None and json.loads(got[1]) == {"status": "done", "step": 41}
        assert await b.redis.llen(f"{redis_prefix}:control-reply:late-lock") == 1
        assert await b.redis.llen(f"{redis_prefix}:control-reply:late-sub") == 0
        assert [d[1] for d in host.done] == ["lock", "substitute"]
    finally:
        await b.stop()
