"""Cheap hellos (issue 14 §3): per-address limits on connections and guest hellos, and a guest that
costs no database write until it sits at a table."""

from __future__ import annotations

import doctest
from dataclasses import replace

import pytest
from websockets.exceptions import InvalidStatus

import server.hub.admission
from client_protocol.messages import GuestAuth, SessionAuth
from server.domain.records import Account, SessionRecord
from server.services.auth import Authenticator
from server.store.memory import InMemoryRepository
from tests.hub.netkit import FAST_LIMITS, Raw, serving

GUEST_HELLO = {"type": "hello", "protocol": 1, "auth": {"type": "guest", "name": "g"}}


def test_doctests() -> None:
    result = doctest.testmod(server.hub.admission)
    assert result.failed == 0 and result.attempted > 0


class CountingRepository(InMemoryRepository):
    """Counts the writes a hello makes."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    async def create_account(self, account: Account) -> None:
        self.writes += 1
        await super().create_account(account)

    async def create_session(self, session: SessionRecord) -> None:
        self.writes += 1
        await super().create_session(session)


@pytest.mark.asyncio
async def test_a_guest_is_stored_only_when_it_sits_at_a_table() -> None:
    repo = CountingRepository()
    auth = Authenticator(repo, session_ttl_s=60)
    guests = [await auth.authenticate(GuestAuth(name=f"g{i}")) for i in range(50)]
    assert repo.writes == 0  # 50 hellos, no write
    first = guests[0]
    assert await repo.account_by_id(first.account.id) is None
    again = await auth.authenticate(SessionAuth(session_token=first.session_token))
    assert again.account == first.account  # its session works before it is stored
    await auth.store_guest(first.account.id)
    assert repo.writes == 2 and await repo.account_by_id(first.account.id) == first.account
    await auth.store_guest(first.account.id)  # stored once
    assert repo.writes == 2
    assert (await auth.authenticate(SessionAuth(session_token=first.session_token))).account == first.account


@pytest.mark.asyncio
async def test_a_seated_guest_is_in_the_store_before_its_match() -> None:
    async with serving() as hub:
        raw, welcome = await Raw.guest(hub, "alice")
        assert await hub.repo.account_by_id(welcome["player"]["id"]) is None
        await raw.send({"type": "join", "target": {"type": "queue", "preset": "tenhou+bots"}})
        seated = await raw.recv_json()
        while seated["type"] != "seated":
            seated = await raw.recv_json()
        assert await hub.repo.account_by_id(welcome["player"]["id"]) is not None
        await raw.close()


@pytest.mark.asyncio
async def test_connections_and_guest_hellos_are_limited_per_address() -> None:
    limits = replace(
        FAST_LIMITS,
        connect_per_ip_per_s=0.01,
        connect_per_ip_burst=4,
        guest_per_ip_per_s=0.01,
        guest_per_ip_burst=2,
    )
    async with serving(limits=limits) as hub:
        for _ in range(2):
            raw, _ = await Raw.guest(hub)
            await raw.close()
        refused = await Raw.open(hub, hello=GUEST_HELLO)
        error = await refused.recv_json()
        assert (error["type"], error["code"]) == ("error", "rate_limited")
        assert (await refused.until_closed())[0] == 1008
        fourth = await Raw.open(hub)  # the last connection of the burst
        await fourth.close()
        with pytest.raises(InvalidStatus) as err:  # the fifth is refused before its handshake
            await Raw.open(hub)
        assert err.value.response.status_code == 429
