"""The live tables a spectator may watch: ``GET /tables/live`` on the hub's port (docs/hub.md).

Public information only, and no more of it than a spectator of the table sees: the players' names
and kinds, the rules, the hand being played *as a spectator joining now would be shown it* (the
spectators' delay applies, so the list never tells that a hand ended before they may see it) and
how many watch.
Private tables with invited players (they chose who sits there), tables that refuse spectators
and finished matches are left out. A private table of one player and three bots is listed: nobody
was invited (the page opens an east-only game against bots that way), so there is nobody's choice
to keep from view. The list is built at most once per ``ttl_s`` (a lobby polls it every 15 s
per visitor; the hub answers from the copy) and is ordered by match id, so it says nothing about
when a table started.

>>> LiveTables(lambda: [], now=lambda: 0.0).listing()
{'tables': []}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from server.domain.records import Account, AccountKind
from server.engine.events import RoundStarted
from server.engine.rules import Ruleset
from server.hub.outputs import TablePlayerInfo
from server.hub.settings import SpectatePolicy

PRIVATE_SOURCE_PREFIX = "private:"  # Lobby: a private table's source is "private:CODE"


class LiveTable(Protocol):
    """What the list reads of a table (:class:`server.hub.table.TableActor`)."""

    match_id: str

    @property
    def ruleset(self) -> Ruleset: ...

    @property
    def spectate(self) -> SpectatePolicy: ...

    @property
    def source(self) -> str: ...

    @property
    def finished(self) -> bool: ...

    @property
    def players(self) -> tuple[TablePlayerInfo, ...]: ...

    def shown_to_spectators(self) -> tuple[int, RoundStarted | None]: ...

    def overlay(self) -> dict[str, Any]: ...


def table_entry(table: LiveTable) -> dict[str, Any] | None:
    """One table's public line; None for a table that is not listed."""
    if table.finished or not table.spectate.allowed or table.spectate.observers:
        return None  # (a table for named observers only is theirs to find)
    humans = sum(1 for p in table.players if p.kind is not AccountKind.BOT)
    if table.source.startswith(PRIVATE_SOURCE_PREFIX) and humans > 1:
        return None
    watching, hand = table.shown_to_spectators()
    return {
        "match_id": table.match_id,
        "ruleset": table.ruleset.name,
        "game_length": table.ruleset.game_length.value,
        "players": [{"name": p.name, "kind": p.kind.value} for p in table.players],
        "round": None
        if hand is None
        else {"round_wind": hand.round_wind, "kyoku": hand.kyoku, "honba": hand.honba},
        "spectators": watching,
    }


class LiveTables:
    """The cached listing of the live tables (see the module docstring)."""

    def __init__(
        self, tables: Callable[[], Iterable[LiveTable]], *, now: Callable[[], float], ttl_s: float = 2.0
    ) -> None:
        self._tables = tables
        self._now = now
        self.ttl_s = ttl_s
        self._cached: dict[str, Any] | None = None
        self._built_at = 0.0
        self.find: Callable[[str], LiveTable | None] = lambda match_id: next(
            (t for t in self._tables() if t.match_id == match_id), None
        )

    def listing(self) -> dict[str, Any]:
        now = self._now()
        if self._cached is None or now - self._built_at >= self.ttl_s:
            entries = (table_entry(t) for t in self._tables())
            tables = sorted((e for e in entries if e is not None), key=lambda e: str(e["match_id"]))
            self._cached, self._built_at = {"tables": tables}, now
        return self._cached

    def overlay(self, match_id: str, viewer: Account | None) -> dict[str, Any] | None:
        """The stream overlay of a live table ``viewer`` (None: anonymous) may watch, else None
        (no such table, spectators refused, or only named observers admitted and ``viewer`` is
        not one of them: the same answer, so nothing tells which)."""
        table = self.find(match_id)
        if table is None or not table.spectate.allowed:
            return None
        if table.spectate.observers and (viewer is None or not table.spectate.admits(viewer)):
            return None
        return table.overlay()
