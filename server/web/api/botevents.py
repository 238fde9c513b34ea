"""Bot events over HTTP (``docs/tournaments.md``, "Bot events"), beside the events routes:

* ``POST /api/events/{id}/bot-entrants`` (organizers): ``{account, reason}`` enters a bot account
  (a bot may also enter itself with its own token: ``POST /api/events/{id}/entry``);
* ``GET /api/events/{id}/comparison`` (public): the duplicate comparison, per set of games on the
  same walls and per entrant over its complete sets.

Errors are the events routes' (``server.web.api.events``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import Field

from server.services.botevents import comparison_json
from server.web.api.events import EVENT_ERRORS, EventId, EventRoute, Reason, actor_of, entrant_doc, service_of

bot_events_router = APIRouter(prefix="/api", tags=["events"], route_class=EventRoute, responses=EVENT_ERRORS)


class BotAccountIn(Reason):
    account: str = Field(pattern=r"^[A-Za-z0-9._\-]{1,80}$", description="a bot account's id")


@bot_events_router.post("/events/{event_id}/bot-entrants", summary="Enter a bot account (organizers)")
async def enter_bot_account(request: Request, event_id: EventId, body: BotAccountIn) -> dict[str, Any]:
    actor = await actor_of(request)
    record = await service_of(request).bots.enter(actor, event_id, body.account, body.reason)
    return entrant_doc(record)


@bot_events_router.get("/events/{event_id}/comparison", summary="The duplicate comparison of the entrants")
async def comparison(request: Request, event_id: EventId) -> dict[str, Any]:
    return comparison_json(await service_of(request).bots.comparison(event_id))
