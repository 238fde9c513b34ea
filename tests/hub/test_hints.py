"""Prompt hints through the hub: computed only for a connection that asked in its ``hello``, equal to
the engine's (:func:`server.engine.hints.seat_hints`), and rendered as the protocol's ``hints``."""

from __future__ import annotations

import msgspec
import pytest

from client_protocol.messages import GuestAuth
from server.engine import legal_actions, new_match
from server.engine.hints import DiscardHint, Hints, Wait, seat_hints
from server.engine.tiles import parse_tile, tile_name
from server.hub.adapter import Authenticate
from server.hub.inbox import Attach
from server.hub.outputs import PromptOut
from tests.hub.helpers import EAST, FakeParticipant, ScannedClient, account, make_table
from tests.hub.test_session import frame, session


@pytest.mark.asyncio
async def test_only_a_participant_that_wants_hints_gets_them_and_they_are_the_engines() -> None:
    kit = await make_table()
    first = kit.humans[0].last_prompt()
    assert first is not None and first.hints is None  # not asked for: not computed
    again = FakeParticipant(kit.humans[0].account)
    again.wants_hints = True
    kit.table.submit(Attach(again, 0, since_version=0))
    await kit.table.settle()
    prompt = again.last_prompt()
    assert prompt is not None and prompt.hints is not None
    assert kit.table.state is not None
    assert prompt.hints == seat_hints(kit.table.state, 0, prompt.legal)


def test_the_hello_asks_for_hints_and_the_prompt_carries_them_in_wire_form() -> None:
    core, sink, _, _ = session()
    hello = frame({"type": "hello", "protocol": 1, "auth": {"type": "guest"}, "hints": True})
    assert isinstance(core.receive_hello(hello), Authenticate)
    assert core.wants_hints
    core.authenticated(account("alice"))
    core.welcome("tok")
    sink.json()
    state = new_match(EAST, b"hints").state
    red = parse_tile("0p")
    hints = Hints(
        waits=(Wait(0, 3),),
        furiten=True,
        discards=(DiscardHint(red, False, (Wait(0, 3), Wait(3, 0)), False),),
    )
    core.deliver(PromptOut("m-1", 0, 0, 3, legal_actions(state, 0), 5000, 10000, hints))
    core.deliver(PromptOut("m-1", 0, 0, 3, legal_actions(state, 0), 5000, 10000))
    with_hints, without = sink.json()
    assert with_hints["hints"] == {
        "waits": [{"tile": "1m", "left": 3}],
        "furiten": True,
        "discards": [
            {
                "tile": "0p",
                "tsumogiri": False,
                "waits": [{"tile": "1m", "left": 3}, {"tile": "4m", "left": 0}],
                "furiten": False,
            }
        ],
    }
    assert "hints" not in without  # omitted, not null


def test_a_hello_without_the_flag_wants_none() -> None:
    core, _, _, _ = session()
    core.receive_hello(
        msgspec.json.encode({"type": "hello", "protocol": 1, "auth": {"type": "guest"}}).decode()
    )
    assert not core.wants_hints


@pytest.mark.asyncio
async def test_a_failure_to_compute_hints_costs_only_the_hints(monkeypatch: pytest.MonkeyPatch) -> None:
    import server.hub.decisions as table_module

    def broken(*_: object) -> Hints:
        raise RuntimeError("boom")

    monkeypatch.setattr(table_module, "seat_hints", broken)
    kit = await make_table()
    again = FakeParticipant(kit.humans[0].account)
    again.wants_hints = True
    kit.table.submit(Attach(again, 0, since_version=0))
    await kit.table.settle()
    prompt = again.last_prompt()
    assert prompt is not None and prompt.hints is None
    assert kit.table.running and not kit.table.finished


@pytest.mark.asyncio
async def test_the_python_client_asks_for_hints_and_gets_them() -> None:
    from client_protocol.messages import Prompt
    from tests.hub.netkit import next_of, serving

    async with serving() as hub:
        client = ScannedClient(hub.url, GuestAuth(name="alice"), timeout=10.0, hints=True)
        await client._open(client.auth)
        await client.join_queue("tenhou+bots")
        prompt = await next_of(client, Prompt)
        assert prompt.hints is not None
        table = hub.lobby.table(prompt.match_id)
        assert table is not None and table.state is not None
        engine = seat_hints(table.state, prompt.seat, legal_actions(table.state, prompt.seat))
        assert [w.tile for w in prompt.hints.waits] == [tile_name(w.kind) for w in engine.waits]
        await client.close()
