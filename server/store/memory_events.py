"""Events kept in memory (``--database-url memory:`` and tests): the :class:`EventStore` port."""

from __future__ import annotations

from server.domain.tournaments import (
    AdjustmentRecord,
    AuditRecord,
    EntrantRecord,
    EventRecord,
    RoundRecord,
)


class InMemoryEvents:
    def __init__(self) -> None:
        self._events: dict[str, EventRecord] = {}
        self._entrants: dict[str, dict[str, EntrantRecord]] = {}
        self._rounds: dict[str, dict[int, RoundRecord]] = {}
        self._adjustments: dict[str, list[AdjustmentRecord]] = {}
        self._audit: dict[str, list[AuditRecord]] = {}
        self._organizers: set[str] = set()

    async def add_event(self, event: EventRecord) -> None:
        if event.id in self._events:
            raise KeyError(f"event {event.id} exists")
        self._events[event.id] = event

    async def event(self, event_id: str) -> EventRecord | None:
        return self._events.get(event_id)

    async def events(self) -> list[EventRecord]:
        return sorted(self._events.values(), key=lambda e: e.created_at)

    async def put_event(self, event: EventRecord) -> None:
        self._events[event.id] = event

    async def put_entrant(self, entrant: EntrantRecord) -> None:
        self._entrants.setdefault(entrant.event_id, {})[entrant.entrant_id] = entrant

    async def entrants(self, event_id: str) -> list[EntrantRecord]:
        return sorted(self._entrants.get(event_id, {}).values(), key=lambda e: (e.entered_at, e.entrant_id))

    async def put_round(self, rnd: RoundRecord) -> None:
        self._rounds.setdefault(rnd.event_id, {})[rnd.number] = rnd

    async def rounds(self, event_id: str) -> list[RoundRecord]:
        return [r for _, r in sorted(self._rounds.get(event_id, {}).items())]

    async def add_adjustment(self, adjustment: AdjustmentRecord) -> None:
        self._adjustments.setdefault(adjustment.event_id, []).append(adjustment)

    async def delete_round(self, event_id: str, number: int) -> None:
        self._rounds.get(event_id, {}).pop(number, None)

    async def adjustments(self, event_id: str) -> list[AdjustmentRecord]:
        return list(self._adjustments.get(event_id, []))

    async def add_audit(self, entry: AuditRecord) -> None:
        self._audit.setdefault(entry.event_id, []).append(entry)

    async def audit(self, event_id: str) -> list[AuditRecord]:
        return list(self._audit.get(event_id, []))

    async def organizer_role(self, account_id: str) -> bool:
        return account_id in self._organizers

    async def set_organizer_role(self, account_id: str, granted: bool, at: float) -> None:
        if granted:
            self._organizers.add(account_id)
        else:
            self._organizers.discard(account_id)
