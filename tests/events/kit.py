"""Shared set-up of the event tests on a real hub: an in-memory store, the hub's table factory,
bots that answer at once, the event service as ``jantaku serve`` wires it."""

from __future__ import annotations

from server.app.compose import StoredResults, event_service
from server.domain.records import Account, AccountKind, Scope
from server.domain.tournaments import DuplicateMode, EventSettings
from server.hub.server import Hub
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.hub.tables import LocalTable
from server.services.tournaments import Actor, EventService
from server.store.memory import InMemoryRepository
from tests.hub.helpers import EAST


def account(name: str, kind: AccountKind = AccountKind.PLAYER, *, admin: bool = False) -> Account:
    scopes = frozenset({Scope.ADMIN}) if admin else frozenset()
    return Account(id=f"a-{name}", name=name, kind=kind, scopes=scopes, created_at=0.0)


class World:
    """A hub on memory with an organizer ``org`` and an administrator ``admin``."""

    def __init__(self) -> None:
        self.repo = InMemoryRepository()
        settings = HubSettings(port=0, timers=TableTimers(), spectate=SpectatePolicy(delay_s=0.0))
        self.hub = Hub(settings, self.repo)
        self.service: EventService = event_service(self.repo, self.hub.tables)
        self.admin = Actor(account("root", admin=True), admin=True)
        self.org = Actor(account("org"))

    def service_results(self) -> StoredResults:
        return StoredResults(self.repo)

    async def setup(self) -> None:
        for a in (self.admin.account, self.org.account):
            await self.repo.create_account(a)
        await self.service.grant_organizer(self.admin, self.org.id, True, "runs the club")

    async def bot_event(self, bots: int = 8, **kw: object) -> str:
        base: dict[str, object] = {"name": "Bot night", "ruleset_json": EAST.to_json(), "rounds": 2}
        event = await self.service.create(self.org, EventSettings(**(base | kw)))  # type: ignore[arg-type]
        for _ in range(bots):
            await self.service.add_bot(self.org, event.id, "greedy")
        return event.id

    async def play_round(self, event_id: str) -> None:
        """Seat, start and play the next round to its end (every table finishes)."""
        await self.service.seat(self.org, event_id)
        rnd = await self.service.start(self.org, event_id)
        for t in rnd.tables:
            assert t.match_id is not None
            live = await self.hub.tables.find(t.match_id)
            if isinstance(live, LocalTable):
                await live.actor.ended.wait()


DUPLICATE = {"duplicate": DuplicateMode.ROUND}
