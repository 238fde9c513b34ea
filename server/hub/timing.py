"""Decision time: per-action time, the time bank, an absent seat's clock and bot delay.

All times are on the table's clock (seconds) and the timers in milliseconds (``TableTimers``).

A seat keeps its own clock whether or not it is connected: a seat without a connection gets the
same action time and bank as one that is there (plus ``disconnect_grace_ms``, 0 by default), and
the table plays for it only when they are spent. From then on the seat is *absent*: as on Tenhou,
each of its later decisions is played at once, until it comes back (a connection takes its seat),
so the table never waits twice for a player who is not there.

>>> keeper = TimeKeeper(TableTimers(action_ms=5000, bank_ms=10000))
>>> p = OpenPrompt(step=0, legal=frozenset(), sent_at=100.0)
>>> keeper.deadline(0, p, bot=False, connected=False, absent=False)
115.0
>>> keeper.deadline(0, p, bot=False, connected=False, absent=True)
100.0
>>> keeper.remaining(0, p, now=107.0)
(0, 8000)
>>> keeper.charge(0, p, now=107.0); keeper.banks[0]
8000.0
>>> keeper.stored_banks(1, p, now=109.0)
(8000, 6000, 10000, 10000)
"""

from __future__ import annotations

from dataclasses import dataclass

from server.engine.actions import Action, Discard
from server.hub.settings import TableTimers


@dataclass(slots=True)
class OpenPrompt:
    """A decision a seat has been asked for."""

    step: int  # the step at which this seat's decision opened (echoed by the act)
    legal: frozenset[Action]
    sent_at: float  # when the prompt was issued (the seat's time runs from here)


class TimeKeeper:
    """The timers of one table and the time bank left to each seat."""

    def __init__(self, timers: TableTimers, seats: int = 4) -> None:
        self.timers = timers
        self.banks: list[float] = [float(timers.bank_ms)] * seats  # milliseconds, one per seat

    def deadline(self, seat: int, prompt: OpenPrompt, *, bot: bool, connected: bool, absent: bool) -> float:
        """When the table answers for the seat: a bot's thinking time on its own turn (at once in a
        call window); at once for an ``absent`` seat (played for before and not back since); else
        action time plus bank, connected or not (a seat without a connection gets the extra
        ``disconnect_grace_ms`` on top)."""
        t = self.timers
        if bot:
            own_turn = any(isinstance(a, Discard) for a in prompt.legal)
            return prompt.sent_at + (t.bot_delay_ms / 1000 if own_turn else 0.0)
        if absent and not connected:
            return prompt.sent_at
        deadline = prompt.sent_at + (t.action_ms + self.banks[seat]) / 1000
        if not connected:
            deadline += t.disconnect_grace_ms / 1000
        return deadline

    def remaining(self, seat: int, prompt: OpenPrompt, now: float) -> tuple[int, int]:
        """(action time left, bank left) in whole milliseconds, for a prompt (re)sent at ``now``."""
        elapsed_ms = (now - prompt.sent_at) * 1000
        action_left = max(0.0, self.timers.action_ms - elapsed_ms)
        bank_left = max(0.0, self.banks[seat] - max(0.0, elapsed_ms - self.timers.action_ms))
        return int(action_left), int(bank_left)

    def stored_banks(self, seat: int | None, prompt: OpenPrompt | None, now: float) -> tuple[int, ...]:
        """The banks, one per seat (whole ms), as they will be once ``seat`` answered ``prompt`` at ``now``
        (:meth:`charge`; None: nobody answered): what the step log stores with the step."""
        banks = list(self.banks)
        if seat is not None and prompt is not None:
            over_ms = (now - prompt.sent_at) * 1000 - self.timers.action_ms
            banks[seat] = max(0.0, banks[seat] - max(0.0, over_ms))
        return tuple(int(b) for b in banks)

    def restore(self, banks: tuple[int, ...] | None) -> None:
        """The banks a restarted table resumes with (the last stored step's; crash recovery). None
        (a log stored before banks were kept): they stay full."""
        if banks is not None and len(banks) == len(self.banks) and all(isinstance(b, int) for b in banks):
            self.banks = [float(min(max(0, b), self.timers.bank_ms)) for b in banks]

    def charge(self, seat: int, prompt: OpenPrompt, now: float) -> None:
        """The seat answered (or was answered for) at ``now``: time beyond the action time comes
        out of its bank."""
        over_ms = (now - prompt.sent_at) * 1000 - self.timers.action_ms
        if over_ms > 0:
            self.banks[seat] = max(0.0, self.banks[seat] - over_ms)
