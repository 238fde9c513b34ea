"""Building the server from its parts: the settings, the repository, the hub and the admin review API.

This is the one place that knows every implementation: ``memory:`` or a SQL database
(:class:`server.store.repository.SqlRepository`), the hub (:class:`server.hub.server.Hub`) with the
browser client's files (:mod:`server.web.static`), and the review API beside it
(:mod:`server.app.review_api`). The packages below it never import each other upwards
(``docs/architecture.md``).

The repository is opened inside the event loop that uses it (:func:`open_repository`), so its
connections and its group-commit writer live on that loop; :func:`serve_forever` closes the hub
before the repository, so every queued step is committed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import functools
import logging
import secrets
import sys
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy.exc import SQLAlchemyError

from server.app.review_api import ReviewServer, review_api
from server.bots import BOTS
from server.domain.errors import ConflictError
from server.domain.ports import Repository, Store
from server.domain.records import MatchStatus
from server.domain.tournaments import EventStore
from server.hub import gcpolicy
from server.hub.placement import Placement
from server.hub.server import Hub
from server.hub.settings import HubSettings
from server.services.eventbase import NoticeTo
from server.services.eventports import StoreEventPorts, StoreSuspensions
from server.services.eventrules import sealed_games
from server.services.social import social_service
from server.services.tables import TableFactory
from server.services.tournaments import EventService
from server.store.db import resolve_url
from server.store.errors import StoreConfigError
from server.store.memory import AccountFile, InMemoryRepository
from server.store.memory_events import InMemoryEvents
from server.store.repository import SqlRepository
from server.web.api import ApiSettings, create_app
from server.web.api.gameport import attach_hub

log = logging.getLogger(__name__)

MEMORY_URL = "memory:"
ACCOUNTS_FILE = "accounts.json"
DEFAULT_COMMIT_TIMEOUT_S = HubSettings().commit_timeout_s
T = TypeVar("T")


def repository_url(data_dir: Path | str, database_url: str | None) -> str:
    """``memory:``, or the database URL (``--database-url``, ``DATABASE_URL``, the SQLite default).
    Raises StoreConfigError for a URL the store does not support."""
    if database_url == MEMORY_URL:
        return MEMORY_URL
    return resolve_url(data_dir=data_dir, database_url=database_url)


@contextlib.asynccontextmanager
async def open_repository(
    data_dir: Path | str,
    database_url: str | None,
    *,
    commit_timeout_s: float = DEFAULT_COMMIT_TIMEOUT_S,
    owner: str | None = None,
) -> AsyncIterator[Store]:
    """The repository of these options, opened on the running loop (migrating the database to the
    latest schema; a fresh data directory gets its SQLite file) and closed at the end (committing
    what is queued). Imports a leftover ``DATA_DIR/accounts.json`` once. ``owner``: cluster mode's
    node id (the matches it creates are fenced from the start, docs/scaling.md)."""
    url = repository_url(data_dir, database_url)
    if url == MEMORY_URL:
        yield InMemoryRepository()
        return
    repo = await SqlRepository.open(url, commit_timeout_s=commit_timeout_s, owner=owner)
    try:
        await import_accounts_file(repo, Path(data_dir) / ACCOUNTS_FILE)
        yield repo
    finally:
        await repo.close()


async def import_accounts_file(repo: Repository, path: Path) -> int:
    """Import the players and bots of an ``accounts.json`` (the store before the database) into
    ``repo``, once: the file is then renamed ``accounts.json.imported``. Accounts already there (same
    id) are skipped; a different account with the same name is kept out, with a warning. Returns
    how many were imported."""
    if not path.is_file():
        return 0
    imported = 0
    for account in AccountFile(path).load():
        if await repo.account_by_id(account.id) is not None:
            continue
        try:
            await repo.create_account(account)
            imported += 1
        except ConflictError as exc:
            log.warning("%s: account %s not imported: %s", path, account.id, exc)
    done = path.with_name(path.name + ".imported")
    path.replace(done)
    log.warning("imported %d accounts from %s into the database (the file is now %s)", imported, path, done)
    return imported


def run_with_repo(args: argparse.Namespace, fn: Callable[[Store], Awaitable[T]]) -> T | int:
    """Run ``fn(repo)`` in one event loop on the repository of ``args.data_dir`` and
    ``args.database_url``; a store that cannot be opened is an error exit (2 for a configuration
    problem, 1 when the database cannot be used)."""

    async def main() -> T:
        async with open_repository(args.data_dir, args.database_url) as repo:
            return await fn(repo)

    try:
        return asyncio.run(main())
    except StoreConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (SQLAlchemyError, OSError) as exc:
        print(f"error: the database cannot be used: {exc}", file=sys.stderr)
        return 1


# The events of an in-memory repository live beside it (one store per repository, as long as it lives).
_MEMORY_EVENTS: weakref.WeakKeyDictionary[Store, InMemoryEvents] = weakref.WeakKeyDictionary()


def event_store(repo: Store) -> EventStore:
    """Where the events of ``repo`` are kept: the SQL repository itself (its ``events`` tables), or
    one :class:`InMemoryEvents` per in-memory repository."""
    if isinstance(repo, SqlRepository):
        return repo
    store = _MEMORY_EVENTS.get(repo)
    if store is None:
        store = _MEMORY_EVENTS[repo] = InMemoryEvents()
    return store


class StoredResults:
    """The event service's :class:`~server.services.tournaments.MatchResults` read from the store.

    A completed match: its stored result (final scores and places). A match ended early (aborted,
    e.g. by an organizer's ``end table``): the scores after its last finished hand, placed by score
    with ties to the seat nearer the first dealer (seat 0), as the engine breaks them. A match
    still running (or unknown): None."""

    def __init__(self, repo: Store, running_here: Callable[[str], bool] | None = None) -> None:
        self._repo = repo
        self._running_here = running_here  # a table this node runs and that has not ended: no final
        # a match's final never changes once it has one: read once (live standings re-read every
        # game of the event on each request)
        self._finals: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {}

    async def final(self, match_id: str) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        known = self._finals.get(match_id)
        if known is None and self._running_here is not None and self._running_here(match_id):
            return None  # no read: live standings ask this of every table of a running round
        if known is None:
            known = await self._read(match_id)
            if known is not None:
                self._finals[match_id] = known
        return known

    async def _read(self, match_id: str) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        match = await self._repo.get_match(match_id)  # one read for a match still running
        if match is None or match.status is MatchStatus.RUNNING:
            return None
        result = await self._repo.get_result(match_id)
        if result is not None:
            return tuple(result.scores), tuple(result.ranks)
        if match.status is not MatchStatus.ABORTED:
            return None
        hands = await self._repo.hand_results(match_id)
        played = [h.scores_after for h in hands if h.scores_after is not None]
        if played:
            scores = tuple(played[-1])
        elif hands:
            scores = tuple(hands[0].scores_before)
        else:
            return None
        order = sorted(range(len(scores)), key=lambda seat: (-scores[seat], seat))
        ranks = [0] * len(scores)
        for place, seat in enumerate(order, start=1):
            ranks[seat] = place
        return scores, tuple(ranks)


def event_service(
    repo: Store,
    tables: TableFactory,
    *,
    now: Callable[[], float] = time.time,
    running_here: Callable[[str], bool] | None = None,
    notice_to: NoticeTo | None = None,
) -> EventService:
    """The event service (``docs/tournaments.md``) on ``repo``: events kept by :func:`event_store`,
    tables made by ``tables`` (the hub's factory), results read from the stored games, accounts
    from the store, ids ``ev-<12 hex>``, a 32-byte random secret per event; ranked standings, stored
    moves and game exports read through :class:`StoreEventPorts`; the moderators' suspensions
    through :class:`StoreSuspensions` (a suspended player is kept out of the event's tables)."""
    events = event_store(repo)
    ports = StoreEventPorts(repo, events)
    social = repo if isinstance(repo, SqlRepository | InMemoryRepository) else None  # the sanctions
    return EventService(
        store=events,
        tables=tables,
        results=StoredResults(repo, running_here),
        accounts=repo.account_by_id,
        now=now,
        new_id=lambda: f"ev-{secrets.token_hex(6)}",
        new_secret=lambda: secrets.token_bytes(32),
        rank_of=ports.rank_of,
        steps_of=ports.steps_of,
        export_of=ports.export_of,
        bot_names=frozenset(BOTS),
        suspensions_of=None if social is None else StoreSuspensions(social, now),
        notice_to=notice_to,
    )


def build_hub(
    settings: HubSettings,
    repo: Store,
    placement: Placement | None = None,
    api: ApiSettings | None = None,
) -> Hub:
    """The hub of ``settings`` on ``repo`` with the one HTTP application (``server.web.api``): the
    game port's routes (probes, metrics, private and live tables, the browser client's files, the
    players' game pages and API) through the hub, the admin port's through :func:`running_server`
    (``hub.http_app``); ``placement`` places tables across a cluster's nodes (None: this process
    alone). One social service per store: the hub's chat and the HTTP API's friends and blocks
    share it."""
    social = social_service(repo, time.time) if isinstance(repo, SqlRepository | InMemoryRepository) else None
    # A tournament round's finished games are sealed while its walls are still played elsewhere.
    api = dataclasses.replace(api or ApiSettings(), sealed=sealed_games(event_store(repo)))
    app = create_app(repo, api)
    hub = Hub(settings, repo, http_app=app, ratings=repo, placement=placement, social=social)
    attach_hub(app, hub)
    # The events API (admin port) runs events on this hub's table factory; notices reach the
    # entrants' connections through the hub (on every node, in a cluster).
    events = event_service(
        repo, hub.tables, running_here=_running_on(hub), notice_to=hub.friends.event_notice
    )
    app.state.settings = dataclasses.replace(app.state.settings, events=events)
    hub.event_status = events.status_of  # an event bot's hello: is its event over?
    hub.on_takeover = functools.partial(restore_event_tables, app)  # cluster mode: another node's tables
    return hub


async def restore_event_tables(app: Any, only: Sequence[str] | None = None) -> None:
    """After crash recovery or a takeover (``only`` those matches): the events' running tables get
    their seat locks and mid-game substitutes back (:meth:`EventService.restore_tables`); what
    cannot be restored is logged."""
    service: EventService | None = app.state.settings.events
    if service is not None:
        for problem in await service.restore_tables(only):
            log.warning("event table not restored: %s", problem)


def _running_on(hub: Hub) -> Callable[[str], bool]:
    def running(match_id: str) -> bool:
        table = hub.lobby.table(match_id)
        return table is not None and not table.finished

    return running


@contextlib.asynccontextmanager
async def running_server(
    settings: HubSettings,
    repo: Store,
    *,
    review_port: int | None = None,
    review_required: bool = False,
    placement: Placement | None = None,
    cluster_status: Callable[[], Awaitable[dict[str, Any]]] | None = None,
) -> AsyncIterator[tuple[Hub, ReviewServer]]:
    """The whole server on ``repo`` while the block runs: the hub (started: crash recovery, then
    listening), the admin review API beside it on ``review_port`` (``server.web.api``,
    docs/admin.md) with the events API on the hub's table factory (docs/tournaments.md), and the
    process's garbage-collector policy (``settings.gc``, server/hub/gcpolicy.py) with the GIL's
    switch interval (``settings.gil_switch_interval_s``). The
    hub is shut down at the end; the caller closes ``repo``."""
    with gcpolicy.switching(settings.gil_switch_interval_s):
        hub = build_hub(settings, repo, placement, ApiSettings(host=settings.host, cluster=cluster_status))
        await hub.start()
        try:
            assert hub.http_app is not None
            await restore_event_tables(hub.http_app)
            async with (
                gcpolicy.applied(settings.gc),
                review_api(
                    hub.http_app, repo, settings.host, review_port, required=review_required
                ) as review,
            ):
                yield hub, review
        finally:
            await hub.shutdown()
