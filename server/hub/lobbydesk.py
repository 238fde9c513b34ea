"""How a hub builds its lobby chat desk (:mod:`server.hub.lobbychat`): on the hub's store when it
keeps lobby lines and reports (:class:`~server.domain.moderation.ModerationStore`: the SQL and
memory stores do), on the hub's social bus (the one-process bus until cluster mode hands the hub
the Redis one: :meth:`~server.hub.lobbychat.LobbyDesk.use_bus`); the channels are ``general`` and one per
quick-match queue and ranked queue of the hub."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from server.domain.moderation import ModerationStore
from server.domain.socialbus import SocialBus
from server.hub.lobbychat import LobbyDesk
from server.hub.tablechat import TableChat
from server.services import ranked
from server.services.lobbychat import LobbyChat
from server.services.reports import Reports
from server.social.lobby import LobbySettings

_STORE_METHODS = (
    "add_lobby_line",
    "lobby_lines",
    "lobby_lines_around",
    "prune_lobby",
    "add_report",
    "reports",
)


def lobby_desk(
    chat: TableChat, repo: object, settings: LobbySettings, lobby: Any, bus: SocialBus
) -> LobbyDesk | None:
    """The desk, or None when ``repo`` keeps no lobby lines (a test's bare repository)."""
    if not all(callable(getattr(repo, name, None)) for name in _STORE_METHODS):
        return None
    store: ModerationStore = repo  # type: ignore[assignment]  # checked above, method by method
    social = chat.service

    def rooms() -> Collection[str]:
        return {*(f"queue:{name}" for name in lobby.rulesets), *ranked.all_queue_names()}

    lobby_chat = LobbyChat(social, store, bus, now=social.now, settings=settings, rooms=rooms)
    return LobbyDesk(lobby_chat, Reports(social, store, now=social.now), chat)
