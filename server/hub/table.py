"""One actor per match: :class:`TableActor` owns the match state and changes it, alone, through ONE
inbox (client actions, joins, resumes, leaves, deadline ticks, pauses).

What one applied action goes through (``_apply``)::

    engine.apply (pure; state untouched on error)
      -> Ledger.step(...)                COMMIT, awaited; on failure: busy_retry, nothing adopted
      -> adopt the new state; ack the actor
      -> publish the events, redacted per receiver by server.engine.views.redact (the only redaction)
      -> prompt the seats that must decide; arm their deadlines

The actor is the inbox and the order of things; each of its collaborators owns one concern:

* :class:`~server.hub.inbox.Mailbox`: the inbox itself (the queue, closing it, the barriers);
* :class:`~server.hub.decisions.Decisions`: who must decide, since which step, with what time; the
  answers already applied; the one check of whether an act may be applied; the prompts; the answer
  the table gives when a seat's time is up (:class:`~server.hub.botturns.BotTurns`);
* :class:`~server.hub.ledger.Ledger`: what is stored, and when (the match, the deal, each step, the
  result, the final status), through :class:`~server.hub.commits.Commits` (store calls with a
  timeout, the write whose outcome is unknown and its reconciliation, the retry pause);
* :class:`~server.hub.audience.Audience`: who follows the table and what each is sent (the seats'
  connections and the spectators, :class:`~server.hub.seating.Seating`; when they see what was
  committed, :class:`~server.hub.pacing.Pacing`; their catch-ups,
  :class:`~server.hub.catchups.Catchups`; prompts, pause notices, the outcome);
* :class:`~server.hub.wakeup.Wakeup`: the next deadline on the one timer (a :class:`Tick` in the
  inbox when due), what came due, retiring, and pausing (the clocks stop).

Made of a :class:`~server.hub.tablesetup.TableSetup` (what it plays) and a
:class:`~server.hub.tablesetup.TableDeps` (what it runs on) by the table factory
(:mod:`server.hub.tables`); every deadline is on an injectable :class:`~server.hub.clock.Clock`.
Nothing a participant sends can change the state unless the engine accepts it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from client_protocol.errors import ErrorCode
from client_protocol.messages import MatchEndReason
from server.domain.errors import FencedError
from server.domain.records import AccountKind, MatchStatus, StepRecord
from server.engine import MatchState, Transition, new_match
from server.engine import apply as engine_apply
from server.engine.actions import Action
from server.engine.errors import RulesError
from server.engine.events import Event, MatchEnded, RoundStarted
from server.engine.rules import Ruleset
from server.hub.audience import Audience
from server.hub.botturns import BotTurns
from server.hub.catchups import Catchups
from server.hub.chatroom import ChatRoom
from server.hub.commits import Commits
from server.hub.decisions import Decisions
from server.hub.inbox import (
    ActRequest,
    Attach,
    Barrier,
    CommitError,
    Detach,
    InboxItem,
    Mailbox,
    Pause,
    SeatSpec,
    Stop,
    Tick,
)
from server.hub.ledger import Ledger
from server.hub.outputs import AckOut, ErrorOut, MatchEndOut, Participant, ResultOut, TablePlayerInfo
from server.hub.pacing import Pacing
from server.hub.seating import Seating, left_seats
from server.hub.settings import SpectatePolicy, TableTimers
from server.hub.steplog import Rendered
from server.hub.tablesetup import TableDeps, TableSetup
from server.hub.wakeup import Due, Wakeup

log = logging.getLogger(__name__)


class TableActor:
    """The authoritative table of one match (see the module docstring)."""

    def __init__(
        self,
        setup: TableSetup,
        deps: TableDeps,
        *,
        on_end: Callable[[TableActor], None] | None = None,
        on_retire: Callable[[TableActor], None] | None = None,
    ) -> None:
        seats = tuple(setup.seats)
        if len(seats) != setup.ruleset.seats:
            raise ValueError(f"a table of this ruleset needs {setup.ruleset.seats} seats, got {len(seats)}")
        self.setup = setup
        self.match_id = match_id = setup.match_id
        self._deps = deps
        self._on_end = on_end
        self._on_retire = on_retire
        self.state: MatchState | None = None
        self.resumed = False  # rebuilt from the store after a restart
        self.ended = asyncio.Event()  # set when the match is over (completed or aborted)
        self._inbox = inbox = Mailbox()
        self._task: asyncio.Task[None] | None = None

        table_log = logging.LoggerAdapter(log, {"match_id": match_id})  # JSON logs: a match_id field
        # Human seats read each hand's result: the next hand waits timers.hand_pause_ms for them.
        paced = any(s.kind in (AccountKind.GUEST, AccountKind.PLAYER) for s in seats)
        pacing = Pacing(match_id, setup.timers, setup.spectate, paced=paced)
        commits = Commits(
            match_id,
            deps.repo,
            deps.clock,
            timeout_s=deps.commit_timeout_s,
            retry_s=deps.commit_retry_s,
            log=table_log,
            metrics=deps.metrics,
        )
        seating = Seating(pacing.feed, len(seats), hold=setup.hold_reveals)
        turns = BotTurns(match_id, seats, table_log)
        self._decisions = decisions = Decisions(setup.timers, seating, turns=turns)
        self._ledger = Ledger(setup, commits, decisions.time, deps.wall_clock)
        ring = functools.partial(inbox.put, Tick())  # the timer puts a Tick in the inbox
        self._wakeup = wakeup = Wakeup(deps.clock, ring, pacing, commits, decisions)
        catchups = Catchups(match_id, deps.repo, inbox.put, table_log, timeout_s=2 * deps.commit_timeout_s)
        self._audience = Audience(
            match_id,
            seats,
            pacing=pacing,
            seating=seating,
            catchups=catchups,
            decisions=decisions,
            wakeup=wakeup,
        )

    # -- public API ----------------------------------------------------------------------------------

    @property
    def ruleset(self) -> Ruleset:
        return self.setup.ruleset

    @property
    def seats(self) -> Sequence[SeatSpec]:
        return self.setup.seats

    def give_seat(self, seat: int, spec: SeatSpec) -> None:
        """``seat`` belongs to ``spec`` from now on (a substitute: docs/tournaments.md)."""
        seats = tuple(spec if i == seat else s for i, s in enumerate(self.setup.seats))
        self.setup = dataclasses.replace(self.setup, seats=seats)
        self._audience.reseat(seats)

    @property
    def timers(self) -> TableTimers:
        return self.setup.timers

    @property
    def spectate(self) -> SpectatePolicy:
        return self.setup.spectate

    @property
    def source(self) -> str:
        """How the table was made (stored with the match)."""
        return self.setup.source

    @property
    def players(self) -> tuple[TablePlayerInfo, ...]:
        return self._audience.players

    @property
    def outcome(self) -> MatchEndOut | None:
        """How the match ended (None while it runs)."""
        return self._audience.outcome

    @property
    def finished(self) -> bool:
        return self._audience.outcome is not None

    @property
    def version(self) -> int:
        """The last event version published to the seats."""
        return self._audience.pacing.stream.published

    @property
    def paused(self) -> bool:
        """Its clocks are stopped (the table factory's ``pause``)."""
        return self._wakeup.paused_at is not None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def shown_to_spectators(self) -> tuple[int, RoundStarted | None]:
        """How many watch, and the latest hand start a spectator joining now would be shown (the live
        tables list)."""
        return self._audience.shown_to_spectators(self._deps.clock.now())

    def overlay(self) -> dict[str, Any]:
        """The stream overlay (:mod:`server.hub.overlay`): what the spectator delay has released."""
        pacing = self._audience.pacing
        return pacing.feed.overlay_view(pacing.stream, [p.name for p in self.players])

    def last_request_id(self, seat: int) -> int | None:
        """The highest request id of ``seat``'s acts applied in this match (None: none)."""
        return self._decisions.last_request_id(seat)

    def chat_room(self) -> ChatRoom:
        """Who hears chat here now, and whether a hand is live (read only: :mod:`server.hub.chatroom`)."""
        return self._audience.chat_room(self.setup.source)

    def seat_of_account(self, account_id: str) -> int | None:
        return next((i for i, s in enumerate(self.setup.seats) if s.account_id == account_id), None)

    async def history(self) -> tuple[Event, ...]:
        """The omniscient events so far, the forgotten ones read from the store (tests and tools)."""
        return await self._audience.catchups.everything(self._audience.pacing.stream)

    def submit(self, item: InboxItem) -> None:
        """Put a message in the inbox (never blocks)."""
        self._inbox.put(item)

    async def settle(self) -> None:
        """Wait until everything submitted so far is handled and nothing is due now."""
        while self.running:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.submit(Barrier(future))
            await future
            if not await self._audience.catchups.wait():  # a catch-up's store read comes back to the inbox
                return

    async def stop(self, *, abort: bool = False, why: str | None = None) -> None:
        """Stop the actor; ``abort``: end the match first (aborted, stored with ``why``)."""
        if self.running:
            self.submit(Stop(abort=abort, why=why))
            assert self._task is not None
            await asyncio.shield(self._task)

    async def start(self, participants: dict[int, Participant]) -> None:
        """Deal, store the match and its first step, seat ``participants`` and start the actor.

        Raises (and starts nothing) when the store refuses the match.
        """
        setup = self.setup
        t = new_match(setup.ruleset, setup.seed, walls_=setup.walls, start=setup.hand_start())
        await self._ledger.open(t)
        await self._adopt(t, actor=None)
        now = self._deps.clock.now()
        for seat, participant in participants.items():
            self._audience.attach(Attach(participant, seat, 0, announce=True), self.state, now)
        self._task = asyncio.create_task(self._run(), name=f"table-{self.match_id}")
        self.submit(Tick())  # the first decision may be a bot's, due at once

    async def resume(
        self, transitions: Sequence[Transition], steps: Sequence[StepRecord], *, paused: str | None = None
    ) -> None:
        """Adopt a match rebuilt from its stored log after a restart (crash recovery) and start the
        actor; nobody is attached (players come back with ``resume``).

        ``transitions`` are the engine's replay of ``steps``, already checked against them
        (:func:`server.hub.recovery.replay_log`); an empty log (the server stopped right after
        storing the match) gets its deal stored first. Every stored event counts as seen; then
        whoever must decide is prompted with the full action time and the banks stored with the
        last step (the down time is charged to nobody); a seat whose last stored step was played as
        ``left`` is left again (played at once). A request id stored with a step is
        remembered: a client re-sending it after reconnecting gets its ``ack`` (``duplicate``).
        ``paused``: the table was paused (its stored reason): it starts paused, before anything is
        due. Raises when the store refuses the deal.
        """
        if not transitions:
            raise ValueError("nothing to resume")
        self.resumed = True
        if not steps:
            await self._ledger.deal(transitions[0])
        self._decisions.time.restore(next((s.banks for s in reversed(steps) if s.banks is not None), None))
        self._audience.seating.restore_left(left_seats(steps))  # "left" is kept in the stored sources
        for i, t in enumerate(transitions):
            record = steps[i] if i < len(steps) else None
            if record is None:
                await self._adopt(t, actor=None, replaying=True)
            else:
                await self._adopt(t, actor=record.seat, request_id=record.request_id, replaying=True)
        self._task = asyncio.create_task(self._run(), name=f"table-{self.match_id}")
        if paused is not None:  # handled before anything falls due: nobody moves meanwhile
            self.submit(Pause(True, paused, asyncio.get_running_loop().create_future()))
        self.submit(Tick())  # the first decision may be a bot's, due at once

    # -- the actor loop ------------------------------------------------------------------------------

    async def _run(self) -> None:
        inbox, wakeup, clock = self._inbox, self._wakeup, self._deps.clock
        try:
            while not inbox.closed:
                await self._handle(await inbox.get())
                await self._work()
                when = wakeup.next_deadline(self.finished)
                if inbox.waiting and (when is None or when > clock.now()):
                    inbox.idle()
                wakeup.set(None if inbox.closed else when)
        except asyncio.CancelledError:
            raise
        except FencedError as exc:
            # Cluster mode: another node owns the match now (docs/scaling.md). Stop at once, writing
            # nothing (not even an abort); the seats are told to resume, which reaches the new owner.
            inbox.closed = True
            log.warning("table %s dropped: %s", self.match_id, exc, extra={"match_id": self.match_id})
            moved = f"match {self.match_id} moved to another server node; resume it"
            self._audience.dismiss(ErrorOut(ErrorCode.BUSY_RETRY, moved))
        except Exception as exc:
            log.exception(
                "table %s failed; the match is aborted", self.match_id, extra={"match_id": self.match_id}
            )
            await self._crash(exc)
        finally:
            wakeup.cancel()
            self._audience.catchups.cancel_all()
            inbox.drain()
            if self._on_retire is not None:
                self._on_retire(self)

    async def _handle(self, item: InboxItem) -> None:
        match item:
            case ActRequest():
                await self._handle_act(item)
            case Attach():
                self._audience.attach(item, self.state, self._deps.clock.now())
            case Detach():
                self._audience.detach(item)
            case Tick():
                pass  # _work() looks at what is due
            case Barrier(future=future):
                self._inbox.wait_idle(future)
            case Stop(abort=abort, why=why):
                if abort and not self.finished:
                    await self._end(MatchEndReason.ABORTED, None, MatchStatus.ABORTED, why=why)
                self._inbox.closed = True
            case Pause():
                self._audience.pause(item, self.state, self._deps.clock.now())

    async def _work(self) -> None:
        """Do what came due (:meth:`Wakeup.due`), one thing at a time, yielding between them (other
        tables run too)."""
        inbox, clock = self._inbox, self._deps.clock
        while not inbox.closed and inbox.empty():
            now = clock.now()
            due = self._wakeup.due(now, finished=self.finished)
            if due is None:
                return
            if due is Due.RETIRE:
                inbox.closed = True
            elif due is Due.HOLD_OVER:
                await self._show(self._audience.pacing.release(now), now)
            elif isinstance(due, int):
                await self._act_for(due)
            await asyncio.sleep(0)

    async def _act_for(self, seat: int) -> None:
        """A bot's answer, or the default action of a seat whose time ran out (or that is gone)."""
        try:
            if self._ledger.commits.uncertain is not None:
                await self._reconcile()
                if seat not in self._decisions.prompts:
                    return
            assert self.state is not None
            step, action, source = self._decisions.answer_for(self.state, seat)
            await self._apply(seat, action, source=source)
            if source in ("disconnected", "left"):  # absent from now on: played at once until back
                self._audience.seating.played_for(seat, step, action)
            if source != "bot" and self._deps.metrics is not None:
                self._deps.metrics.timeouts.inc()
        except CommitError as exc:
            self._ledger.commits.stall(exc)

    # -- actions -------------------------------------------------------------------------------------

    async def _handle_act(self, req: ActRequest) -> None:
        """The one check of who may act (a seated connection, on its own open decision, with a legal
        action; :meth:`Decisions.refusal`), then apply; a request id applied before is acked again."""
        received = time.perf_counter()
        seat = self._audience.seat_of(req)  # None: refused, or held behind its resume's catch-up
        if seat is None:
            return
        p, rid, decisions = req.participant, req.request_id, self._decisions
        answered = decisions.answered(seat, rid)
        if answered is not None:
            p.deliver(AckOut(rid, answered, True))
            return
        if self._wakeup.paused_at is not None:
            p.deliver(ErrorOut(ErrorCode.BUSY_RETRY, "the table is paused; act again once it goes on", rid))
            return
        if self._ledger.commits.uncertain is not None and not self.finished:
            try:
                await self._reconcile()
            except CommitError as exc:
                p.deliver(ErrorOut(ErrorCode.BUSY_RETRY, f"the table cannot store moves now ({exc})", rid))
                return
            answered = decisions.answered(seat, rid)
            if answered is not None:
                p.deliver(AckOut(rid, answered, True))
                return
        refusal = decisions.refusal(seat, req.step, req.action)
        if refusal is not None:
            p.deliver(ErrorOut(refusal[0], refusal[1], rid))
            return
        try:
            await self._apply(seat, req.action, reply_to=p, request_id=rid)
            if self._deps.metrics is not None:
                self._deps.metrics.action_latency.observe(time.perf_counter() - received)
        except CommitError as exc:
            p.deliver(ErrorOut(ErrorCode.BUSY_RETRY, f"the move was not stored ({exc}); send it again", rid))
        except RulesError as exc:  # legal by the prompt but refused by the engine: a bug, state untouched
            log.error(
                "table %s: engine refused a prompted action: %s",
                self.match_id,
                exc,
                extra={"match_id": self.match_id},
            )
            p.deliver(ErrorOut(ErrorCode.ILLEGAL_ACTION, str(exc), rid))

    async def _apply(
        self,
        seat: int,
        action: Action,
        *,
        reply_to: Participant | None = None,
        request_id: int | None = None,
        source: str = "player",
    ) -> None:
        """Apply, COMMIT, then adopt and broadcast. Raises CommitError (nothing adopted).

        ``source`` (who decided: ``STEP_SOURCES``) is stored with the step, and the banks as they
        are once the seat's time is charged (at ``now``, before the commit's wait)."""
        assert self.state is not None
        t = engine_apply(self.state, seat, action)  # raises RulesError; the state is untouched
        now = self._deps.clock.now()
        prompt = self._decisions.prompts.get(seat)
        out = await self._ledger.step(
            t, seat, action, request_id=request_id, source=source, prompt=prompt, now=now
        )
        await self._adopt(t, actor=seat, request_id=request_id, reply_to=reply_to, acted_at=now, rendered=out)
        if self._deps.metrics is not None:
            self._deps.metrics.count_action(source)

    async def _reconcile(self) -> None:
        """After a write whose outcome is unknown: adopt it if it landed, forget it if not."""
        assert self.state is not None
        landed = await self._ledger.commits.reconcile(self.state.step + 1)
        if landed is not None:
            record, action = landed
            assert record.seat is not None
            t = engine_apply(self.state, record.seat, action)
            await self._adopt(t, actor=record.seat, request_id=record.request_id)

    # -- adopting a committed transition ------------------------------------------------------------

    async def _adopt(
        self,
        t: Transition,
        *,
        actor: int | None,
        request_id: int | None = None,
        reply_to: Participant | None = None,
        replaying: bool = False,
        acted_at: float | None = None,
        rendered: Rendered | None = None,
    ) -> None:
        """``t`` is stored: make it the state, ack the request (to ``reply_to``), publish what
        pacing allows, prompt the seats that must decide. The actor's time is charged up to
        ``acted_at`` (when its answer was applied; default now)."""
        now = self._deps.clock.now()
        pacing = self._audience.pacing
        version = len(pacing.stream) + len(t.events)  # a public count: the decisions' numbers
        charged_at = now if acted_at is None else acted_at
        answered = self._decisions.advance(
            t, actor=actor, request_id=request_id, now=charged_at, version=version
        )
        self.state = t.state
        upto = pacing.committed(t, now, replaying=replaying, rendered=rendered)
        if reply_to is not None and request_id is not None and answered is not None:
            reply_to.deliver(AckOut(request_id, answered, False))
        await self._show(upto, now)

    async def _show(self, upto: int, now: float) -> None:
        """Publish up to version ``upto``; once the seats have seen everything, prompt who must
        decide, or finish the match (its result stored first)."""
        audience = self._audience
        audience.publish(upto, now)
        if not audience.pacing.stream.all_published:
            return
        assert self.state is not None
        audience.prompt_pending(self.state, self._deps.clock.now())
        if self.state.finished:
            last = audience.pacing.stream.last()
            assert isinstance(last, MatchEnded), last
            result = await self._ledger.result(last)
            await self._end(MatchEndReason.COMPLETED, result, MatchStatus.COMPLETED, seed_hex=last.seed)

    # -- the end -------------------------------------------------------------------------------------

    async def _end(
        self,
        reason: MatchEndReason,
        result: ResultOut | None,
        status: MatchStatus,
        *,
        seed_hex: str | None = None,
        why: str | None = None,
    ) -> None:
        """The match is over: the status is stored first, then everyone gets ``match_end``."""
        self._audience.close(MatchEndOut(self.match_id, reason, result))
        await self._ledger.close(status, seed_hex, why)
        clock = self._deps.clock
        self._audience.finish(clock.now(), reveal=reason is MatchEndReason.COMPLETED)
        self._wakeup.retire_at = clock.now() + self._deps.retention_s
        self.ended.set()
        if self._on_end is not None:
            self._on_end(self)

    async def _crash(self, exc: Exception) -> None:
        """The actor failed: tell everyone, record the abort, stop."""
        self._inbox.closed = True
        if self.finished:
            return
        self._audience.seating.broadcast(
            ErrorOut(ErrorCode.INTERNAL, f"table {self.match_id} failed; the match is aborted")
        )
        try:
            why = f"table failed: {type(exc).__name__}: {exc}"[:500]
            await self._end(MatchEndReason.ABORTED, None, MatchStatus.ABORTED, why=why)
        except Exception:
            log.exception("table %s: failed while aborting", self.match_id, extra={"match_id": self.match_id})
