"""One actor per match: :class:`TableActor` owns the match state and changes it, alone, through ONE
inbox (client actions, joins, resumes, leaves, deadline ticks).

What one applied action goes through (``_apply``)::

    engine.apply (pure; state untouched on error)
      -> repo.append_step(...)           COMMIT, awaited; on failure: busy_retry, nothing adopted
      -> adopt the new state; ack the actor
      -> publish the events, redacted per receiver by server.engine.views.redact (the only redaction)
      -> prompt the seats that must decide; arm their deadlines

The actor keeps the inbox and the order of things; its collaborators own the rest:

* :class:`~server.hub.decisions.Decisions`: who must decide, since which step, with what time; the
  answers already applied; the one check of whether an act may be applied; the prompts;
* :class:`~server.hub.pacing.Pacing`: when the seats and the spectators see what was committed
  (the minimum call window, the hand pause, the spectators' delay);
* :class:`~server.hub.commits.Commits`: store calls with a timeout, the write whose outcome is
  unknown and its reconciliation, the retry pause;
* :class:`~server.hub.botturns.BotTurns`: the answer of a built-in bot, or the default when a
  player's time ran out;
* :class:`~server.hub.seating.Seating`: which connection holds each seat, and the spectators;
* :class:`~server.hub.catchups.Catchups`: catch-ups that need versions the table forgot;
* :class:`~server.hub.wakeup.Wakeup`: the next deadline on the one timer (a :class:`Tick` in the
  inbox when due), retiring, and pausing (the clocks stop).

Made of a :class:`~server.hub.tablesetup.TableSetup` (what it plays) and a
:class:`~server.hub.tablesetup.TableDeps` (what it runs on) by the table factory
(:mod:`server.hub.tables`); every deadline is on an injectable :class:`~server.hub.clock.Clock`.
Nothing a participant sends can change the state unless the engine accepts it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable, Sequence

from client_protocol.errors import ErrorCode
from client_protocol.messages import MatchEndReason
from server.domain.errors import FencedError
from server.domain.records import AccountKind, MatchStatus, RecoveryRecord, ResultRecord, StepRecord
from server.engine import MatchState, Transition, new_match, pending_seats
from server.engine import apply as engine_apply
from server.engine.actions import Action
from server.engine.errors import RulesError
from server.engine.events import Event, MatchEnded, RoundStarted
from server.hub.botturns import BotTurns
from server.hub.catchups import Catchups
from server.hub.chatroom import ChatRoom
from server.hub.commits import Commits
from server.hub.decisions import Decisions
from server.hub.inbox import ActRequest, Attach, Barrier, CommitError, Detach, InboxItem, Pause, Stop, Tick
from server.hub.outputs import (
    AckOut,
    CatchupOut,
    ErrorOut,
    LeftOut,
    MatchEndOut,
    Participant,
    PlayedForOut,
    PromptOut,
    ResultOut,
    SeatedOut,
    TablePlayerInfo,
)
from server.hub.pacing import Pacing
from server.hub.seating import Seating, left_seats
from server.hub.steplog import (
    Rendered,
    deal_record,
    match_record,
    render_events,
    step_record,
)
from server.hub.tablesetup import TableDeps, TableSetup
from server.hub.wakeup import Wakeup

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
        self.ruleset = setup.ruleset
        self.seats = seats
        self.timers = timers = setup.timers
        self.spectate = spectate = setup.spectate
        self.source = setup.source
        self._deps = deps
        self._clock = clock = deps.clock
        self._metrics = deps.metrics
        self._on_end = on_end
        self._on_retire = on_retire
        self._log = logging.LoggerAdapter(log, {"match_id": match_id})  # JSON logs: a match_id field

        # Human seats read each hand's result: the next hand waits timers.hand_pause_ms for them.
        paced = any(s.kind in (AccountKind.GUEST, AccountKind.PLAYER) for s in seats)
        self._pacing = Pacing(match_id, timers, spectate, paced=paced)
        self._commits = Commits(
            match_id,
            deps.repo,
            clock,
            timeout_s=deps.commit_timeout_s,
            retry_s=deps.commit_retry_s,
            log=self._log,
            metrics=deps.metrics,
        )
        self._turns = BotTurns(match_id, seats, self._log)
        self._seating = Seating(self._pacing.feed, len(seats), hold=setup.hold_reveals)
        self._decisions = Decisions(timers, self._seating, bots=self._turns.bot_seats)

        self.state: MatchState | None = None
        self.finished = False
        self.resumed = False  # rebuilt from the store after a restart
        self.outcome: MatchEndOut | None = None
        self.ended = asyncio.Event()  # set when the match is over (completed or aborted)
        self._stopped = False
        self._inbox: asyncio.Queue[InboxItem] = asyncio.Queue()
        self._barriers: list[asyncio.Future[None]] = []
        ring = functools.partial(self._inbox.put_nowait, Tick())  # the timer puts a Tick in the inbox
        self._wakeup = Wakeup(clock, ring, self._pacing, self._commits, self._decisions)
        self._task: asyncio.Task[None] | None = None
        self._catchups = Catchups(
            match_id, deps.repo, self.submit, self._log, timeout_s=2 * deps.commit_timeout_s
        )

    # -- public API ----------------------------------------------------------------------------------

    @property
    def players(self) -> tuple[TablePlayerInfo, ...]:
        return tuple(TablePlayerInfo(s.name, s.kind) for s in self.seats)

    @property
    def version(self) -> int:
        """The last event version published to the seats."""
        return self._pacing.stream.published

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
        feed = self._pacing.feed
        return len(feed.members), feed.latest_round(self._pacing.stream, self._clock.now())

    def last_request_id(self, seat: int) -> int | None:
        """The highest request id of ``seat``'s acts applied in this match (None: none)."""
        return self._decisions.last_request_id(seat)

    def chat_room(self) -> ChatRoom:
        """Who hears chat here now, and whether a hand is live (read only: :mod:`server.hub.chatroom`)."""
        return ChatRoom.of(self.match_id, self.source, self._seating, self._pacing.stream, self.finished)

    def seat_of_account(self, account_id: str) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.account_id == account_id), None)

    async def history(self) -> tuple[Event, ...]:
        """The omniscient events so far, the forgotten ones read from the store (tests and tools)."""
        return await self._catchups.everything(self._pacing.stream)

    def submit(self, item: InboxItem) -> None:
        """Put a message in the inbox (never blocks)."""
        self._inbox.put_nowait(item)

    async def settle(self) -> None:
        """Wait until everything submitted so far is handled and nothing is due now."""
        while self.running:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.submit(Barrier(future))
            await future
            if not await self._catchups.wait():  # a catch-up reading the store comes back to the inbox
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
        t = new_match(self.ruleset, setup.seed, walls_=setup.walls, start=setup.hand_start())
        created = self._deps.wall_clock()
        match = match_record(
            self.match_id, self.ruleset, setup.seed, self.seats, created_at=created, source=self.source
        )
        # The seed is stored (secret until the end) so that a restarted server can replay the match;
        # a match dealt from injected walls (tests) cannot be replayed from its seed.
        settings = setup.stored_settings()
        recovery = RecoveryRecord(self.match_id, setup.seed.hex(), settings) if setup.walls is None else None
        commits = self._commits
        await commits.call(commits.repo.create_match(match, recovery))
        await commits.call(commits.repo.append_step(self._deal_record(t)))
        await self._adopt(t, actor=None)
        for seat, participant in participants.items():
            self._attach(Attach(participant, seat, 0, announce=True))
        self._task = asyncio.create_task(self._run(), name=f"table-{self.match_id}")
        self.submit(Tick())  # the first decision may be a bot's, due at once

    async def resume(self, transitions: Sequence[Transition], steps: Sequence[StepRecord]) -> None:
        """Adopt a match rebuilt from its stored log after a restart (crash recovery) and start the
        actor; nobody is attached (players come back with ``resume``).

        ``transitions`` are the engine's replay of ``steps``, already checked against them
        (:func:`server.hub.recovery.replay_log`); an empty log (the server stopped right after
        storing the match) gets its deal stored first. Every stored event counts as seen; then
        whoever must decide is prompted with the full action time and the banks stored with the
        last step (the down time is charged to nobody); a seat whose last stored step was played as
        ``left`` is left again (played at once). A request id stored with a step is
        remembered: a client re-sending it after reconnecting gets its ``ack`` (``duplicate``).
        Raises when the store refuses the deal.
        """
        if not transitions:
            raise ValueError("nothing to resume")
        self.resumed = True
        if not steps:
            await self._commits.call(self._commits.repo.append_step(self._deal_record(transitions[0])))
        self._decisions.time.restore(next((s.banks for s in reversed(steps) if s.banks is not None), None))
        self._seating.restore_left(left_seats(steps))  # "left" is kept in the stored sources
        for i, t in enumerate(transitions):
            record = steps[i] if i < len(steps) else None
            if record is None:
                await self._adopt(t, actor=None, replaying=True)
            else:
                await self._adopt(t, actor=record.seat, request_id=record.request_id, replaying=True)
        self._task = asyncio.create_task(self._run(), name=f"table-{self.match_id}")
        self.submit(Tick())  # the first decision may be a bot's, due at once

    def _deal_record(self, t: Transition) -> StepRecord:
        banks = self._decisions.time.stored_banks(None, None, 0.0)
        return deal_record(self.match_id, t, applied_at=self._deps.wall_clock(), banks=banks)

    # -- the actor loop ------------------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while not self._stopped:
                item = await self._inbox.get()
                await self._handle(item)
                await self._work()
                when = self._wakeup.next_deadline(self.finished)
                if self._barriers and (when is None or when > self._clock.now()):
                    self._resolve_barriers()
                self._wakeup.set(None if self._stopped else when)
        except asyncio.CancelledError:
            raise
        except FencedError as exc:
            self._fenced(exc)
        except Exception as exc:
            self._log.exception("table %s failed; the match is aborted", self.match_id)
            await self._crash(exc)
        finally:
            self._wakeup.cancel()
            self._catchups.cancel_all()
            while not self._inbox.empty():
                leftover = self._inbox.get_nowait()
                if isinstance(leftover, Barrier):
                    self._barriers.append(leftover.future)
            self._resolve_barriers()
            if self._on_retire is not None:
                self._on_retire(self)

    async def _handle(self, item: InboxItem) -> None:
        match item:
            case ActRequest():
                await self._handle_act(item)
            case Attach():
                self._attach(item)
            case Detach():
                self._detach(item)
            case Tick():
                pass  # _work() looks at what is due
            case Barrier(future=future):
                self._barriers.append(future)
            case Stop(abort=abort, why=why):
                if abort and not self.finished:
                    await self._end(MatchEndReason.ABORTED, None, MatchStatus.ABORTED, why=why)
                self._stopped = True
            case Pause():
                self._pause(item)

    async def _work(self) -> None:
        """Do what came due, one step at a time, yielding between steps (other tables run too)."""
        while not self._stopped and self._inbox.empty():
            if not await self._fire_due():
                return
            await asyncio.sleep(0)

    def _resolve_barriers(self) -> None:
        barriers, self._barriers = self._barriers, []
        for future in barriers:
            if not future.done():
                future.set_result(None)

    # -- deadlines -----------------------------------------------------------------------------------

    async def _fire_due(self) -> bool:
        """Handle one thing that is due; False when nothing is."""
        now = self._clock.now()
        wakeup = self._wakeup
        if wakeup.retire_at is not None and now >= wakeup.retire_at:
            self._stopped = True
            return True
        if self.finished or wakeup.paused_at is not None:
            return False
        pacing = self._pacing
        if pacing.hold_due(now):
            self._publish(pacing.release(now), now)
            await self._after_publish()
            return True
        if pacing.release_to_spectators(now):
            return True
        if self._commits.stalled(now):
            return False
        seat = self._decisions.due(now)
        if seat is None:
            return False
        await self._act_for(seat)
        return True

    async def _act_for(self, seat: int) -> None:
        """A bot's answer, or the default action of a seat whose time ran out (or that is gone)."""
        try:
            if self._commits.uncertain is not None:
                await self._reconcile()
                if seat not in self._decisions.prompts:
                    return
            assert self.state is not None
            prompt = self._decisions.prompts[seat]
            action, source = self._turns.choose(
                self.state, seat, prompt.legal, presence=self._seating.presence(seat)
            )
            await self._apply(seat, action, source=source)
            if source in ("disconnected", "left"):  # absent from now on: played at once until back
                self._seating.played_for(seat, prompt.step, action)
            if source != "bot" and self._metrics is not None:
                self._metrics.timeouts.inc()
        except CommitError as exc:
            self._commits.stall(exc)

    # -- actions -------------------------------------------------------------------------------------

    async def _handle_act(self, req: ActRequest) -> None:
        """The one check of who may act (a seated connection, on its own open decision, with a legal
        action; :meth:`Decisions.refusal`), then apply; a request id applied before is acked again."""
        received = time.perf_counter()
        p, rid = req.participant, req.request_id
        seat = self._seating.seat_of(p)
        if seat is None:
            if not self._catchups.hold(p, req):  # kept if it came behind its resume's catch-up read
                p.deliver(ErrorOut(ErrorCode.FORBIDDEN, self._seating.why_not_seated(p, self.match_id), rid))
            return
        decisions = self._decisions
        answered = decisions.answered(seat, rid)
        if answered is not None:
            p.deliver(AckOut(rid, answered, True))
            return
        if self._wakeup.paused_at is not None:
            p.deliver(ErrorOut(ErrorCode.BUSY_RETRY, "the table is paused; act again once it goes on", rid))
            return
        if self._commits.uncertain is not None and not self.finished:
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
            if self._metrics is not None:
                self._metrics.action_latency.observe(time.perf_counter() - received)
        except CommitError as exc:
            p.deliver(ErrorOut(ErrorCode.BUSY_RETRY, f"the move was not stored ({exc}); send it again", rid))
        except RulesError as exc:  # legal by the prompt but refused by the engine: a bug, state untouched
            self._log.error("table %s: engine refused a prompted action: %s", self.match_id, exc)
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
        now = self._clock.now()
        banks = self._decisions.time.stored_banks(seat, self._decisions.prompts.get(seat), now)
        record = step_record(
            self.match_id,
            t,
            seat=seat,
            action=action,
            request_id=request_id,
            applied_at=self._deps.wall_clock(),
            source=source,
            banks=banks,
            rendered=(out := render_events(t.events)),  # once: the log's and the seats' who see them whole
        )
        await self._commits.append(record, action)
        await self._adopt(t, actor=seat, request_id=request_id, reply_to=reply_to, acted_at=now, rendered=out)
        if self._metrics is not None:
            self._metrics.count_action(source)

    async def _reconcile(self) -> None:
        """After a write whose outcome is unknown: adopt it if it landed, forget it if not."""
        assert self.state is not None
        landed = await self._commits.reconcile(self.state.step + 1)
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
        now = self._clock.now()
        version = len(self._pacing.stream) + len(t.events)  # a public count: the decisions' numbers
        charged_at = now if acted_at is None else acted_at
        answered = self._decisions.advance(
            t, actor=actor, request_id=request_id, now=charged_at, version=version
        )
        self.state = t.state
        upto = self._pacing.committed(t, now, replaying=replaying, rendered=rendered)
        if reply_to is not None and request_id is not None and answered is not None:
            reply_to.deliver(AckOut(request_id, answered, False))
        self._publish(upto, now)
        await self._after_publish()

    async def _after_publish(self) -> None:
        """Once the seats have seen everything: prompt who must decide, or finish the match."""
        if not self._pacing.stream.all_published:
            return
        self._issue_prompts()
        assert self.state is not None
        if self.state.finished:
            await self._finish()

    def _publish(self, upto: int, now: float) -> None:
        """Send the events up to version ``upto`` to the connected seats, each redacted for its seat."""
        assert self.state is not None
        stream = self._pacing.stream
        first = stream.published + 1
        batch, rendered = stream.publish_rendered(upto, now)
        if batch:
            self._seating.publish(self.match_id, first, batch, rendered)
            self._pacing.published(now)

    def _issue_prompts(self) -> None:
        assert self.state is not None
        now = self._clock.now()
        for seat in pending_seats(self.state):
            if self._decisions.prompt(self.state, seat, now) is not None:
                conn = self._seating.connection(seat)
                if conn is not None:
                    conn.deliver(self._prompt_out(seat, now, conn))

    def _prompt_out(self, seat: int, now: float, to: Participant) -> PromptOut:
        paused_at = self._wakeup.paused_at  # while paused, the time left when the clocks stopped
        version, at = self._pacing.stream.published, now if paused_at is None else paused_at
        return self._decisions.prompt_for(
            self.match_id, seat, version, at, state=self.state, hints=to.wants_hints
        )

    # -- seats and spectators coming and going ------------------------------------------------------

    def _attach(self, a: Attach) -> None:
        """Seat a connection (replacing the seat's previous one) or let it watch; it is told it
        follows this match, then gets: ``seated`` (a join), its catch-up, the moves played for it
        while it was gone, its open prompt, the outcome if the match is over (after which it
        follows nothing). The catch-up is the whole stream: versions the table forgot are read from
        the store first (:class:`Catchups`, outside the actor), and ``a`` comes back with them."""
        p, seat = a.participant, a.seat
        if not self._catchups.current(a):
            return  # a newer attach (or a detach) of this connection came after this one
        if seat is not None and self.seats[seat].account_id is None:
            p.deliver(ErrorOut(ErrorCode.FORBIDDEN, f"seat {seat} of {self.match_id} is a bot's"))
            return
        now, seating, stream = self._clock.now(), self._seating, self._pacing.stream
        if seat is None and not seating.feed and not self.finished:
            self._pacing.published(now)  # nobody watched: the count a new spectator starts from
        forgotten = self._catchups.forgotten(a, stream)
        if forgotten is None:  # being read, outside the actor: ``a`` comes back with them
            return
        if seat is not None:
            if not seating.seat(p, seat, self.match_id):
                return  # the connection is already over
        elif not seating.watch(p, self.match_id):
            return
        if a.announce:
            p.deliver(SeatedOut(self.match_id, seat, self.players))
        shown = stream.published if seat is not None else seating.feed.released
        events = seating.view(forgotten + stream.window(stream.base, shown), seat)
        p.deliver(CatchupOut(self.match_id, seat, a.since_version, events))
        played = seating.take_played_for(seat) if seat is not None else ()
        if played:  # what the table played for this seat while it had no connection
            p.deliver(PlayedForOut(self.match_id, played))
        if seat is not None and seat in self._decisions.prompts and not self.finished:
            p.deliver(self._prompt_out(seat, now, p))
        if self.outcome is not None:
            p.deliver(self.outcome)
            p.released(self.match_id)
        self._catchups.release(p)  # the acts that came behind it, now

    def _detach(self, d: Detach) -> None:
        p = d.participant
        self._catchups.cancel(p, refuse=self._seating.why_not_seated(p, self.match_id))
        if self._seating.drop(p, on_purpose=d.on_purpose) and d.notify:
            p.deliver(LeftOut(self.match_id))
            p.released(self.match_id)

    # -- pausing -------------------------------------------------------------------------------------

    def _pause(self, p: Pause) -> None:
        """Stop the clocks and tell everyone, or start them again (:class:`Wakeup`) and prompt
        again, with the time they have left, the seats that must decide."""
        now = self._clock.now()
        if p.paused and not self.finished and self._wakeup.pause(now):
            why = f" ({p.reason})" if p.reason else ""
            self._seating.broadcast(
                ErrorOut(ErrorCode.BUSY_RETRY, f"the table is paused{why}: every clock is stopped")
            )
        elif not p.paused and self._wakeup.unpause(now):
            for seat in self._decisions.prompts:
                conn = self._seating.connection(seat)
                if conn is not None:
                    conn.deliver(self._prompt_out(seat, now, conn))
        if not p.done.done():
            p.done.set_result(None)

    # -- the end -------------------------------------------------------------------------------------

    async def _finish(self) -> None:
        last = self._pacing.stream.last()
        assert isinstance(last, MatchEnded), last
        result = ResultOut(scores=last.scores, ranks=last.ranks, final_points=last.final_points)
        record = ResultRecord(self.match_id, last.scores, last.ranks, last.final_points)
        commits = self._commits
        await commits.best_effort(
            commits.repo.record_result(record), "storing the result failed (the step log has it)"
        )
        await self._end(MatchEndReason.COMPLETED, result, MatchStatus.COMPLETED, seed_hex=last.seed)

    async def _end(
        self,
        reason: MatchEndReason,
        result: ResultOut | None,
        status: MatchStatus,
        *,
        seed_hex: str | None = None,
        why: str | None = None,
    ) -> None:
        self.finished = True
        self._decisions.close_all()
        self._pacing.hold_until = None
        self.outcome = MatchEndOut(self.match_id, reason, result)
        # The status first, then match_end: a client that saw the end finds the match over in the
        # store (if this write fails, a restart finishes a completed match again from its log).
        commits, ended_at = self._commits, self._deps.wall_clock()
        await commits.best_effort(
            commits.repo.finish_match(self.match_id, status, ended_at, seed_hex, why),
            "storing the match status failed",
        )
        if reason is MatchEndReason.COMPLETED:
            self._pacing.reveal_to_spectators(self._clock.now())
        self._seating.broadcast(self.outcome)
        self._seating.release_all(self.match_id)
        self._wakeup.retire_at = self._clock.now() + self._deps.retention_s
        self.ended.set()
        if self._on_end is not None:
            self._on_end(self)

    def _fenced(self, exc: FencedError) -> None:
        """Cluster mode: another node owns the match now (docs/scaling.md). Stop at once, writing
        nothing (not even an abort); the seats are told to resume, which reaches the new owner."""
        self._stopped = True
        self._log.warning("table %s dropped: %s", self.match_id, exc)
        moved = f"match {self.match_id} moved to another server node; resume it"
        self._seating.broadcast(ErrorOut(ErrorCode.BUSY_RETRY, moved))
        self._seating.release_all(self.match_id)

    async def _crash(self, exc: Exception) -> None:
        """The actor failed: tell everyone, record the abort, stop."""
        self._stopped = True
        if self.finished:
            return
        self._seating.broadcast(
            ErrorOut(ErrorCode.INTERNAL, f"table {self.match_id} failed; the match is aborted")
        )
        try:
            why = f"table failed: {type(exc).__name__}: {exc}"[:500]
            await self._end(MatchEndReason.ABORTED, None, MatchStatus.ABORTED, why=why)
        except Exception:
            self._log.exception("table %s: failed while aborting", self.match_id)
