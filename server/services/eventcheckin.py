"""Check-in for an event's next round (``docs/tournaments.md``, "Check-in"): an entrant checks in
for itself, or an organizer checks an entrant in (or out) on its behalf.

With ``checkin``, only the entrants who checked in for a round are seated in it (bots need none).
An entrant checks itself in for the next round not seated yet (or, once a round is seated, for that
round); an organizer's check-in counts only before the round is seated, and follows the entrant's
rules otherwise: an entered entrant (not waitlisted, withdrawn or dropped), not a bot, not while a
moderator's suspension runs. An organizer's check-in or check-out is audited
(``checkin_by_organizer``) and idempotent; a refused one raises EventError and changes nothing.
"""

from __future__ import annotations

import dataclasses

from server.domain.tournaments import EntrantRecord, EntrantStatus, EventRecord, RoundStatus
from server.services.eventbase import Actor
from server.services.eventlive import EventLive
from server.services.eventrules import EventError


class EventCheckins(EventLive):
    """Check-in, the entrant's own and an organizer's for an entrant (see the module docstring)."""

    async def _upcoming(self, event: EventRecord, *, seated: bool) -> int:
        """The round a check-in now counts for: the next one not seated yet, or (``seated``) the
        round seated and not started. EventError ``conflict`` once there is none."""
        self._check_not_over(event)
        rounds = await self._store.rounds(event.id)
        if rounds and rounds[-1].status is RoundStatus.SEATED:
            if not seated:
                raise EventError(
                    "conflict", f"round {rounds[-1].number} is seated: check in for the round after it"
                )
            upcoming = len(rounds)
        else:
            upcoming = len(rounds) + 1
        if upcoming > event.settings.rounds:
            raise EventError("conflict", "the event has no round left to check in for")
        return upcoming

    async def check_in(self, actor: Actor, event_id: str) -> EntrantRecord:
        """The entrant checks itself in for the coming round."""
        event = await self._event(event_id)
        upcoming = await self._upcoming(event, seated=True)
        mine = next((e for e in await self._store.entrants(event_id) if e.entrant_id == actor.id), None)
        if mine is None or mine.status is not EntrantStatus.ENTERED:
            raise EventError("not_found", "you are not entered in this event")
        await self._check_not_suspended(actor.id)
        if upcoming in mine.checked_in:
            return mine
        record = dataclasses.replace(mine, checked_in=(*mine.checked_in, upcoming))
        await self._store.put_entrant(record)
        return record

    async def check_in_for(
        self,
        actor: Actor,
        event_id: str,
        entrant_id: str,
        checked_in: bool = True,
        reason: str = "",
        *,
        key: str | None = None,
    ) -> EntrantRecord:
        """An organizer checks ``entrant_id`` in (or, ``checked_in`` false, out) for the next round,
        before it is seated. Already so, or sent again with the same ``key``: changes nothing."""
        event = await self._organized(event_id, actor)
        found = next((e for e in await self._store.entrants(event_id) if e.entrant_id == entrant_id), None)
        if found is None:
            raise EventError("not_found", f"no entrant {entrant_id!r}")
        if await self._done(event_id, "checkin_by_organizer", key):
            return found
        if not event.settings.checkin:
            raise EventError("conflict", "this event does not use check-in: every entrant is seated")
        upcoming = await self._upcoming(event, seated=False)
        if found.kind == "bot":
            raise EventError("conflict", f"{entrant_id} is a bot: bots need no check-in")
        if found.status is not EntrantStatus.ENTERED:
            raise EventError("conflict", f"{entrant_id} is {found.status.value}: only an entrant checks in")
        if checked_in:
            await self._check_not_suspended(entrant_id, who=entrant_id)
        if (upcoming in found.checked_in) == checked_in:
            return found  # already so: changes nothing
        rounds = (
            (*found.checked_in, upcoming)
            if checked_in
            else tuple(n for n in found.checked_in if n != upcoming)
        )
        record = dataclasses.replace(found, checked_in=rounds)
        await self._store.put_entrant(record)
        detail = {"entrant": entrant_id, "round": upcoming, "checked_in": checked_in}
        await self._audit(event, actor, "checkin_by_organizer", detail, reason=reason, key=key)
        return record
