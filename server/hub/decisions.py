"""The decisions one table waits for, and the answers it has taken.

A decision opens when a committed step leaves a seat pending (``pending_seats``); the seat is
*prompted* (:meth:`Decisions.prompt`) once the seats have seen every event up to that step (the
minimum call window or the hand pause may hold them back: :mod:`server.hub.pacing`), and its time
runs from then (:class:`~server.hub.timing.TimeKeeper`). An answer in a call window leaves the other
seats' prompts as they are; any step with events closes them all.

Each applied answer is remembered by its request id, so a client that sends it again (a retry, a
reconnection) gets its ``ack`` (``duplicate``) and the move is never applied twice. Only a seat's
last :data:`REMEMBERED_ANSWERS` are kept (memory must not grow with the match): an older one sent
again is refused like any act for a past decision (``stale_step``), never applied.

:meth:`Decisions.refusal` is the one check of whether a seated connection's act may be applied (the
right step, a legal action); which connection holds which seat is the table's to say. When a seat's
time is up (or its bot's answer is due), :meth:`Decisions.answer_for` is the answer the table gives
for it (:class:`~server.hub.botturns.BotTurns`).

**Decision numbers are public.** The engine counts every step, also the call windows everyone
passes; a seat that saw that count would learn who could have called what. So what leaves the
server (a prompt's and an ack's ``step``, the error texts) is the *event version* after which the
decision opened: the number of events every viewer has, a function of public moves only. No text
names the table's current position: a refusal speaks of the receiver's own decisions only.

>>> from server.engine import new_match, pending_seats
>>> from server.engine.rules import TENHOU
>>> from server.hub.seating import Seating
>>> from server.hub.settings import SpectatePolicy, TableTimers
>>> from server.hub.spectators import SpectatorFeed
>>> t = new_match(TENHOU, b"doc")
>>> seating = Seating(SpectatorFeed("doc", SpectatePolicy()))
>>> d = Decisions(TableTimers(action_ms=5000, bank_ms=10000), seating, bots=frozenset())
>>> d.advance(t, actor=None, request_id=None, now=0.0, version=len(t.events)) is None
True
>>> (dealer,) = pending_seats(t.state)
>>> prompt = d.prompt(t.state, dealer, now=1.0)
>>> prompt.step, prompt.sent_at, d.prompt(t.state, dealer, now=2.0) is None
(3, 1.0, True)
>>> d.refusal(dealer, 4, next(iter(prompt.legal)))[1]
"step 4 is not your pending decision's step 3"
"""

from __future__ import annotations

import dataclasses
import logging

from client_protocol.errors import ErrorCode
from server.engine import MatchState, Transition, legal_actions, pending_seats
from server.engine.actions import Action, action_to_dict
from server.engine.hints import seat_hints
from server.hub.botturns import BotTurns
from server.hub.outputs import PromptOut
from server.hub.seating import Seating
from server.hub.settings import TableTimers
from server.hub.timing import OpenPrompt, TimeKeeper

log = logging.getLogger(__name__)

Refusal = tuple[ErrorCode, str]
REMEMBERED_ANSWERS = 16  # request ids per seat whose ack a retry gets again (2 KiB a seat)


class Decisions:
    """Open decisions (step opened, prompt, time), and the request ids already applied."""

    __slots__ = (
        "_answered",
        "_bots",
        "_last_prompted",
        "_last_request",
        "_opened_at",
        "_seating",
        "_turns",
        "prompts",
        "time",
    )

    def __init__(
        self,
        timers: TableTimers,
        seating: Seating,
        *,
        bots: frozenset[int] | None = None,
        turns: BotTurns | None = None,
    ) -> None:
        self.time = TimeKeeper(timers, seating.seats)
        self._seating = seating  # who is connected, and which seats are absent (played for at once)
        self._turns = turns  # who answers when a seat's time is up (None: no answer_for)
        # the seats of built-in bots: their "deadline" is when they answer
        self._bots = bots if bots is not None else turns.bot_seats if turns is not None else frozenset()
        self.prompts: dict[int, OpenPrompt] = {}  # seats prompted and not answered yet
        self._opened_at: dict[int, int] = {}  # seat -> the version after which its latest decision opened
        self._last_prompted: dict[int, int] = {}  # seat -> the number of its latest prompt
        # per seat: request id -> its decision's number
        self._answered: list[dict[int, int]] = [{} for _ in range(seating.seats)]
        self._last_request: dict[int, int] = {}  # seat -> the highest request id applied

    def answered(self, seat: int, request_id: int) -> int | None:
        """The step of the decision that ``seat``'s ``request_id`` answered, if it was applied."""
        return self._answered[seat].get(request_id)

    def last_request_id(self, seat: int) -> int | None:
        """The highest request id of ``seat`` applied so far (what ``welcome`` tells a client)."""
        return self._last_request.get(seat)

    def advance(
        self, t: Transition, *, actor: int | None, request_id: int | None, now: float, version: int
    ) -> int | None:
        """``t`` was committed (``actor``'s answer, or the deal) and the match's stream holds
        ``version`` events with it: charge the actor's time, remember its request id and follow the
        decisions the new state opens (numbered ``version``). Returns the number of the decision
        the request answered (what its ``ack`` carries), None without a request id."""
        previous = self.prompts
        answered_step = None
        if actor is not None:
            prompt = previous.get(actor)
            if prompt is not None:
                self.time.charge(actor, prompt, now)
            if request_id is not None:
                answered_step = prompt.step if prompt is not None else self._opened_at.get(actor, 0)
                answered = self._answered[actor]
                answered[request_id] = answered_step
                if len(answered) > REMEMBERED_ANSWERS:
                    del answered[next(iter(answered))]  # the oldest
                self._last_request[actor] = max(request_id, self._last_request.get(actor, request_id))
        pending = pending_seats(t.state)
        if t.events:
            self.prompts = {}
            for seat in pending:
                self._opened_at[seat] = version
        else:  # an answer in a call window: the other seats' prompts stay as they are
            self.prompts = {s: p for s, p in previous.items() if s in pending and s != actor}
        return answered_step

    def prompt(self, state: MatchState, seat: int, now: float) -> OpenPrompt | None:
        """Prompt ``seat`` for its open decision now; None if it already is."""
        if seat in self.prompts:
            return None
        prompt = OpenPrompt(step=self._opened_at.get(seat, 0), legal=legal_actions(state, seat), sent_at=now)
        self.prompts[seat] = prompt
        self._last_prompted[seat] = prompt.step
        return prompt

    def refusal(self, seat: int, step: int, action: Action) -> Refusal | None:
        """Why ``seat`` may not play ``action`` at ``step`` now (None: it may). In this order:
        without a pending decision, ``stale_step`` for the number of one of the seat's past prompts
        (or below), else ``not_your_turn``; with one, ``stale_step`` for another number, then
        ``illegal_action``. Each answer depends on the seat's own prompts only."""
        prompt = self.prompts.get(seat)
        if prompt is None and step <= self._last_prompted.get(seat, -1):
            return ErrorCode.STALE_STEP, f"step {step} is over; you have no decision to make now"
        if prompt is None:
            return ErrorCode.NOT_YOUR_TURN, "you have no decision to make now"
        if step != prompt.step:
            return ErrorCode.STALE_STEP, f"step {step} is not your pending decision's step {prompt.step}"
        if action not in prompt.legal:
            return (
                ErrorCode.ILLEGAL_ACTION,
                f"{action_to_dict(action)} is not a legal action at step {prompt.step}",
            )
        return None

    def deadline(self, seat: int, prompt: OpenPrompt) -> float:
        """When the table answers for ``seat`` (see :meth:`TimeKeeper.deadline`)."""
        seating = self._seating
        return self.time.deadline(
            seat,
            prompt,
            bot=seat in self._bots,
            connected=seating.connection(seat) is not None,
            absent=seating.absent(seat),
        )

    def next_deadline(self) -> float | None:
        """The earliest deadline of the open prompts."""
        when = None
        for seat, prompt in self.prompts.items():
            due = self.deadline(seat, prompt)
            if when is None or due < when:
                when = due
        return when

    def due(self, now: float) -> int | None:
        """The first seat (in seat order) whose deadline has come, if any."""
        prompts = self.prompts
        for seat in sorted(prompts):
            if self.deadline(seat, prompts[seat]) <= now:
                return seat
        return None

    def answer_for(self, state: MatchState, seat: int) -> tuple[int, Action, str]:
        """``seat``'s decision is due (:meth:`due`): the number of its prompt, the action the table
        plays for it and that step's source (:meth:`BotTurns.choose`)."""
        assert self._turns is not None
        prompt = self.prompts[seat]
        action, source = self._turns.choose(state, seat, prompt.legal, presence=self._seating.presence(seat))
        return prompt.step, action, source

    def prompt_out(self, match_id: str, seat: int, version: int, now: float) -> PromptOut:
        """``seat``'s open prompt as sent (or sent again) now, with the time it has left."""
        prompt = self.prompts[seat]
        action_left, bank_left = self.time.remaining(seat, prompt, now)
        return PromptOut(
            match_id=match_id,
            step=prompt.step,
            seat=seat,
            version=version,
            legal=prompt.legal,
            deadline_ms=action_left,
            bank_ms=bank_left,
        )

    def prompt_for(
        self, match_id: str, seat: int, version: int, now: float, *, state: MatchState | None, hints: bool
    ) -> PromptOut:
        """:meth:`prompt_out`, with the seat's hints when its connection asks for them (``hints``:
        never on the bots' hot path) and they can be computed (a comfort: never worth the table)."""
        out = self.prompt_out(match_id, seat, version, now)
        if hints and state is not None:
            try:
                out = dataclasses.replace(out, hints=seat_hints(state, seat, out.legal))
            except Exception:
                log.exception("match %s: could not compute the hints of seat %d", match_id, seat)
        return out

    def postpone(self, seconds: float) -> None:
        """The table was paused for ``seconds``: every open decision's time runs from that much later
        (its time and bank are what they were when the clocks stopped)."""
        for prompt in self.prompts.values():
            prompt.sent_at += seconds

    def close_all(self) -> None:
        """The match is over: nobody decides anything any more."""
        self.prompts.clear()
