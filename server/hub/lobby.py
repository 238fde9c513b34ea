"""The lobby: quick-match queues per ruleset preset, private tables with invite codes, spectating,
and the registry of live tables (who holds which seat).

* Quick match: ``{"type": "queue", "preset": "tenhou"}``. As many waiting players as the preset
  has seats (four; three for the three-player presets, :data:`QUEUE_PRESETS`) make a table; when
  the oldest has waited ``bot_fill_after_s``, built-in bots take the empty seats. The variant
  ``"tenhou+bots"`` ("play now against bots") seats the player at once with bots in the other seats. Cluster
  mode pairs a node's own players first (:mod:`server.hub.crossnode`).
* Private tables: made by :meth:`Lobby.create_private` (over HTTP: ``GET /private/new``, see
  ``docs/hub.md``) with a preset, rule overrides, per-table timers, a number of bots and a chat
  policy (no more free text than the server's rule for private tables); players
  join with ``{"type": "private", "code": CODE}``; the table starts when the humans are all there.
* Spectating: ``{"type": "spectate", "match_id": ...}``: public information only, delayed.
* Crash recovery: :meth:`Lobby.recover`, at start, rebuilds every match the store says is still
  running (see :mod:`server.hub.recovery`) and registers its seats, so players reconnect to it.

Seats are drawn at random. A player waits in at most one queue or private table at a time.

The lobby's state changes only in code that does not await, so no lock is needed. Starting a table
(the store writes the match and its deal) is the one slow step: the seats are reserved first (the
group leaves its queue; the table and its seats are registered), then the table is started with
nothing held, so a slow store stalls nobody else's matchmaking. If starting fails, the reservation
is undone and the group is told to join again (``busy_retry``).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable, Collection, Coroutine, Mapping, Sequence
from typing import Any

from client_protocol.errors import ErrorCode
from server.bots import BOTS
from server.domain.ports import Repository
from server.domain.records import Account, MatchRecord, MatchStatus, Scope
from server.engine.errors import RulesError
from server.engine.rules import PRESETS, SANMA_PRESETS, GameLength, Ruleset
from server.hub.clock import Cancellable, Clock
from server.hub.crossnode import QueueHandoff, Stragglers
from server.hub.inbox import Attach
from server.hub.lobbytypes import PrivateTable, RecoveryReport, Waiting, new_invite_code, require
from server.hub.metrics import HubMetrics
from server.hub.outputs import ErrorOut, LeftOut, Participant, QueuedOut
from server.hub.placement import LocalPlacement, Placement
from server.hub.recovery import RecoveredMatch, rebuild_stored
from server.hub.settings import HubSettings, SettingsError, SpectatePolicy, TableTimers
from server.hub.table import TableActor
from server.hub.tables import LocalTables, Reservation
from server.services import matchmaking as mm
from server.services import ranked
from server.services.errors import LobbyError
from server.services.ratings import RatedRepository, RatingService, RatingStore
from server.services.tables import SeatRequest, TableBusyError, TableSpec
from server.social.chat import ROOM_POLICIES, TEXT_MODES, FreeText, within

log = logging.getLogger(__name__)

BOTS_SUFFIX = "+bots"  # "tenhou+bots": play now, against built-in bots in every other seat
EAST_SUFFIX = "-east"  # "tenhou-sanma-east": a three-player preset played east round only

QUEUE_PRESETS: dict[str, Ruleset] = {
    **PRESETS,
    **SANMA_PRESETS,
    **{name + EAST_SUFFIX: r.with_options(game_length=GameLength.EAST) for name, r in SANMA_PRESETS.items()},
}
"""What the hub's quick-match queues and private tables offer by default: the four-player presets,
the three-player ones (east-south, as the presets are) and each three-player one east only."""


class Lobby:
    """Matchmaking and the table registry. Safe to call from many connection tasks."""

    def __init__(
        self,
        *,
        repo: Repository,
        clock: Clock,
        settings: HubSettings,
        rulesets: Mapping[str, Ruleset] | None = None,
        seed_source: Callable[[], bytes] | None = None,
        rng: random.Random | None = None,
        metrics: HubMetrics | None = None,
        wall: Callable[[], float] = time.time,
        placement: Placement | None = None,
        store_guest: Callable[[str], Coroutine[Any, Any, None]] | None = None,
        ratings: RatingStore | None = None,
        hand_off: QueueHandoff | None = None,
    ) -> None:
        self._repo = repo
        self._placement: Placement = placement or LocalPlacement()
        self._ratings = ratings  # ranked rooms' entry requirements (server.services.ranked)
        # A table's result is stored with its rating (server.services.ratings); None: no ranked play.
        self.rating_service = None if ratings is None else RatingService(ratings, clock=wall)
        self.metrics = metrics
        self._clock = clock
        self._wall = wall  # wall-clock seconds, for what is stored (a match's end)
        self.settings = settings
        self.rulesets: Mapping[str, Ruleset] = dict(rulesets if rulesets is not None else QUEUE_PRESETS)
        self._rng = rng or random.SystemRandom()
        # The table factory of this node: every table the lobby makes or recovers is made there.
        self.factory = LocalTables(
            repo=repo if self.rating_service is None else RatedRepository(repo, self.rating_service),
            clock=clock,
            settings=settings,
            placement=self._placement,
            seed_source=seed_source or (lambda: secrets.token_bytes(32)),
            wall=wall,
            metrics=metrics,
            store_guest=store_guest,
        )
        self.tables: dict[str, TableActor] = self.factory.tables  # the live tables of this node
        self._queues: dict[str, list[Waiting]] = {}
        self._fill_timers: dict[str, Cancellable] = {}
        self._private: dict[str, PrivateTable] = {}
        # Seated players' free text at private tables as the server rules it (``--table-chat
        # private=MODE``): the most a private table's creator may choose. The hub reads its chat service.
        self.private_chat: Callable[[], FreeText] = lambda: ROOM_POLICIES["private"].seated_text
        self._tasks: set[asyncio.Task[object]] = set()
        self.closing = False
        # cluster mode: players not paired here within the local wait go to the queue's matcher
        local_wait = self._placement.queue_local_wait_s
        self.stragglers = (
            None
            if hand_off is None or local_wait is None
            else Stragglers(
                self._queues,
                clock,
                self._placement,
                hand_off,
                local_wait_s=local_wait,
                recheck_s=mm.RECHECK_S,
                changed=self._queue_changed,
                spawn=self._spawn,
            )
        )

    # -- queries -------------------------------------------------------------------------------------

    def table(self, match_id: str) -> TableActor | None:
        return self.factory.table(match_id)

    def live_seats(self, account_id: str) -> list[tuple[str, int]]:
        return self.factory.live_seats(account_id)

    def has_invite(self, code: str) -> bool:
        return code.strip().upper() in self._private

    def open_private(self, code: str) -> PrivateTable | None:
        """The private table still open for players with invite ``code`` on this node, if any."""
        self._purge_private()
        return self._private.get(code.strip().upper())

    def waiting(self, preset: str) -> int:
        return len(self._queues.get(preset, ()))

    # -- quick match ---------------------------------------------------------------------------------

    async def join_queue(
        self, p: Participant, preset: str, request_id: int | None, *, waited_s: float | None = None
    ) -> None:
        """``waited_s``: cluster mode, another node handed the player over, after it had waited
        that long there (its bot fill-in counts from when it first queued)."""
        if ranked.is_ranked(ranked.canonical_queue(preset)):
            await self._join_ranked(p, ranked.canonical_queue(preset), request_id, waited_s)
            return
        name = preset.removesuffix(BOTS_SUFFIX)
        now_with_bots = name != preset
        try:
            self._check_open()
            ruleset = self.rulesets.get(name)
            if ruleset is None:
                raise LobbyError(
                    ErrorCode.NOT_FOUND,
                    f"no queue {preset!r}; presets: {', '.join(sorted(self.rulesets))} "
                    f"(add {BOTS_SUFFIX!r} to play at once against bots)",
                )
            require(p.account, Scope.PLAY)
        except LobbyError as exc:
            p.deliver(ErrorOut(exc.code, exc.message, request_id))
            return
        self._forget_waiting(p.account.id)
        entry = self._entry(p, request_id, waited_s)
        if now_with_bots or self.settings.bot_fill_after_s == 0:
            timers = self.settings.timers
            reserved: Reservation | None = self._reserve([entry], ruleset, f"queue:{name}", timers)
        else:
            reserved = self._enqueue(name, entry)
        if reserved is not None:
            await self._start(reserved)

    def _entry(self, p: Participant, request_id: int | None, waited_s: float | None) -> Waiting:
        return mm.new_entry(p, now=self._clock.now(), request_id=request_id, waited_s=waited_s)

    def _enqueue(self, name: str, entry: Waiting) -> Reservation | None:
        """Queue ``entry`` (in the order players first queued: one handed over from another node
        has waited longer) and take the first ones out as a table once there are as many as it has
        seats."""
        queue = self._queues.setdefault(name, [])
        mm.enqueue(queue, entry)
        reserved: Reservation | None = None
        ruleset, source = self._queue_table(name)
        group = mm.take_table(queue, ruleset.seats)
        if group is not None:
            reserved = self._reserve(group, ruleset, source, self.settings.timers)
        self._queue_changed(name)
        return reserved

    def _queue_table(self, name: str) -> tuple[Ruleset, str]:
        """The ruleset and source of a table made of queue ``name``'s players."""
        if ranked.is_ranked(name):
            return ranked.ranked_queue(name, self.rulesets).ruleset, name
        return self.rulesets[name], f"queue:{name}"

    def _queue_changed(self, name: str) -> None:
        self._announce_queue(name)
        self._arm_fill(name)
        if self.stragglers is not None:
            self.stragglers.schedule(name)

    def requeue(self, p: Participant, name: str, request_id: int | None, since: float) -> None:
        """Cluster mode: a hand-over of ``p`` to another node failed; it waits here again, in its
        place (it first queued at ``since``), and is looked at again after the recheck delay."""
        if self.closing or name not in self._queues:
            p.deliver(ErrorOut(ErrorCode.BUSY_RETRY, "could not queue you; join again", request_id))
            return
        self._forget_waiting(p.account.id)
        now = self._clock.now()
        entry = mm.QueueEntry(p, since, request_id, joined=now)
        if self.stragglers is not None:
            self.stragglers.policy.stay(entry, now)
        reserved = self._enqueue(name, entry)
        if reserved is not None:
            self._spawn(self._start(reserved))

    async def _join_ranked(
        self, p: Participant, name: str, request_id: int | None, waited_s: float | None = None
    ) -> None:
        """A ranked room's queue: entry checked, never filled with bots (server.services.ranked)."""
        try:
            self._check_open()
            require(p.account, Scope.PLAY)
            q = ranked.ranked_queue(name, self.rulesets)
            await ranked.check_entry(self._ratings, p.account, q)
        except (LobbyError, ranked.RankedEntryError) as exc:
            p.deliver(ErrorOut(exc.code, exc.message, request_id))
            return
        self._forget_waiting(p.account.id)
        reserved = self._enqueue(name, self._entry(p, request_id, waited_s))
        if reserved is not None:
            await self._start(reserved)

    def _announce_queue(self, name: str) -> None:
        queue = self._queues.get(name, [])
        for w in queue:
            w.participant.deliver(QueuedOut(name, len(queue)))

    def _arm_fill(self, name: str) -> None:
        old = self._fill_timers.pop(name, None)
        if old is not None:
            old.cancel()
        when = mm.fill_at(self._queues.get(name, ()), self.settings.bot_fill_after_s)
        if when is None or ranked.is_ranked(name):  # a ranked table waits for players, never for bots
            return
        self._fill_timers[name] = self._clock.call_at(when, lambda: self._spawn(self._fill(name)))

    async def _fill(self, name: str) -> None:
        self._fill_timers.pop(name, None)
        queue = self._queues.get(name)
        if not queue or self.closing:
            return
        when = mm.fill_at(queue, self.settings.bot_fill_after_s)
        if when is not None and when > self._clock.now():
            self._arm_fill(name)
            return
        ruleset = self.rulesets[name]
        group = mm.take(queue, ruleset.seats)
        reserved = self._reserve(group, ruleset, f"queue:{name}", self.settings.timers)
        self._queue_changed(name)
        await self._start(reserved)

    # -- private tables ------------------------------------------------------------------------------

    async def create_private(
        self,
        creator: Account,
        *,
        preset: str = "tenhou",
        rules: Mapping[str, Any] | None = None,
        bots: int = 0,
        bot: str | None = None,
        timers: Mapping[str, int] | None = None,
        spectators: bool = True,
        watch: Mapping[str, Any] | None = None,
        chat: str | None = None,
    ) -> PrivateTable:
        """Open a private table and return its invitation (raises LobbyError). ``chat``: its seated
        players' free text (``on``, ``between_hands``, ``off``), no more than the server's rule for
        private tables allows (None: that rule)."""
        self._check_open()
        require(creator, Scope.CREATE_PRIVATE)
        self._purge_private()
        mine = sum(1 for t in self._private.values() if t.creator_id == creator.id)
        if mine >= self.settings.max_private_per_account:
            raise LobbyError(
                ErrorCode.FORBIDDEN,
                f"you already have {mine} open private tables (at most "
                f"{self.settings.max_private_per_account})",
            )
        base = self.rulesets.get(preset)
        if base is None:
            raise LobbyError(ErrorCode.NOT_FOUND, f"no preset {preset!r}; presets: {sorted(self.rulesets)}")
        try:
            ruleset = base.with_options(**dict(rules)) if rules else base
            table_timers = self.settings.timers.replace(**dict(timers)) if timers else self.settings.timers
        except (RulesError, SettingsError, TypeError, ValueError) as exc:
            raise LobbyError(ErrorCode.MALFORMED, f"bad table options: {exc}") from None
        if not 0 <= bots < ruleset.seats:
            raise LobbyError(ErrorCode.MALFORMED, f"bots must be 0 to {ruleset.seats - 1}, got {bots}")
        bot_name = bot or self.settings.fill_bot
        if bot_name not in BOTS:
            raise LobbyError(ErrorCode.MALFORMED, f"no bot {bot_name!r}; bots: {sorted(BOTS)}")
        chat_mode = self._private_chat(chat)
        code = new_invite_code()
        while code in self._private:
            code = new_invite_code()
        server_policy, w = self.settings.spectate, watch or {}
        try:  # ``watch``: the table's own delays (never shorter than the server's), caster, observers
            spectate = SpectatePolicy(
                delay_steps=server_policy.delay_steps,
                delay_s=max(server_policy.delay_s, float(w.get("delay_s", 0.0))),
                allowed=spectators and server_policy.allowed,
                delay_hands=max(server_policy.delay_hands, int(w.get("delay_hands", 0))),
                caster=bool(w.get("caster", False)),
                observers=tuple(w.get("observers", ())),
            )
        except (SettingsError, TypeError, ValueError) as exc:
            raise LobbyError(ErrorCode.MALFORMED, f"bad spectator options: {exc}") from None
        table = PrivateTable(
            code=code,
            creator_id=creator.id,
            preset=preset,
            ruleset=ruleset,
            bots=bots,
            bot=bot_name,
            timers=table_timers,
            spectate=spectate,
            expires_at=self._clock.now() + self.settings.private_ttl_s,
            chat=chat,
            chat_mode=chat_mode.value,
        )
        self._private[code] = table
        await self._placement.invited(code, self.settings.private_ttl_s)
        log.info("private table %s opened by %s (%s, %d bots)", code, creator.id, preset, bots)
        return table

    def _private_chat(self, chat: str | None) -> FreeText:
        """The free text a private table will have: the creator's ``chat``, checked against the
        server's rule for private tables (LobbyError), or that rule."""
        ceiling = self.private_chat()
        if chat is None:
            return ceiling
        if chat not in TEXT_MODES:
            raise LobbyError(ErrorCode.MALFORMED, f"no chat mode {chat!r}; modes: {', '.join(TEXT_MODES)}")
        if not within(FreeText(chat), ceiling):
            raise LobbyError(
                ErrorCode.FORBIDDEN,
                f"chat {chat!r} allows more than this server's private tables ({ceiling.value!r}); "
                f"choose {' or '.join(m for m in TEXT_MODES if within(FreeText(m), ceiling))}",
            )
        return FreeText(chat)

    async def join_private(self, p: Participant, code: str, request_id: int | None) -> None:
        self._purge_private()
        invite = self._private.get(code.strip().upper())
        try:
            self._check_open()
            if invite is None:
                raise LobbyError(ErrorCode.NOT_FOUND, f"no open private table with code {code!r}")
            require(p.account, Scope.PLAY)
        except LobbyError as exc:
            p.deliver(ErrorOut(exc.code, exc.message, request_id))
            return
        self._forget_waiting(p.account.id)
        invite.waiting.append(mm.new_entry(p, now=self._clock.now()))
        if len(invite.waiting) < invite.humans:
            for w in invite.waiting:
                w.participant.deliver(QueuedOut(invite.preset, len(invite.waiting)))
            return
        del self._private[invite.code]
        reserved = self._reserve(
            invite.waiting,
            invite.ruleset,
            f"private:{invite.code}",
            invite.timers,
            bot=invite.bot,
            spectate=invite.spectate,
            tags={} if invite.chat is None else {"chat": invite.chat},
        )
        await self._start(reserved)

    def _purge_private(self) -> None:
        now = self._clock.now()
        for code, invite in list(self._private.items()):
            if invite.expires_at <= now:
                del self._private[code]
                for w in invite.waiting:
                    w.participant.deliver(ErrorOut(ErrorCode.NOT_FOUND, f"private table {code} expired"))
                    w.participant.deliver(LeftOut(None))

    # -- spectating and resuming ---------------------------------------------------------------------

    async def spectate(
        self, p: Participant, match_id: str, request_id: int | None, *, caster: bool = False
    ) -> TableActor | None:
        table = self.tables.get(match_id)
        try:
            if table is None:
                raise LobbyError(ErrorCode.NOT_FOUND, f"no live match {match_id!r}")
            require(p.account, Scope.SPECTATE)
            policy = table.spectate
            if not policy.allowed:
                raise LobbyError(ErrorCode.FORBIDDEN, f"match {match_id} does not allow spectators")
            if not policy.admits(p.account):
                raise LobbyError(ErrorCode.FORBIDDEN, f"match {match_id} admits only its named observers")
            if caster and not policy.caster:
                raise LobbyError(ErrorCode.FORBIDDEN, f"match {match_id} offers no caster view")
            if table.seat_of_account(p.account.id) is not None:
                raise LobbyError(ErrorCode.FORBIDDEN, f"you play in {match_id}: resume it instead")
        except LobbyError as exc:
            p.deliver(ErrorOut(exc.code, exc.message, request_id))
            return None
        table.submit(Attach(p, None, 0, announce=True, caster=caster))
        return table

    async def resume(
        self, p: Participant, match_id: str, since_version: int, request_id: int | None
    ) -> TableActor | None:
        table = self.tables.get(match_id)
        if table is None:
            p.deliver(ErrorOut(ErrorCode.NOT_FOUND, f"no live match {match_id!r}", request_id))
            return None
        seat = table.seat_of_account(p.account.id)
        if seat is not None and self.factory.is_locked(match_id, seat):
            p.deliver(ErrorOut(ErrorCode.FORBIDDEN, f"seat {seat} of {match_id} is locked", request_id))
            return None
        if seat is None and (
            not table.spectate.allowed
            or not table.spectate.admits(p.account)
            or Scope.SPECTATE not in p.account.scopes
        ):
            p.deliver(ErrorOut(ErrorCode.FORBIDDEN, f"you hold no seat in {match_id}", request_id))
            return None
        table.submit(Attach(p, seat, since_version, announce=False))
        return table

    # -- leaving -------------------------------------------------------------------------------------

    def leave_queue(self, p: Participant) -> bool:
        """Take ``p`` out of any queue or private table it waits for; True if it was waiting."""
        return self._forget_waiting(p.account.id, only=p)

    def forget(self, p: Participant) -> None:
        """The connection is gone: it waits nowhere any more."""
        self._forget_waiting(p.account.id, only=p)

    def _forget_waiting(self, account_id: str, only: Participant | None = None) -> bool:
        def keep(w: Waiting) -> bool:
            if w.participant.account.id != account_id:
                return True
            return only is not None and w.participant is not only

        found = False
        for name, queue in self._queues.items():
            kept = [w for w in queue if keep(w)]
            if len(kept) != len(queue):
                found = True
                queue[:] = kept
                self._queue_changed(name)
        for invite in self._private.values():
            kept = [w for w in invite.waiting if keep(w)]
            if len(kept) != len(invite.waiting):
                found = True
                invite.waiting[:] = kept
        return found

    # -- tables --------------------------------------------------------------------------------------

    def _reserve(
        self,
        humans: list[Waiting],
        ruleset: Ruleset,
        source: str,
        timers: TableTimers,
        *,
        bot: str | None = None,
        spectate: SpectatePolicy | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> Reservation:
        """Seat ``humans`` in a random order (built-in bots in the empty seats) at a new table of
        the factory, registered with their seats; the caller starts it (:meth:`_start`) once
        nothing else is being changed."""
        entries: list[Waiting | None] = [*humans, *([None] * (ruleset.seats - len(humans)))]
        self._rng.shuffle(entries)
        seats = tuple(
            SeatRequest.built_in(bot) if e is None else SeatRequest.player(e.participant.account)
            for e in entries
        )
        spec = TableSpec(
            seats=seats, ruleset=ruleset, source=source, timers=timers, spectate=spectate, tags=tags or {}
        )
        participants = {seat: e.participant for seat, e in enumerate(entries) if e is not None}
        return self.factory.reserve(spec, participants)

    async def _start(self, reserved: Reservation) -> TableActor | None:
        """Start a reserved table; when that fails (the factory undid the reservation), tell its
        players to join again."""
        try:
            return await self.factory.start(reserved)
        except TableBusyError:
            for p in reserved.participants.values():
                p.deliver(ErrorOut(ErrorCode.BUSY_RETRY, "the server could not open a table; join again"))
            return None

    # -- crash recovery ------------------------------------------------------------------------------

    async def recover(self, match_ids: Collection[str] | None = None) -> RecoveryReport:
        """Resume every match the store has as running (call once, before serving); with
        ``match_ids``, only those of them (cluster mode's takeover: the matches whose owner died).

        Each is replayed from its seed through the engine and checked against its stored events
        (:func:`server.hub.recovery.rebuild`). A match whose replay differs is flagged, never
        resumed: marked ``aborted`` with ``status_reason`` ``"diverged: ..."`` and logged as an
        error; one that cannot be replayed at all (no seed stored) is aborted too. The others get a
        table again: the same seats (accounts from the stored seats, built-in bots re-created), the
        timers restarted; their players reconnect and ``resume``.
        """
        report = RecoveryReport()
        for match in await self._running(match_ids):
            if match.id in self.tables or not await self._placement.claim(match.id, new=False):
                continue  # cluster mode: another node owns it
            found = await rebuild_stored(
                self._repo,
                match,
                default_timers=self.settings.timers,
                default_spectate=self.settings.spectate,
            )
            if isinstance(found, RecoveredMatch):
                await self.factory.adopt(found)
                report.resumed.append(match.id)
                continue
            kind, reason = found
            await self._give_up(match, reason)
            (report.diverged if kind == "diverged" else report.unrecoverable).append(match.id)
        if report.resumed or report.diverged or report.unrecoverable:
            log.info(
                "recovery: %d matches resumed, %d diverged (flagged), %d unrecoverable",
                len(report.resumed),
                len(report.diverged),
                len(report.unrecoverable),
            )
        return report

    async def _running(self, match_ids: Collection[str] | None) -> Sequence[MatchRecord]:
        if match_ids is None:
            return await self._repo.unfinished_matches()
        found = [await self._repo.get_match(m) for m in sorted(match_ids) if m not in self.tables]
        return [m for m in found if m is not None and m.status is MatchStatus.RUNNING]

    async def _give_up(self, match: MatchRecord, reason: str) -> None:
        await self._repo.finish_match(match.id, MatchStatus.ABORTED, self._wall(), None, reason)
        self._placement.released(match.id, finished=True)

    def _check_open(self) -> None:
        if self.closing:
            raise LobbyError(ErrorCode.BUSY_RETRY, "the server is shutting down; try again shortly")

    def _spawn(self, coro: Coroutine[Any, Any, object]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def settle(self) -> None:
        """Wait for the lobby's background work (bot fill-ins) and every table to settle (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks))
        for table in list(self.tables.values()):
            await table.settle()

    async def shutdown(self) -> None:
        """Refuse new joins and stop every table after the message it is handling."""
        self.closing = True
        for timer in self._fill_timers.values():
            timer.cancel()
        self._fill_timers.clear()
        if self.stragglers is not None:
            self.stragglers.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*(t.stop() for t in list(self.tables.values())), return_exceptions=True)
