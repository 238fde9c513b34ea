"""One actor per match: :class:`TableActor` owns the match state and changes it, alone, through ONE
inbox (client actions, joins, resumes, leaves, deadline ticks).

What one applied action goes through (``_apply``)::

    engine.apply (pure; state untouched on error)
      -> repo.append_step(...)           COMMIT, awaited; on failure: busy_retry, nothing adopted
      -> adopt the new state; ack the actor
      -> publish the events, redacted per receiver by server.engine.views.redact (the only redaction)
      -> prompt the seats that must decide; arm their deadlines

Time is read from an injectable :class:`~server.hub.clock.Clock`: the per-decision time and the time
bank, the uniform minimum call window, the grace of a disconnected seat and the spectators' delay
are all deadlines on that clock; one timer per table puts a :class:`Tick` in the inbox when the
earliest one comes due. Built-in bots run here, without a network: a bot seat's "deadline" is when
it answers. Nothing a participant sends can change the state unless the engine accepts it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

from client_protocol.errors import ErrorCode
from client_protocol.messages import MatchEndReason
from server.bots import get_bot
from server.domain.ports import Repository
from server.domain.records import AccountKind, MatchStatus, RecoveryRecord, ResultRecord, StepRecord
from server.engine import (
    MatchState,
    Phase,
    Transition,
    default_action,
    legal_actions,
    new_match,
    pending_seats,
    redact_all,
)
from server.engine import apply as engine_apply
from server.engine.actions import Action, action_to_dict
from server.engine.errors import RulesError
from server.engine.events import Event, MatchEnded, MeldCalled, RoundEnded, RoundStarted, TileDiscarded
from server.engine.melds import MeldType
from server.engine.rules import Ruleset
from server.engine.tiles import Tile
from server.engine.views import seat_view
from server.hub.clock import Cancellable, Clock, with_deadline
from server.hub.inbox import (
    ActRequest,
    Attach,
    Barrier,
    CommitError,
    Detach,
    InboxItem,
    SeatSpec,
    Stop,
    TableDivergedError,
    Tick,
)
from server.hub.metrics import HubMetrics
from server.hub.outputs import (
    AckOut,
    CatchupOut,
    ErrorOut,
    EventsOut,
    LeftOut,
    MatchEndOut,
    Outbound,
    Participant,
    PromptOut,
    ResultOut,
    SeatedOut,
    TablePlayerInfo,
)
from server.hub.settings import SpectatePolicy, TableTimers
from server.hub.spectators import EventStream, SpectatorFeed
from server.hub.steplog import match_record, step_record, table_settings_json
from server.hub.timing import OpenPrompt, TimeKeeper

log = logging.getLogger(__name__)

T = TypeVar("T")

_WINDOW_PHASES = (Phase.CALLS, Phase.CHANKAN)


def _callable_cut(events: Sequence[Event]) -> int | None:
    """Index of the last event after which other seats could claim something (a discard, or a
    closed/added kan that might be robbed), or None."""
    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if isinstance(e, TileDiscarded) or (
            isinstance(e, MeldCalled) and e.type in (MeldType.ANKAN, MeldType.KAKAN)
        ):
            return i
    return None


def _next_hand_cut(events: Sequence[Event], start: int) -> int | None:
    """Index (from ``start`` on) of a RoundEnded that a new hand follows, or None."""
    for i in range(start, len(events) - 1):
        if isinstance(events[i], RoundEnded) and isinstance(events[i + 1], RoundStarted):
            return i
    return None


class TableActor:
    """The authoritative table of one match (see the module docstring)."""

    def __init__(
        self,
        *,
        match_id: str,
        ruleset: Ruleset,
        seed: bytes,
        seats: Sequence[SeatSpec],
        repo: Repository,
        clock: Clock,
        timers: TableTimers,
        spectate: SpectatePolicy,
        commit_timeout_s: float = 5.0,
        commit_retry_s: float = 1.0,
        retention_s: float = 120.0,
        walls: Sequence[Sequence[Tile]] | None = None,
        source: str = "",
        on_end: Callable[[TableActor], None] | None = None,
        on_retire: Callable[[TableActor], None] | None = None,
        wall_clock: Callable[[], float] = time.time,
        metrics: HubMetrics | None = None,
    ) -> None:
        if len(seats) != 4:
            raise ValueError(f"a table needs 4 seats, got {len(seats)}")
        self.match_id = match_id
        self.ruleset = ruleset
        self.seats = tuple(seats)
        self.timers = timers
        self.spectate = spectate
        self.source = source
        self._seed = seed
        self._walls = walls
        self._repo = repo
        self._clock = clock
        self._wall_clock = wall_clock
        self._metrics = metrics
        self._commit_timeout_s = commit_timeout_s
        self._commit_retry_s = commit_retry_s
        self._retention_s = retention_s
        self._on_end = on_end
        self._on_retire = on_retire
        self._bots = [get_bot(s.bot) if s.bot is not None else None for s in seats]
        self._log = logging.LoggerAdapter(log, {"match_id": match_id})  # JSON logs: a match_id field
        # Human seats read each hand's result: the next hand waits timers.hand_pause_ms for them.
        self._paced = any(s.kind in (AccountKind.GUEST, AccountKind.PLAYER) for s in seats)

        self.state: MatchState | None = None
        self._stream = EventStream()  # omniscient events; the seats have seen the published ones
        self._hold_until: float | None = None
        self._prompts: dict[int, OpenPrompt] = {}
        self._decision_step: dict[int, int] = {}
        self._time = TimeKeeper(timers)
        self._applied: dict[tuple[int, int], int] = {}  # (seat, request_id) -> step
        self._conn: list[Participant | None] = [None] * 4
        self._gone_since: list[float | None] = [None] * 4
        self._feed = SpectatorFeed(match_id, spectate)
        self._stalled_until: float | None = None  # a failed commit of a timer/bot step: retry then
        self._uncertain: tuple[StepRecord, Action] | None = None  # a write whose outcome is unknown
        self._retire_at: float | None = None
        self._stopped = False
        self.finished = False
        self.resumed = False  # rebuilt from the store after a restart
        self.outcome: MatchEndOut | None = None
        self.ended = asyncio.Event()  # set when the match is over (completed or aborted)
        self._inbox: asyncio.Queue[InboxItem] = asyncio.Queue()
        self._barriers: list[asyncio.Future[None]] = []
        self._timer: Cancellable | None = None
        self._timer_at: float | None = None
        self._task: asyncio.Task[None] | None = None

    # -- public API ----------------------------------------------------------------------------------

    @property
    def players(self) -> tuple[TablePlayerInfo, ...]:
        return tuple(TablePlayerInfo(s.name, s.kind) for s in self.seats)

    @property
    def version(self) -> int:
        """The last event version published to the seats."""
        return self._stream.published

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def seat_of_account(self, account_id: str) -> int | None:
        for i, s in enumerate(self.seats):
            if s.account_id == account_id:
                return i
        return None

    def events(self) -> tuple[Event, ...]:
        """The omniscient events so far (tests and tools; never sent as such)."""
        return tuple(self._stream.events)

    def submit(self, item: InboxItem) -> None:
        """Put a message in the inbox (never blocks)."""
        self._inbox.put_nowait(item)

    async def settle(self) -> None:
        """Wait until everything submitted so far is handled and nothing is due now."""
        if not self.running:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.submit(Barrier(future))
        await future

    async def stop(self, *, abort: bool = False) -> None:
        if self.running:
            self.submit(Stop(abort=abort))
            assert self._task is not None
            await asyncio.shield(self._task)

    async def start(self, participants: dict[int, Participant]) -> None:
        """Deal, store the match and its first step, seat ``participants`` and start the actor.

        Raises (and starts nothing) when the store refuses the match.
        """
        t = new_match(self.ruleset, self._seed, walls_=self._walls)
        match = match_record(
            self.match_id,
            self.ruleset,
            self._seed,
            self.seats,
            created_at=self._wall_clock(),
            source=self.source,
        )
        # The seed is stored (secret until the end) so that a restarted server can replay the match;
        # a match dealt from injected walls (tests) cannot be replayed from its seed.
        recovery = (
            RecoveryRecord(self.match_id, self._seed.hex(), table_settings_json(self.timers, self.spectate))
            if self._walls is None
            else None
        )
        await self._with_timeout(self._repo.create_match(match, recovery))
        genesis = step_record(
            self.match_id, t, seat=None, action=None, request_id=None, applied_at=self._wall_clock()
        )
        await self._with_timeout(self._repo.append_step(genesis))
        await self._adopt(t, actor=None, ack=None)
        for seat, participant in participants.items():
            self._attach(Attach(participant, seat, 0, announce=True))
        self._launch()

    async def resume(self, transitions: Sequence[Transition], steps: Sequence[StepRecord]) -> None:
        """Adopt a match rebuilt from its stored log after a restart (crash recovery) and start the
        actor; nobody is attached (players come back with ``resume``).

        ``transitions`` are the engine's replay of ``steps``, already checked against them
        (:func:`server.hub.recovery.replay_log`); an empty log (the server stopped right after
        storing the match) gets its deal stored first. Every stored event counts as seen: the
        table publishes them all at once, then prompts whoever must decide, with fresh timers (the
        action time and a full bank: time spent before the restart is not known). A request id
        stored with a step is remembered, so a client re-sending it after reconnecting gets its
        ``ack`` (``duplicate``) instead of a second move. Raises when the store refuses the deal.
        """
        if not transitions:
            raise ValueError("nothing to resume")
        self.resumed = True
        if not steps:
            genesis = step_record(
                self.match_id,
                transitions[0],
                seat=None,
                action=None,
                request_id=None,
                applied_at=self._wall_clock(),
            )
            await self._with_timeout(self._repo.append_step(genesis))
        for i, t in enumerate(transitions):
            record = steps[i] if i < len(steps) else None
            actor = record.seat if record is not None else None
            if record is not None and actor is not None and record.request_id is not None:
                prompt = self._prompts.get(actor)
                self._applied[(actor, record.request_id)] = prompt.step if prompt else t.step - 1
            await self._adopt(t, actor=actor, ack=None, replaying=True)
        self._launch()

    def _launch(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table-{self.match_id}")
        self.submit(Tick())  # the first decision may be a bot's, due at once

    # -- the actor loop ------------------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while not self._stopped:
                item = await self._inbox.get()
                await self._handle(item)
                await self._work()
                if self._next_due_now() is None:
                    self._resolve_barriers()
                self._rearm()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._log.exception("table %s failed; the match is aborted", self.match_id)
            await self._crash(exc)
        finally:
            self._cancel_timer()
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
            case Stop(abort=abort):
                if abort and not self.finished:
                    await self._end(MatchEndReason.ABORTED, None, MatchStatus.ABORTED)
                self._stopped = True

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

    def _prompt_deadline(self, seat: int, prompt: OpenPrompt) -> float:
        gone = None if self._conn[seat] is not None else (self._gone_since[seat] or prompt.sent_at)
        return self._time.deadline(seat, prompt, bot=self._bots[seat] is not None, gone_since=gone)

    def _deadlines(self) -> list[float]:
        out: list[float] = []
        if self._retire_at is not None:
            out.append(self._retire_at)
        if self.finished:
            return out
        if self._hold_until is not None:
            out.append(self._hold_until)
        if self._feed:
            d = self._feed.next_release(self._stream)
            if d is not None:
                out.append(d)
        if self._stalled_until is not None:
            out.append(self._stalled_until)
        else:
            out.extend(self._prompt_deadline(s, p) for s, p in self._prompts.items())
        return out

    def _next_due_now(self) -> float | None:
        now = self._clock.now()
        due = [d for d in self._deadlines() if d <= now]
        return min(due) if due else None

    def _rearm(self) -> None:
        deadlines = self._deadlines()
        when = min(deadlines) if deadlines and not self._stopped else None
        if when == self._timer_at:
            return
        self._cancel_timer()
        if when is not None:
            self._timer_at = when
            self._timer = self._clock.call_at(when, self._on_timer)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        self._timer_at = None

    def _on_timer(self) -> None:
        self._timer = None
        self._timer_at = None
        self._inbox.put_nowait(Tick())

    async def _fire_due(self) -> bool:
        """Handle one thing that is due; False when nothing is."""
        now = self._clock.now()
        if self._retire_at is not None and now >= self._retire_at:
            self._stopped = True
            return True
        if self.finished:
            return False
        if self._hold_until is not None and now >= self._hold_until:
            await self._release_hold()
            return True
        if self._feed and self._feed.release(now, self._stream):
            return True
        if self._stalled_until is not None:
            if now < self._stalled_until:
                return False
            self._stalled_until = None
        for seat in sorted(self._prompts):
            if self._prompt_deadline(seat, self._prompts[seat]) <= now:
                await self._act_for(seat)
                return True
        return False

    async def _act_for(self, seat: int) -> None:
        """A bot's answer, or the default action of a seat whose time ran out (or that is gone)."""
        try:
            if self._uncertain is not None:
                await self._reconcile()
                if seat not in self._prompts:
                    return
            assert self.state is not None
            prompt = self._prompts[seat]
            bot = self._bots[seat]
            action: Action | None = None
            if bot is not None:
                try:
                    action = bot(seat_view(self.state, seat), prompt.legal)
                except Exception:
                    self._log.exception(
                        "bot %s of table %s failed; playing the default", self.seats[seat].bot, self.match_id
                    )
                if action is not None and action not in prompt.legal:
                    self._log.error(
                        "bot %s chose an illegal %r; playing the default", self.seats[seat].bot, action
                    )
                    action = None
            source = "bot"
            if action is None:
                action = default_action(self.state, seat)
                if bot is None:
                    # Its time and bank ran out while connected, or it is gone (past its grace).
                    source = "timeout" if self._conn[seat] is not None else "disconnected"
            await self._apply(seat, action, ack=None, source=source)
            if source != "bot" and self._metrics is not None:
                self._metrics.timeouts.inc()
        except CommitError as exc:
            self._log.warning("table %s: %s; retrying in %s s", self.match_id, exc, self._commit_retry_s)
            self._stalled_until = self._clock.now() + self._commit_retry_s

    # -- actions -------------------------------------------------------------------------------------

    def _seat_of(self, participant: Participant) -> int | None:
        for seat, conn in enumerate(self._conn):
            if conn is participant:
                return seat
        return None

    async def _handle_act(self, req: ActRequest) -> None:
        received = time.perf_counter()
        p, rid = req.participant, req.request_id
        seat = self._seat_of(p)
        if seat is None:
            why = (
                "a spectator cannot act"
                if p in self._feed
                else f"this connection holds no seat at {self.match_id}; resume first"
            )
            p.deliver(ErrorOut(ErrorCode.FORBIDDEN, why, rid))
            return
        if (seat, rid) in self._applied:
            p.deliver(AckOut(rid, self._applied[(seat, rid)], True))
            return
        if self._uncertain is not None and not self.finished:
            try:
                await self._reconcile()
            except CommitError as exc:
                p.deliver(ErrorOut(ErrorCode.BUSY_RETRY, f"the table cannot store moves now ({exc})", rid))
                return
            if (seat, rid) in self._applied:
                p.deliver(AckOut(rid, self._applied[(seat, rid)], True))
                return
        prompt = self._prompts.get(seat)
        public = self._stream.public_step
        refusal: tuple[ErrorCode, str] | None = None
        if prompt is None and req.step < public:
            refusal = (ErrorCode.STALE_STEP, f"step {req.step} is over; the table is at step {public}")
        elif prompt is None:
            refusal = (ErrorCode.NOT_YOUR_TURN, f"seat {seat} has no decision to make at step {public}")
        elif req.step != prompt.step:
            refusal = (
                ErrorCode.STALE_STEP,
                f"step {req.step} is not your pending decision's step {prompt.step}",
            )
        elif req.action not in prompt.legal:
            refusal = (
                ErrorCode.ILLEGAL_ACTION,
                f"{action_to_dict(req.action)} is not a legal action at step {prompt.step}",
            )
        if refusal is not None:
            p.deliver(ErrorOut(refusal[0], refusal[1], rid))
            return
        try:
            await self._apply(seat, req.action, ack=(p, rid))
            if self._metrics is not None:
                self._metrics.action_latency.observe(time.perf_counter() - received)
        except CommitError as exc:
            p.deliver(ErrorOut(ErrorCode.BUSY_RETRY, f"the move was not stored ({exc}); send it again", rid))
        except RulesError as exc:  # legal by the prompt but refused by the engine: a bug, state untouched
            self._log.error("table %s: engine refused a prompted action: %s", self.match_id, exc)
            p.deliver(ErrorOut(ErrorCode.ILLEGAL_ACTION, str(exc), rid))

    async def _apply(
        self, seat: int, action: Action, *, ack: tuple[Participant, int] | None, source: str = "player"
    ) -> None:
        """Apply, COMMIT, then adopt and broadcast. Raises CommitError (nothing adopted).

        ``source`` (who decided: ``STEP_SOURCES``) is stored with the step."""
        assert self.state is not None
        t = engine_apply(self.state, seat, action)  # raises RulesError; the state is untouched
        record = step_record(
            self.match_id,
            t,
            seat=seat,
            action=action,
            request_id=ack[1] if ack is not None else None,
            applied_at=self._wall_clock(),
            source=source,
        )
        started = time.perf_counter()
        try:
            await self._with_timeout(self._repo.append_step(record))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._uncertain = (record, action)
            raise CommitError(f"storing step {t.step} failed: {type(exc).__name__}: {exc}") from exc
        if self._metrics is not None:
            self._metrics.commit_latency.observe(time.perf_counter() - started)
        await self._adopt(t, actor=seat, ack=ack)
        if self._metrics is not None:
            # The metric keeps its three labels: a disconnected seat's default counts as a timeout.
            self._metrics.actions.labels("timeout" if source == "disconnected" else source).inc()

    async def _reconcile(self) -> None:
        """After a write whose outcome is unknown: adopt it if it landed, forget it if not."""
        assert self._uncertain is not None and self.state is not None
        record, action = self._uncertain
        try:
            count = await self._with_timeout(self._repo.step_count(self.match_id))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise CommitError(f"the store cannot be read: {type(exc).__name__}: {exc}") from exc
        expected = self.state.step + 1
        self._uncertain = None
        if count == expected:
            return  # it did not land
        if count != expected + 1 or record.seat is None:
            raise TableDivergedError(f"{self.match_id}: the log holds {count} steps, the table {expected}")
        self._log.warning("table %s: step %s was stored after all; adopting it", self.match_id, record.step)
        t = engine_apply(self.state, record.seat, action)
        if record.request_id is not None:
            prompt = self._prompts.get(record.seat)
            self._applied[(record.seat, record.request_id)] = prompt.step if prompt else record.step - 1
        await self._adopt(t, actor=record.seat, ack=None)

    async def _with_timeout(self, awaitable: Coroutine[Any, Any, T]) -> T:
        """Await a store call, cancelling it after ``commit_timeout_s`` on the table's clock."""
        when = self._clock.now() + self._commit_timeout_s
        return await with_deadline(self._clock, awaitable, when, "the store")

    # -- adopting a committed transition ------------------------------------------------------------

    async def _adopt(
        self,
        t: Transition,
        *,
        actor: int | None,
        ack: tuple[Participant, int] | None,
        replaying: bool = False,
    ) -> None:
        now = self._clock.now()
        previous = self._prompts
        prompt = previous.get(actor) if actor is not None else None
        if actor is not None and prompt is not None:
            self._time.charge(actor, prompt, now)
        if ack is not None and actor is not None:
            step = prompt.step if prompt is not None else t.step - 1
            self._applied[(actor, ack[1])] = step
        self.state = t.state
        base = len(self._stream)
        self._stream.append(t.events, t.step, now)
        if ack is not None and actor is not None:
            ack[0].deliver(AckOut(ack[1], self._applied[(actor, ack[1])], False))

        pending = pending_seats(t.state)
        if t.events:
            self._prompts = {}
            for seat in pending:
                self._decision_step[seat] = t.step
        else:  # an answer in a call window: the other seats' prompts stay as they are
            self._prompts = {s: p for s, p in previous.items() if s in pending and s != actor}

        min_call = 0 if replaying else self.timers.min_call_ms  # a replayed step was seen already
        if self._hold_until is None:
            cut = _callable_cut(t.events) if min_call > 0 else None
            if cut is None:
                self._publish_to_hand_pause(now, replaying=replaying)
            else:
                self._hold_until = now + min_call / 1000
                window_open = t.state.hand.phase in _WINDOW_PHASES and not t.state.finished
                self._publish(len(self._stream) if window_open else base + cut + 1)
        if self._stream.all_published:
            self._issue_prompts()
            if t.state.finished:
                await self._finish()

    async def _release_hold(self) -> None:
        self._hold_until = None
        self._publish_to_hand_pause(self._clock.now())
        if not self._stream.all_published:
            return
        self._issue_prompts()
        assert self.state is not None
        if self.state.finished:
            await self._finish()

    def _publish_to_hand_pause(self, now: float, *, replaying: bool = False) -> None:
        """Publish what is held back; but when a hand ended and the next one started, stop after
        the end and hold the new hand for ``hand_pause_ms`` (tables with a human seat only)."""
        pause = 0 if replaying or not self._paced else self.timers.hand_pause_ms
        cut = _next_hand_cut(self._stream.events, self._stream.published) if pause > 0 else None
        if cut is None:
            self._publish(len(self._stream))
        else:
            self._hold_until = now + pause / 1000
            self._publish(cut + 1)

    def _publish(self, upto: int) -> None:
        """Send the events up to version ``upto`` to the connected seats, each redacted for its seat."""
        assert self.state is not None
        first = self._stream.published + 1
        batch = self._stream.publish(upto, self._clock.now(), self.state.step)
        if batch:
            for seat, conn in enumerate(self._conn):
                if conn is not None:
                    conn.deliver(EventsOut(self.match_id, first, redact_all(batch, seat)))

    def _issue_prompts(self) -> None:
        assert self.state is not None
        now = self._clock.now()
        for seat in pending_seats(self.state):
            if seat in self._prompts:
                continue
            self._prompts[seat] = OpenPrompt(
                step=self._decision_step.get(seat, self.state.step),
                legal=legal_actions(self.state, seat),
                sent_at=now,
            )
            conn = self._conn[seat]
            if conn is not None:
                conn.deliver(self._prompt_out(seat))

    def _prompt_out(self, seat: int) -> PromptOut:
        prompt = self._prompts[seat]
        action_left, bank_left = self._time.remaining(seat, prompt, self._clock.now())
        return PromptOut(
            match_id=self.match_id,
            step=prompt.step,
            seat=seat,
            version=self._stream.published,
            legal=prompt.legal,
            deadline_ms=action_left,
            bank_ms=bank_left,
        )

    # -- seats and spectators coming and going ------------------------------------------------------

    def _attach(self, a: Attach) -> None:
        p = a.participant
        if a.seat is not None and self.seats[a.seat].account_id is None:
            p.deliver(ErrorOut(ErrorCode.FORBIDDEN, f"seat {a.seat} of {self.match_id} is a bot's"))
            return
        if a.seat is not None:
            self._feed.remove(p)
            self._conn[a.seat] = p
            self._gone_since[a.seat] = None
            if a.announce:
                p.deliver(SeatedOut(self.match_id, a.seat, self.players))
            events = redact_all(tuple(self._stream.events[: self._stream.published]), a.seat)
            p.deliver(CatchupOut(self.match_id, a.seat, a.since_version, events))
            if a.seat in self._prompts and not self.finished:
                p.deliver(self._prompt_out(a.seat))
            if self.outcome is not None:
                p.deliver(self.outcome)
            return
        seat = self._seat_of(p)
        if seat is not None:
            self._conn[seat] = None
            self._gone_since[seat] = self._clock.now()
        self._feed.add(p)
        if a.announce:
            p.deliver(SeatedOut(self.match_id, None, self.players))
        events = redact_all(tuple(self._stream.events[: self._feed.released]), None)
        p.deliver(CatchupOut(self.match_id, None, a.since_version, events))
        if self.outcome is not None:
            p.deliver(self.outcome)

    def _detach(self, d: Detach) -> None:
        p = d.participant
        found = self._feed.remove(p)
        seat = self._seat_of(p)
        if seat is not None:
            self._conn[seat] = None
            self._gone_since[seat] = self._clock.now()
            found = True
        if d.notify and found:
            p.deliver(LeftOut(self.match_id))

    # -- the end -------------------------------------------------------------------------------------

    async def _finish(self) -> None:
        last = self._stream.events[-1]
        assert isinstance(last, MatchEnded), last
        result = ResultOut(scores=last.scores, ranks=last.ranks, final_points=last.final_points)
        try:
            await self._with_timeout(
                self._repo.record_result(
                    ResultRecord(self.match_id, last.scores, last.ranks, last.final_points)
                )
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            self._log.exception("table %s: storing the result failed (the step log has it)", self.match_id)
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
        self._prompts.clear()
        self._hold_until = None
        self.outcome = MatchEndOut(self.match_id, reason, result)
        # The status first, then match_end: a client that saw the end finds the match over in the
        # store (if this write fails, a restart finishes a completed match again from its log).
        try:
            await self._with_timeout(
                self._repo.finish_match(self.match_id, status, self._wall_clock(), seed_hex, why)
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            self._log.exception("table %s: storing the match status failed", self.match_id)
        if reason is MatchEndReason.COMPLETED:
            self._feed.release(self._clock.now(), self._stream, everything=True)
        self._broadcast(self.outcome)
        self._retire_at = self._clock.now() + self._retention_s
        self.ended.set()
        if self._on_end is not None:
            self._on_end(self)

    def _broadcast(self, item: Outbound) -> None:
        for conn in self._conn:
            if conn is not None:
                conn.deliver(item)
        self._feed.broadcast(item)

    async def _crash(self, exc: Exception) -> None:
        """The actor failed: tell everyone, record the abort, stop."""
        self._stopped = True
        if self.finished:
            return
        self._broadcast(ErrorOut(ErrorCode.INTERNAL, f"table {self.match_id} failed; the match is aborted"))
        try:
            why = f"table failed: {type(exc).__name__}: {exc}"[:500]
            await self._end(MatchEndReason.ABORTED, None, MatchStatus.ABORTED, why=why)
        except Exception:
            self._log.exception("table %s: failed while aborting", self.match_id)
