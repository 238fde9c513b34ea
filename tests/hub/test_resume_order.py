"""Resume over real localhost websockets: a failed resume changes nothing, and an act sent right
after a resume is taken behind it (docs/protocol.md#versions-and-resume).

Every table here is seat 0's (the first dealer's, ``keep_order``) with slow bots and long timers, so
the first prompt stays open as long as a test needs it.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from client_protocol.messages import Ack, ErrorMessage, Prompt, Welcome
from server.hub.server import Hub
from server.hub.settings import TableTimers
from tests.hub.netkit import Raw, serving

TIMERS = TableTimers(action_ms=60_000, bank_ms=0, bot_delay_ms=60_000, disconnect_grace_ms=60_000)


async def seated(hub: Hub) -> tuple[Raw, dict[str, Any], Prompt]:
    """A guest at a table with three bots, at its first prompt (the dealer's discard, step 3)."""
    raw, welcome = await Raw.guest(hub, "alice")
    await raw.send({"type": "join", "target": {"type": "queue", "preset": "tenhou+bots"}, "request_id": 1})
    prompt = await raw.expect(Prompt)
    assert (prompt.seat, prompt.step) == (0, 3)
    return raw, welcome, prompt


def act(prompt: Prompt, request_id: int) -> dict[str, Any]:
    action = msgspec.to_builtins(prompt.legal_actions[0])
    return {"type": "act", "request_id": request_id, "step": prompt.step, "action": action}


async def reconnected(hub: Hub, welcome: dict[str, Any]) -> tuple[Raw, Welcome]:
    token = welcome["session_token"]
    raw = await Raw.open(
        hub, hello={"type": "hello", "protocol": 1, "auth": {"type": "session", "session_token": token}}
    )
    return raw, await raw.expect(Welcome)


@pytest.mark.asyncio
async def test_a_failed_resume_leaves_the_connection_at_its_table() -> None:
    async with serving(timers=TIMERS, keep_order=True) as hub:
        raw, _, prompt = await seated(hub)
        await raw.send({"type": "resume", "match_id": "m-nosuchmatch", "since_version": 0, "request_id": 5})
        error = await raw.expect(ErrorMessage)
        assert (error.code.value, error.request_id) == ("not_found", 5)
        await raw.send(act(prompt, 6))
        ack = await raw.expect(Ack)
        assert (ack.request_id, ack.step, ack.duplicate) == (6, 3, False)
        assert not raw.leaks
        await raw.close()


@pytest.mark.asyncio
async def test_an_applied_act_resent_right_after_resume_is_acked_as_a_duplicate() -> None:
    async with serving(timers=TIMERS, keep_order=True) as hub:
        raw, welcome, prompt = await seated(hub)
        match_id = prompt.match_id
        await raw.send(act(prompt, 2))
        assert (await raw.expect(Ack)).duplicate is False
        await raw.close()
        again, back = await reconnected(hub, welcome)
        assert [(s.match_id, s.last_request_id) for s in back.seats] == [(match_id, 2)]
        # before the resume this connection plays no match: nothing to acknowledge it against
        await again.send(act(prompt, 2))
        error = await again.expect(ErrorMessage)
        assert (error.code.value, error.request_id) == ("not_your_turn", 2)
        # sent right behind the resume, without waiting for its catch-up: the table's duplicate ack
        await again.send({"type": "resume", "match_id": match_id, "since_version": 0, "request_id": 3})
        await again.send(act(prompt, 2))
        ack = await again.expect(Ack)
        assert (ack.request_id, ack.step, ack.duplicate) == (2, 3, True)
        await again.close()


@pytest.mark.asyncio
async def test_an_unanswered_prompt_answered_right_after_resume_is_applied() -> None:
    async with serving(timers=TIMERS, keep_order=True) as hub:
        raw, welcome, prompt = await seated(hub)
        await raw.close()
        again, _ = await reconnected(hub, welcome)
        await again.send({"type": "resume", "match_id": prompt.match_id, "since_version": 3, "request_id": 2})
        await again.send(act(prompt, 4))
        ack = await again.expect(Ack)
        assert (ack.request_id, ack.step, ack.duplicate) == (4, 3, False)
        await again.close()
