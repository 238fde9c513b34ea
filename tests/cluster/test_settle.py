"""Cluster mode, a match between owners (its node died a moment ago, no node runs it yet): a
reconnect that lands then is held until a node runs the match (and relayed there), never answered
"no such match" or put in a queue; one still moving after the wait is asked to try again (a
``hello``: closed 1013; a ``resume``: ``busy_retry``). Two hubs on one repository, the edge with a
scripted directory behind the cluster's relay (no Redis)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from websockets.exceptions import ConnectionClosed

from client_protocol.client import Client
from client_protocol.errors import ConnectionLostError, ErrorCode
from client_protocol.messages import ErrorMessage, GuestAuth, Prompt
from server.cluster import relay
from server.cluster.relay import Relays
from server.hub.placement import HandOff, Placement, QueuedPlayer, RelayClient, Upstream
from server.hub.server import Hub, running_hub
from server.hub.settings import HubSettings, TableTimers
from server.services.tables import TableAnswer, TableCommand
from server.store.memory import InMemoryRepository
from tests.hub.netkit import FAST_LIMITS, Raw

SETTINGS = HubSettings(
    port=0, timers=TableTimers(action_ms=60_000, bank_ms=0, bot_delay_ms=0), limits=FAST_LIMITS
)


class Moving:
    """The edge's view of the cluster: the match moves for ``polls`` looks, then runs at ``owner``
    (None: it keeps moving); the relay is the cluster's own."""

    def __init__(self, owner: str | None, polls: int, names: tuple[str, ...] = ("mover",)) -> None:
        self.owner = owner
        self.polls = polls
        self.looks = 0
        self.names = names  # the guests whose match moves
        self.repo: InMemoryRepository | None = None
        self.relays = Relays(self)

    async def relay_player(
        self, client: RelayClient, account_id: str, *, here: Callable[[], bool]
    ) -> Upstream | None:
        return await self.relays.to_player(client, account_id, here)

    async def relay_match(
        self, client: RelayClient, match_id: str, *, here: Callable[[], bool]
    ) -> Upstream | None:
        return await self.relays.to_match(client, match_id, here)

    async def relay_invite(self, client: RelayClient, code: str) -> Upstream | None:
        return await self.relays.to_invite(client, code)

    def hand_off(self, client: RelayClient, base_url: str, queued: QueuedPlayer) -> HandOff | None:
        return self.relays.hand_off(client, base_url, queued)

    async def control(self, match_id: str, command: TableCommand) -> TableAnswer | None:
        return None

    def _placed(self) -> bool:
        self.looks += 1
        return self.owner is not None and self.looks > self.polls

    async def claim(self, match_id: str, *, new: bool) -> bool:
        return True

    def released(self, match_id: str, *, finished: bool) -> None:
        return None

    async def locate(self, match_id: str) -> str | None:
        return self.owner if self._placed() else None

    async def locate_player(self, account_id: str) -> str | None:
        return self.owner if self._placed() else None

    async def moving(self, match_id: str) -> bool:
        return True

    async def player_moving(self, account_id: str) -> bool:
        assert self.repo is not None
        account = await self.repo.account_by_id(account_id)
        return account is not None and account.name in self.names

    def relay_headers(
        self, client_address: str | None, *, waited_s: float | None = None
    ) -> list[tuple[str, str]]:
        return []

    def relayed_address(self, value: str) -> str | None:
        return None

    def relayed_wait(self, value: str) -> float | None:
        return None

    @property
    def queue_local_wait_s(self) -> float | None:
        return None

    async def invited(self, code: str, ttl_s: float) -> None:
        return None

    async def locate_invite(self, code: str) -> str | None:
        return None

    async def locate_queue(self, queue: str, *, keep: bool = False) -> str | None:
        return None

    async def hand_over(self, match_ids: Sequence[str]) -> None:
        return None


def _url(hub: Hub) -> str:
    return f"ws://127.0.0.1:{hub.port}"


async def _seated_on(owner: Hub) -> Client:
    client = Client(f"{_url(owner)}/ws", GuestAuth(name="mover"), hints=True)
    await client._open(client.auth)
    await client.join_queue("tenhou+bots")
    async for message in client:
        if isinstance(message, Prompt):
            return client
    raise AssertionError("no prompt")


@pytest.mark.asyncio
async def test_a_reconnect_while_the_match_moves_waits_for_its_new_owner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(relay, "SETTLE_STEP_S", 0.01)
    repo = InMemoryRepository()
    async with running_hub(SETTINGS, repo) as owner:
        placement = Moving(_url(owner), polls=5)
        placement.repo = repo
        async with running_hub(SETTINGS, repo, placement=placement) as edge:
            client = await _seated_on(owner)
            try:
                client.url = f"{_url(edge)}/ws"
                welcome = await client.reconnect()  # held until "placed", then relayed to the owner
                assert [s.match_id for s in welcome.seats] == [client.match_id]
                assert placement.looks > 5
                async for message in client:
                    assert not isinstance(message, ErrorMessage), message
                    if isinstance(message, Prompt):
                        break
            finally:
                await client.close()


@pytest.mark.asyncio
async def test_still_moving_after_the_wait_the_client_is_asked_to_try_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(relay, "SETTLE_STEP_S", 0.01)
    monkeypatch.setattr(relay, "HELLO_SETTLE_S", 0.1)
    monkeypatch.setattr(relay, "SETTLE_S", 0.1)
    repo = InMemoryRepository()
    placement = Moving(None, 0)
    placement.repo = repo
    async with running_hub(SETTINGS, repo) as owner, running_hub(SETTINGS, repo, placement=placement) as edge:
        client = await _seated_on(owner)
        try:
            client.url = f"{_url(edge)}/ws"
            with pytest.raises(ConnectionLostError) as lost:
                await client.reconnect()
            assert lost.value.code == 1013  # try again later
        finally:
            await client.close()
        # a resume on a connection whose hello was served: busy_retry, not not_found
        raw, _ = await Raw.guest(edge, "other")
        try:
            await raw.send({"type": "resume", "match_id": "m-moving", "since_version": 0, "request_id": 5})
            error = await raw.recv()
            assert isinstance(error, ErrorMessage) and error.request_id == 5
            assert error.code is ErrorCode.BUSY_RETRY
        except ConnectionClosed as exc:
            raise AssertionError("the connection must stay open") from exc
        finally:
            await raw.close()


def _is_a_placement(moving: Moving) -> Placement:
    return moving  # mypy checks that the scripted placement has the port's every method
