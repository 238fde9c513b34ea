"""The table factory on this node (:class:`LocalTables`, the hub's implementation of
:class:`server.services.tables.TableFactory`) and the registry of its live tables: which tables run
here and which seats each account holds.

Matchmaking (the lobby: quick match, ranked rooms, private tables), crash recovery and anything
else that makes tables (a tournament director, through the port) go through it. Making a table is
two steps so that the lobby keeps its rule that its state changes only in code that does not await:
:meth:`LocalTables.reserve` registers the table and its seats at once (no await), then
:meth:`LocalTables.start` asks the placement for the match, stores guests that sit down, and starts
the table (the store writes the match and its deal: the slow step, with nothing held); if that
fails, the reservation is undone and :class:`~server.services.tables.TableBusyError` raised.
:meth:`LocalTables.create` is both, for callers with no connections to seat.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from server.bots import BOTS
from server.domain.ports import Repository
from server.domain.records import AccountKind
from server.hub.clock import Clock
from server.hub.inbox import Pause, SeatSpec
from server.hub.metrics import HubMetrics
from server.hub.outputs import Participant
from server.hub.placement import Placement
from server.hub.recovery import RecoveredMatch
from server.hub.settings import HubSettings
from server.hub.standins import hand_over, seat_spec
from server.hub.table import TableActor
from server.hub.tablesetup import TableDeps, TableSetup
from server.services.tables import (
    LiveTable,
    SeatKind,
    SeatRequest,
    SeatStatus,
    TableAnswer,
    TableBusyError,
    TableCommand,
    TableError,
    TableSpec,
    TableSpecError,
    TableStatus,
)
from server.social.chat import TEXT_MODES

log = logging.getLogger(__name__)


@dataclass(eq=False, slots=True)
class Reservation:
    """A table registered with its seats taken, not started yet."""

    table: TableActor
    participants: dict[int, Participant] = field(default_factory=dict)


class LocalTable:
    """A live table of this node, as the factory hands it out (:class:`LiveTable`)."""

    __slots__ = ("_tables", "actor")

    def __init__(self, actor: TableActor, tables: LocalTables) -> None:
        self.actor = actor
        self._tables = tables

    @property
    def match_id(self) -> str:
        return self.actor.match_id

    def status(self) -> TableStatus:
        a = self.actor
        return TableStatus(
            match_id=a.match_id,
            source=a.source,
            tags=self._tables.tags.get(a.match_id, {}),
            seats=tuple(SeatStatus(i, s.name, s.kind.value, s.account_id) for i, s in enumerate(a.seats)),
            paused=a.paused,
            finished=a.finished,
            locked=frozenset(self._tables.locked.get(a.match_id, ())),
        )

    async def pause(self, reason: str) -> None:
        await self._set_paused(True, reason)

    async def unpause(self) -> None:
        await self._set_paused(False, "")

    async def _set_paused(self, paused: bool, reason: str) -> None:
        if not self.actor.running:
            return  # over: nothing to pause
        try:  # kept first: a table recovered after a restart or taken over is paused as it was
            await self._tables.repo.set_paused(self.actor.match_id, reason if paused else None)
        except Exception as exc:
            raise TableBusyError(
                f"cannot {'pause' if paused else 'unpause'} now: the store refused ({exc})"
            ) from None
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.actor.submit(Pause(paused, reason, done))
        await done

    async def end(self, reason: str) -> None:
        await self.actor.stop(abort=True, why=reason)

    def _check_seat(self, seat: int) -> None:
        if not 0 <= seat < len(self.actor.seats):
            raise TableSpecError(f"match {self.match_id} has no seat {seat}")

    async def lock_seat(self, seat: int, locked: bool) -> None:
        self._check_seat(seat)
        seats = self._tables.locked.setdefault(self.match_id, set())
        (seats.add if locked else seats.discard)(seat)

    async def substitute(self, seat: int, by: SeatRequest) -> int:
        self._check_seat(seat)
        if seat in self._tables.locked.get(self.match_id, ()):
            raise TableSpecError(f"seat {seat} of {self.match_id} is locked")
        if self.actor.finished or not self.actor.running:
            raise TableSpecError(f"match {self.match_id} is over")
        if self.actor.seats[seat].bot is not None:
            raise TableSpecError(
                f"seat {seat} of {self.match_id} is a built-in bot's: it needs no substitute"
            )
        spec, stand_in = seat_spec(by, self.actor, seat)
        old = self.actor.seats[seat].account_id
        step = hand_over(self.actor, seat, spec, stand_in)
        self._tables.moved(self.match_id, seat, old, spec.account_id if stand_in is None else None)
        return step


class RemoteTable:
    """A live table another node of the cluster runs: what is asked of it (pause, unpause, end,
    lock a seat, seat a substitute) goes to that node through the placement
    (:meth:`Placement.control`), which does it there as :class:`LocalTable` does here; what that
    node refuses is raised here as the same :class:`TableError`."""

    __slots__ = ("_match_id", "_placement", "node")

    def __init__(self, match_id: str, node: str, placement: Placement) -> None:
        self._match_id = match_id
        self._placement = placement
        self.node = node

    @property
    def match_id(self) -> str:
        return self._match_id

    def status(self) -> TableStatus:
        return TableStatus(match_id=self._match_id, node=self.node)

    async def _control(self, command: TableCommand) -> TableAnswer:
        answer = await self._placement.control(self._match_id, command)
        if answer is None:
            raise TableBusyError(
                f"cannot {command.action} match {self._match_id} now: the node running it cannot be "
                "reached or the match is moving to another node; try again in a moment"
            )
        answer.raise_refusal()
        return answer

    async def pause(self, reason: str) -> None:
        await self._control(TableCommand("pause", reason))

    async def unpause(self) -> None:
        await self._control(TableCommand("unpause"))

    async def end(self, reason: str) -> None:
        await self._control(TableCommand("end", reason))

    async def lock_seat(self, seat: int, locked: bool) -> None:
        await self._control(TableCommand("lock" if locked else "unlock", seat=seat))

    async def substitute(self, seat: int, by: SeatRequest) -> int:
        answer = await self._control(TableCommand.substitute(seat, by))
        if answer.over or answer.step is None:
            raise TableSpecError(f"match {self._match_id} is over")
        return answer.step


class LocalTables:
    """Makes tables on this node and keeps the registry of the live ones (module docstring)."""

    def __init__(
        self,
        *,
        repo: Repository,
        clock: Clock,
        settings: HubSettings,
        placement: Placement,
        seed_source: Callable[[], bytes],
        wall: Callable[[], float] = time.time,
        metrics: HubMetrics | None = None,
        store_guest: Callable[[str], Coroutine[Any, Any, None]] | None = None,
    ) -> None:
        self.settings = settings
        self._placement = placement
        self._seed_source = seed_source
        self._store_guest = store_guest  # a guest's account is stored when it first sits at a table
        self._deps = TableDeps(
            repo=repo,
            clock=clock,
            wall_clock=wall,
            metrics=metrics,
            commit_timeout_s=settings.commit_timeout_s,
            commit_retry_s=settings.commit_retry_s,
            retention_s=settings.finished_retention_s,
        )
        self.tables: dict[str, TableActor] = {}
        self.tags: dict[str, Mapping[str, str]] = {}
        self.locked: dict[str, set[int]] = {}  # match id -> seats no connection may take
        self._seats: dict[str, dict[str, int]] = {}  # account id -> {match id: seat} (live matches)

    @property
    def repo(self) -> Repository:
        """The store the tables write to."""
        return self._deps.repo

    # -- the factory (server.services.tables.TableFactory) ------------------------------------------

    async def create(self, spec: TableSpec) -> LocalTable:
        return LocalTable(await self.start(self.reserve(spec)), self)

    async def find(self, match_id: str) -> LiveTable | None:
        table = self.tables.get(match_id)
        if table is not None:
            return LocalTable(table, self)
        node = await self._placement.locate(match_id)
        return None if node is None else RemoteTable(match_id, node, self._placement)

    async def control_here(self, match_id: str, command: TableCommand) -> TableAnswer | None:
        """Do ``command`` on the table of ``match_id`` if it runs on this node (what another node
        asks through the placement: :class:`RemoteTable`): the answer, a refusal included; None
        when it does not run here."""
        table = self.tables.get(match_id)
        if table is None:
            return None
        here, seat, step = LocalTable(table, self), command.seat, None
        try:
            if command.action == "pause":
                await here.pause(command.reason)
            elif command.action == "unpause":
                await here.unpause()
            elif command.action == "end":
                await here.end(command.reason)
            elif command.action in ("lock", "unlock") and seat is not None:
                await here.lock_seat(seat, command.action == "lock")
            elif command.action == "substitute" and seat is not None:
                step = await here.substitute(seat, await self._stand_in(command))
        except TableError as exc:
            return TableAnswer.refused(exc)
        return TableAnswer(step=step)

    async def _stand_in(self, command: TableCommand) -> SeatRequest:
        if command.account_id is None:
            return SeatRequest.built_in(command.bot)
        account = await self.repo.account_by_id(command.account_id)
        if account is None:
            raise TableSpecError(f"no account {command.account_id!r}")
        return SeatRequest.player(account)

    # -- the registry --------------------------------------------------------------------------------

    def table(self, match_id: str) -> TableActor | None:
        return self.tables.get(match_id)

    def live_seats(self, account_id: str) -> list[tuple[str, int]]:
        return sorted(self._seats.get(account_id, {}).items())

    def is_locked(self, match_id: str, seat: int) -> bool:
        """An organizer locked the seat: no connection may take it (``LiveTable.lock_seat``)."""
        return seat in self.locked.get(match_id, ())

    def moved(self, match_id: str, seat: int, old: str | None, new: str | None) -> None:
        """The seat of ``match_id`` changed hands (a substitute): the registry follows."""
        if old is not None:
            mine = self._seats.get(old, {})
            mine.pop(match_id, None)
            if not mine:
                self._seats.pop(old, None)
        if new is not None:
            self._seats.setdefault(new, {})[match_id] = seat

    # -- making a table ------------------------------------------------------------------------------

    def reserve(self, spec: TableSpec, participants: Mapping[int, Participant] | None = None) -> Reservation:
        """Register a table for ``spec`` and its seats (no await); ``participants``: connections to
        seat when it starts (the player seats they hold). TableSpecError for a bad spec."""
        seats = self._seat_specs(spec)
        joining = dict(participants or {})
        for seat, p in joining.items():
            if seats[seat].account_id != p.account.id:
                raise TableSpecError(f"seat {seat} is not {p.account.id}'s")
        match_id = f"m-{secrets.token_hex(6)}"
        table = self._actor(
            TableSetup(
                match_id=match_id,
                ruleset=spec.ruleset,
                seed=spec.seed if spec.seed is not None else self._seed_source(),
                seats=seats,
                timers=spec.timers or self.settings.timers,
                spectate=spec.spectate or self.settings.spectate,
                walls=spec.walls,
                source=spec.source,
                hold_reveals=spec.hold_reveals,
                start_scores=spec.start_scores,
                chat=spec.tags["chat"] if spec.tags.get("chat") in TEXT_MODES else None,
            )
        )
        self._register(table, spec.tags)
        return Reservation(table, joining)

    def _seat_specs(self, spec: TableSpec) -> list[SeatSpec]:
        if len(spec.seats) != spec.ruleset.seats:
            n = spec.ruleset.seats
            raise TableSpecError(f"a table of this ruleset has {n} seats, got {len(spec.seats)}")
        seats: list[SeatSpec] = []
        n_bots = 0
        taken: set[str] = set()
        for request in spec.seats:
            if request.kind is SeatKind.PLAYER:
                account = request.account
                assert account is not None  # SeatRequest checks it
                if account.id in taken:
                    raise TableSpecError(f"{account.id} has two seats")
                taken.add(account.id)
                seats.append(SeatSpec(name=account.name, kind=account.kind, account_id=account.id))
                continue
            bot = request.bot or self.settings.fill_bot
            if bot not in BOTS:
                raise TableSpecError(f"no bot {bot!r}; bots: {sorted(BOTS)}")
            n_bots += 1
            seats.append(SeatSpec(name=f"{bot}-{n_bots}", kind=AccountKind.BOT, bot=bot))
        return seats

    async def start(self, reserved: Reservation) -> TableActor:
        """Start a reserved table (the store writes the match: this may take a while); when that
        fails, undo the reservation and raise TableBusyError."""
        table, participants = reserved.table, reserved.participants
        match_id = table.match_id
        try:
            if not await self._placement.claim(match_id, new=True):
                raise TableBusyError("the cluster cannot place a table now")
            if self._store_guest is not None:
                for p in participants.values():
                    if p.account.kind is AccountKind.GUEST:
                        await self._store_guest(p.account.id)
            await table.start(participants)
        except Exception as exc:
            if isinstance(exc, TableBusyError):
                log.warning("table %s not started: %s", match_id, exc, extra={"match_id": match_id})
            else:
                log.exception("could not start table %s", match_id, extra={"match_id": match_id})
            self._ended(table)
            if self.tables.get(match_id) is table:
                del self.tables[match_id]
                self.tags.pop(match_id, None)
            raise TableBusyError("the server could not open a table") from exc
        log.info(
            "table %s started (%s; %d players, %d bots)",
            match_id,
            table.source,
            sum(1 for s in table.seats if s.account_id is not None),
            sum(1 for s in table.seats if s.account_id is None),
            extra={"match_id": match_id},
        )
        return table

    async def adopt(self, recovered: RecoveredMatch) -> TableActor:
        """A match rebuilt from its stored log (crash recovery, a takeover): its table again, the
        same seats, started where the log ends (raises when the store refuses its deal)."""
        match = recovered.match
        seats = [
            SeatSpec(name=s.name, kind=s.kind, account_id=s.account_id, bot=s.bot)
            for s in sorted(match.seats, key=lambda s: s.seat)
        ]
        table = self._actor(
            TableSetup(
                match_id=match.id,
                ruleset=recovered.ruleset,
                seed=recovered.seed,
                seats=seats,
                timers=recovered.timers,
                spectate=recovered.spectate,
                source=match.source,
                hold_reveals=recovered.hold_reveals,
                start_scores=recovered.start_scores,
                chat=recovered.chat,
            )
        )
        self._register(table, {} if recovered.chat is None else {"chat": recovered.chat})
        try:
            await table.resume(recovered.transitions, recovered.steps, paused=recovered.paused)
        except Exception:
            # The store refused the deal of an empty log: leave the match running for the next start.
            log.exception("could not resume table %s", match.id, extra={"match_id": match.id})
            self._retired(table)
            raise
        log.info(
            "table %s resumed at step %d (%s)",
            match.id,
            recovered.transitions[-1].step,
            match.source,
            extra={"match_id": match.id},
        )
        return table

    def _actor(self, setup: TableSetup) -> TableActor:
        return TableActor(setup, self._deps, on_end=self._ended, on_retire=self._retired)

    def _register(self, table: TableActor, tags: Mapping[str, str]) -> None:
        match_id = table.match_id
        self.tables[match_id] = table
        if tags:
            self.tags[match_id] = dict(tags)
        for seat, spec in enumerate(table.seats):
            if spec.account_id is not None:
                self._seats.setdefault(spec.account_id, {})[match_id] = seat

    # -- tables ending -------------------------------------------------------------------------------

    def _ended(self, table: TableActor) -> None:
        for seat in table.seats:
            if seat.account_id is not None:
                mine = self._seats.get(seat.account_id)
                if mine is not None:
                    mine.pop(table.match_id, None)
                    if not mine:
                        del self._seats[seat.account_id]

    def _retired(self, table: TableActor) -> None:
        self._ended(table)
        if self.tables.get(table.match_id) is table:
            del self.tables[table.match_id]
            self.tags.pop(table.match_id, None)
            self.locked.pop(table.match_id, None)
            self._placement.released(table.match_id, finished=table.finished)
