"""The event service's suspensions port (``StoreSuspensions``, server/services/eventports.py) on
every store (memory, SQLite, PostgreSQL): a suspension stored by any process counts at once, until
it ends or is lifted; a chat ban keeps no one from a seat."""

from __future__ import annotations

from typing import Any

import pytest

from server.services.eventports import StoreSuspensions
from server.services.social import SocialService
from server.social.moderation import SanctionKind


@pytest.mark.asyncio
async def test_suspensions_are_read_from_the_store(any_repo: Any) -> None:
    clock = [1_700_000_000.0]
    port = StoreSuspensions(any_repo, lambda: clock[0])
    assert await port(["a-ann", "a-bob"]) == {}
    # given by another service on the same store (``jantaku admin moderation`` in another process)
    moderators = SocialService(lambda: clock[0], store=any_repo)
    await moderators.sanction("a-bob", SanctionKind.CHAT_BAN, "spam", given_by="a-root", minutes=None)
    timed = await moderators.sanction(
        "a-ann", SanctionKind.SUSPENSION, "abuse", given_by="a-root", minutes=30
    )
    found = await port(["a-ann", "a-bob", "a-cat"])  # a chat ban is not a suspension
    assert list(found) == ["a-ann"] and found["a-ann"].ends == clock[0] + 30 * 60
    assert found["a-ann"].message == f"your account is suspended until {clock[0] + 1800:.0f}: abuse"
    forever = await moderators.sanction(
        "a-ann", SanctionKind.SUSPENSION, "again", given_by="a-root", minutes=None
    )
    assert (await port(["a-ann"]))["a-ann"].ends is None  # the one ending last
    await moderators.lift(forever.id, by="a-root")
    assert (await port(["a-ann"]))["a-ann"].ends == timed.ends
    clock[0] += 30 * 60  # the timed one ends by itself
    assert await port(["a-ann"]) == {}
