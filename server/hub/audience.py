"""Who follows one table and what each of them is sent: the seats' connections and the spectators
(:class:`~server.hub.seating.Seating`), when they see what was committed
(:class:`~server.hub.pacing.Pacing`), their catch-ups (:class:`~server.hub.catchups.Catchups`), the
prompts of the seats that must decide, the pause notices and the outcome.

The table's actor calls it, in its own order, and it delivers (``Participant.deliver`` never
blocks): a published batch to every connected seat, redacted for that seat (``Seating.publish``);
a prompt with the time left (while paused, the time left when the clocks stopped); on an attach,
``seated`` (a join), the catch-up, the moves played for the seat while it was gone, its open prompt
and the outcome if the match is over; ``left`` on an explicit leave; ``match_end`` to everyone. It
changes nothing of the match: the state, the decisions and the clocks are the actor's and its other
collaborators'.
"""

from __future__ import annotations

from collections.abc import Sequence

from client_protocol.errors import ErrorCode
from server.engine import MatchState, pending_seats
from server.engine.events import RoundStarted
from server.hub.catchups import Catchups
from server.hub.chatroom import ChatRoom
from server.hub.decisions import Decisions
from server.hub.inbox import ActRequest, Attach, Detach, Pause, SeatSpec
from server.hub.outputs import (
    CatchupOut,
    ErrorOut,
    LeftOut,
    MatchEndOut,
    Outbound,
    Participant,
    PlayedForOut,
    PromptOut,
    SeatedOut,
    TablePlayerInfo,
)
from server.hub.pacing import Pacing
from server.hub.seating import Seating
from server.hub.wakeup import Wakeup


class Audience:
    """The participants of one table and what each is sent (see the module docstring)."""

    __slots__ = (
        "_decisions",
        "_match_id",
        "_seats",
        "_wakeup",
        "catchups",
        "outcome",
        "pacing",
        "players",
        "seating",
    )

    def __init__(
        self,
        match_id: str,
        seats: Sequence[SeatSpec],
        *,
        pacing: Pacing,
        seating: Seating,
        catchups: Catchups,
        decisions: Decisions,
        wakeup: Wakeup,
    ) -> None:
        self._match_id = match_id
        self._seats = seats
        self.players = tuple(TablePlayerInfo(s.name, s.kind) for s in seats)
        self.pacing = pacing
        self.seating = seating
        self.catchups = catchups
        self._decisions = decisions
        self._wakeup = wakeup
        self.outcome: MatchEndOut | None = None  # the match is over: what everyone is told

    # -- acts ----------------------------------------------------------------------------------------

    def seat_of(self, req: ActRequest) -> int | None:
        """The seat ``req``'s connection holds; None when it holds none: the act is then refused
        (``forbidden``) or, when it came right behind its resume's catch-up read, held until the
        catch-up is done (:meth:`Catchups.hold`)."""
        p = req.participant
        seat = self.seating.seat_of(p)
        if seat is None and not self.catchups.hold(p, req):
            why = self.seating.why_not_seated(p, self._match_id)
            p.deliver(ErrorOut(ErrorCode.FORBIDDEN, why, req.request_id))
        return seat

    # -- what was committed, and who must decide -------------------------------------------------------

    def publish(self, upto: int, now: float) -> None:
        """Send the events up to version ``upto`` to the connected seats, each redacted for its seat."""
        stream = self.pacing.stream
        first = stream.published + 1
        batch, rendered = stream.publish_rendered(upto, now)
        if batch:
            self.seating.publish(self._match_id, first, batch, rendered)
            self.pacing.published(now)

    def prompt_pending(self, state: MatchState, now: float) -> None:
        """Prompt each seat that must decide and is not prompted yet (:meth:`Decisions.prompt`)."""
        for seat in pending_seats(state):
            if self._decisions.prompt(state, seat, now) is not None:
                conn = self.seating.connection(seat)
                if conn is not None:
                    conn.deliver(self._prompt_out(state, seat, now, conn))

    def _prompt_out(self, state: MatchState | None, seat: int, now: float, to: Participant) -> PromptOut:
        paused_at = self._wakeup.paused_at  # while paused, the time left when the clocks stopped
        version, at = self.pacing.stream.published, now if paused_at is None else paused_at
        return self._decisions.prompt_for(
            self._match_id, seat, version, at, state=state, hints=to.wants_hints
        )

    def reseat(self, seats: Sequence[SeatSpec]) -> None:
        """The seats changed hands (a substitute): who holds each, and the names shown."""
        self._seats = seats
        self.players = tuple(TablePlayerInfo(s.name, s.kind) for s in seats)

    # -- seats and spectators coming and going ------------------------------------------------------

    def attach(self, a: Attach, state: MatchState | None, now: float) -> None:
        """Seat a connection (replacing the seat's previous one) or let it watch; it is told it
        follows this match, then gets: ``seated`` (a join), its catch-up, the moves played for it
        while it was gone, its open prompt, the outcome if the match is over (after which it
        follows nothing). The catch-up is the whole stream: versions the table forgot are read from
        the store first (:class:`Catchups`, outside the actor), and ``a`` comes back with them."""
        p, seat, match_id = a.participant, a.seat, self._match_id
        if not self.catchups.current(a):
            return  # a newer attach (or a detach) of this connection came after this one
        if seat is not None and self._seats[seat].account_id is None:
            p.deliver(ErrorOut(ErrorCode.FORBIDDEN, f"seat {seat} of {match_id} is a bot's"))
            return
        seating, stream, finished = self.seating, self.pacing.stream, self.outcome is not None
        if seat is None and not seating.feed and not finished:
            self.pacing.published(now)  # nobody watched: the count a new spectator starts from
        forgotten = self.catchups.forgotten(a, stream)
        if forgotten is None:  # being read, outside the actor: ``a`` comes back with them
            return
        if seat is not None:
            if not seating.seat(p, seat, match_id):
                return  # the connection is already over
        elif not seating.watch(p, match_id, caster=a.caster):
            return
        if a.announce:
            p.deliver(SeatedOut(match_id, seat, self.players))
        shown = stream.published if seat is not None else seating.feed.released
        events = seating.view(forgotten + stream.window(stream.base, shown), seating.viewer(p, seat))
        p.deliver(CatchupOut(match_id, seat, a.since_version, events))
        played = seating.take_played_for(seat) if seat is not None else ()
        if played:  # what the table played for this seat while it had no connection
            p.deliver(PlayedForOut(match_id, played))
        if seat is not None and seat in self._decisions.prompts and not finished:
            p.deliver(self._prompt_out(state, seat, now, p))
        if self.outcome is not None:
            p.deliver(self.outcome)
            p.released(match_id)
        self.catchups.release(p)  # the acts that came behind it, now

    def detach(self, d: Detach) -> None:
        p = d.participant
        self.catchups.cancel(p, refuse=self.seating.why_not_seated(p, self._match_id))
        if self.seating.drop(p, on_purpose=d.on_purpose) and d.notify:
            p.deliver(LeftOut(self._match_id))
            p.released(self._match_id)

    # -- pausing -------------------------------------------------------------------------------------

    def pause(self, p: Pause, state: MatchState | None, now: float) -> None:
        """Stop the clocks (:class:`Wakeup`) and tell everyone, or start them again and prompt again,
        with the time they have left, the seats that must decide; then ``p`` is done."""
        if p.paused and self.outcome is None and self._wakeup.pause(now):
            why = f" ({p.reason})" if p.reason else ""
            self.seating.broadcast(
                ErrorOut(ErrorCode.BUSY_RETRY, f"the table is paused{why}: every clock is stopped")
            )
        elif not p.paused and self._wakeup.unpause(now):
            for seat in self._decisions.prompts:
                conn = self.seating.connection(seat)
                if conn is not None:
                    conn.deliver(self._prompt_out(state, seat, now, conn))
        if not p.done.done():
            p.done.set_result(None)

    # -- the end -------------------------------------------------------------------------------------

    def close(self, outcome: MatchEndOut) -> None:
        """The match is over: nobody decides, nothing is held back, and ``outcome`` is what everyone
        is told (also whoever attaches later)."""
        self._decisions.close_all()
        self.pacing.hold_until = None
        self.outcome = outcome

    def finish(self, now: float, *, reveal: bool) -> None:
        """Tell everyone the outcome (``reveal``: the spectators get everything published first)."""
        assert self.outcome is not None
        if reveal:
            self.pacing.reveal_to_spectators(now)
        self.dismiss(self.outcome)

    def dismiss(self, item: Outbound) -> None:
        """``item`` to every seat and spectator, who then follow the table no more."""
        self.seating.broadcast(item)
        self.seating.release_all(self._match_id)

    # -- read by others (live tables, chat) ----------------------------------------------------------

    def shown_to_spectators(self, now: float) -> tuple[int, RoundStarted | None]:
        feed = self.pacing.feed
        return len(feed.members), feed.latest_round(self.pacing.stream, now)

    def chat_room(self, source: str) -> ChatRoom:
        return ChatRoom.of(self._match_id, source, self.seating, self.pacing.stream, self.outcome is not None)
