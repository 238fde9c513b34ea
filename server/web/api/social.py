"""Friends, blocks and mutes over HTTP (``docs/social.md``), for the signed-in account (the
``jantaku_session`` cookie or ``Authorization: Bearer``, as in ``server.web.api.ranked``).

* ``GET /api/me/friends``: the account's friends (with their presence), its friend requests both
  ways, the players it blocked and the players it muted.
* ``POST /api/me/friends/requests`` ``{name}``: ask to be friends (a request
  crossing the other player's makes them friends at once).
* ``POST /api/me/friends/requests/{account_id}/accept``; ``DELETE /api/me/friends/requests/{account_id}``:
  decline a request received, or withdraw one sent.
* ``DELETE /api/me/friends/{account_id}``: end a friendship.
* ``PUT`` / ``DELETE /api/me/blocks/{account_id}``, ``PUT`` / ``DELETE /api/me/mutes/{account_id}``.
* ``GET`` / ``PUT /api/me/social/settings`` ``{hide_presence}``: the player's own presence setting.
* ``POST /api/me/invites`` ``{to, code}``: invite a friend to one's private table (the hub's friends
  desk delivers it, as for the websocket's ``invite``).

The changes go through :class:`~server.services.social.SocialService`, the one the hub checks chat
against, so a block or a mute applies to the next chat line at once. Refusals: ``not_found`` (404),
``forbidden`` (403: that player cannot be asked, whoever blocked whom), ``conflict`` (409:
yourself, already friends, already blocked).
"""

from __future__ import annotations

from typing import Annotated, Protocol

from fastapi import APIRouter, Path, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from server.domain.ports import Store
from server.domain.records import Account
from server.domain.social import SocialStore
from server.services.social import SocialError, SocialService, social_service
from server.web.api import models as m
from server.web.api.errors import ApiError, error_docs
from server.web.api.ports import BothPortsRoute
from server.web.api.ranked import signed_in

social_router = APIRouter(prefix="/api/me", tags=["social"], route_class=BothPortsRoute)

AccountId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:\-]+$")]


class Person(BaseModel):
    account_id: str
    name: str
    presence: str | None = Field(
        default=None, description="friends only: online, lobby, at_table or offline (hidden looks offline)"
    )
    match_id: str | None = Field(
        default=None, description="friends at a table that may be watched: its match id (spectate it)"
    )
    watching: bool = Field(default=False, description="the friend watches that table rather than plays")


class SocialSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hide_presence: bool = Field(description="friends see you offline while it is true")


class Relations(BaseModel):
    friends: list[Person]
    requests_received: list[Person]
    requests_sent: list[Person]
    blocked: list[Person]
    muted: list[Person]


class FriendRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$", description="the player's name"
    )


class RequestState(BaseModel):
    account_id: str
    state: str = Field(description="requested, or friends when the other player had asked you already")


async def _service(request: Request) -> SocialService:
    store: SocialStore = request.app.state.store
    service = social_service(store, request.app.state.settings.clock)
    await service.load()
    return service


def _refused(exc: SocialError) -> ApiError:
    if exc.code == "not_found":
        return ApiError(m.ErrorCode.NOT_FOUND, str(exc))
    if exc.code == "unavailable":
        return ApiError(m.ErrorCode.FORBIDDEN, str(exc))
    return ApiError(m.ErrorCode.CONFLICT, str(exc))


async def _person(
    store: Store,
    account_id: str,
    presence: str | None = None,
    match_id: str | None = None,
    watching: bool = False,
) -> Person:
    account = await store.account_by_id(account_id)
    name = account.name if account else account_id
    return Person(account_id=account_id, name=name, presence=presence, match_id=match_id, watching=watching)


@social_router.get("/friends", response_model=Relations, responses=error_docs(401, 503))
async def my_relations(request: Request) -> Relations:
    account, _ = await signed_in(request)
    service, store = await _service(request), request.app.state.store
    out = Relations(friends=[], requests_received=[], requests_sent=[], blocked=[], muted=[])
    lists = {
        "friend": out.friends,
        "request_received": out.requests_received,
        "request_sent": out.requests_sent,
        "blocked": out.blocked,
    }
    for r in service.relations_of(account.id):
        lists[r.state].append(await _person(store, r.account_id, r.presence, r.match_id, r.watching))
    out.muted = [await _person(store, other) for other in service.mutes_of(account.id)]
    return out


@social_router.post(
    "/friends/requests", response_model=RequestState, responses=error_docs(401, 403, 404, 409, 422, 503)
)
async def ask(request: Request, body: FriendRequest) -> RequestState:
    account, _ = await signed_in(request)
    store: Store = request.app.state.store
    other = await store.account_by_name(body.name)
    if other is None:
        raise ApiError(m.ErrorCode.NOT_FOUND, "no such player")
    try:
        state = await (await _service(request)).request(account.id, other.id)
    except SocialError as exc:
        raise _refused(exc) from None
    return RequestState(account_id=other.id, state=state)


async def _change(request: Request, what: str, other: str) -> Response:
    account, _ = await signed_in(request)
    service = await _service(request)
    if what in ("block", "mute") and await request.app.state.store.account_by_id(other) is None:
        raise ApiError(m.ErrorCode.NOT_FOUND, "no such player")
    try:
        match what:
            case "accept":
                await service.accept(account.id, other)
            case "decline":
                # a request received is declined; one sent is withdrawn
                link = service.memory.link(account.id, other)
                if link is not None and link.a == account.id:
                    await service.remove(account.id, other)
                else:
                    await service.decline(account.id, other)
            case "remove":
                await service.remove(account.id, other)
            case "block":
                await service.block(account.id, other)
            case "unblock":
                await service.unblock(account.id, other)
            case "mute" | "unmute":
                await service.mute(account.id, other, on=what == "mute")
    except SocialError as exc:
        raise _refused(exc) from None
    return Response(status_code=204)


CHANGES = error_docs(401, 403, 404, 409, 422, 503)


@social_router.post("/friends/requests/{account_id}/accept", status_code=204, responses=CHANGES)
async def accept(request: Request, account_id: AccountId) -> Response:
    return await _change(request, "accept", account_id)


@social_router.delete("/friends/requests/{account_id}", status_code=204, responses=CHANGES)
async def decline(request: Request, account_id: AccountId) -> Response:
    return await _change(request, "decline", account_id)


@social_router.delete("/friends/{account_id}", status_code=204, responses=CHANGES)
async def unfriend(request: Request, account_id: AccountId) -> Response:
    return await _change(request, "remove", account_id)


@social_router.put("/blocks/{account_id}", status_code=204, responses=CHANGES)
async def block(request: Request, account_id: AccountId) -> Response:
    return await _change(request, "block", account_id)


@social_router.delete("/blocks/{account_id}", status_code=204, responses=CHANGES)
async def unblock(request: Request, account_id: AccountId) -> Response:
    return await _change(request, "unblock", account_id)


@social_router.put("/mutes/{account_id}", status_code=204, responses=CHANGES)
async def mute(request: Request, account_id: AccountId) -> Response:
    return await _change(request, "mute", account_id)


@social_router.delete("/mutes/{account_id}", status_code=204, responses=CHANGES)
async def unmute(request: Request, account_id: AccountId) -> Response:
    return await _change(request, "unmute", account_id)


@social_router.get("/social/settings", response_model=SocialSettings, responses=error_docs(401, 503))
async def my_settings(request: Request) -> SocialSettings:
    account, _ = await signed_in(request)
    return SocialSettings(hide_presence=(await _service(request)).hides(account.id))


@social_router.put("/social/settings", response_model=SocialSettings, responses=error_docs(401, 422, 503))
async def change_settings(request: Request, body: SocialSettings) -> SocialSettings:
    account, _ = await signed_in(request)
    service = await _service(request)
    await service.hide_presence(account.id, body.hide_presence)
    return SocialSettings(hide_presence=service.hides(account.id))


class Invitation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    to: str = Field(min_length=1, max_length=64, description="the friend's account id")
    code: str = Field(min_length=1, max_length=64, description="your private table's invite code")


class InvitationSent(BaseModel):
    to: str
    code: str


class _Desk(Protocol):
    def send_invite(self, account: Account, to: str, code: str) -> str | tuple[str, str]: ...


_INVITE_REFUSALS = {
    "forbidden": m.ErrorCode.FORBIDDEN,
    "not_found": m.ErrorCode.NOT_FOUND,
    "rate_limited": m.ErrorCode.RATE_LIMITED,
}


@social_router.post(
    "/invites", response_model=InvitationSent, responses=error_docs(401, 403, 404, 409, 422, 429, 503)
)
async def invite(request: Request, body: Invitation) -> InvitationSent:
    """Invite a friend to the private table ``code`` you opened or wait at (docs/social.md)."""
    account, _ = await signed_in(request)
    hub = getattr(request.app.state, "hub", None)
    desk: _Desk | None = getattr(hub, "friends", None)
    if desk is None:
        raise ApiError(m.ErrorCode.CONFLICT, "this server runs no game server to invite through")
    sent = desk.send_invite(account, body.to, body.code)
    if isinstance(sent, tuple):
        raise ApiError(_INVITE_REFUSALS.get(sent[0], m.ErrorCode.FORBIDDEN), sent[1])
    return InvitationSent(to=body.to, code=sent)
