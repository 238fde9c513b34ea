"""Decision time: per-action time, the time bank, the disconnected-seat grace and bot delay.

All times are on the table's clock (seconds) and the timers in milliseconds (``TableTimers``).

>>> keeper = TimeKeeper(TableTimers(action_ms=5000, bank_ms=10000))
>>> p = OpenPrompt(step=0, legal=frozenset(), sent_at=100.0)
>>> keeper.deadline(0, p, bot=False, gone_since=None)
115.0
>>> keeper.remaining(0, p, now=107.0)
(0, 8000)
>>> keeper.charge(0, p, now=107.0); keeper.banks[0]
8000.0
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

    def __init__(self, timers: TableTimers) -> None:
        self.timers = timers
        self.banks: list[float] = [float(timers.bank_ms)] * 4  # milliseconds

    def deadline(self, seat: int, prompt: OpenPrompt, *, bot: bool, gone_since: float | None) -> float:
        """When the table answers for the seat: a bot's thinking time on its own turn (at once in a
        call window); else action time plus bank, cut short to the grace when the seat has no
        connection (``gone_since``)."""
        t = self.timers
        if bot:
            own_turn = any(isinstance(a, Discard) for a in prompt.legal)
            return prompt.sent_at + (t.bot_delay_ms / 1000 if own_turn else 0.0)
        deadline = prompt.sent_at + (t.action_ms + self.banks[seat]) / 1000
        if gone_since is not None:
            gone = max(prompt.sent_at, gone_since)
            deadline = min(deadline, gone + t.disconnect_grace_ms / 1000)
        return deadline

    def remaining(self, seat: int, prompt: OpenPrompt, now: float) -> tuple[int, int]:
        """(action time left, bank left) in whole milliseconds, for a prompt (re)sent at ``now``."""
        elapsed_ms = (now - prompt.sent_at) * 1000
        action_left = max(0.0, self.timers.action_ms - elapsed_ms)
        bank_left = max(0.0, self.banks[seat] - max(0.0, elapsed_ms - self.timers.action_ms))
        return int(action_left), int(bank_left)

    def charge(self, seat: int, prompt: OpenPrompt, now: float) -> None:
        """The seat answered (or was answered for) at ``now``: time beyond the action time comes
        out of its bank."""
        over_ms = (now - prompt.sent_at) * 1000 - self.timers.action_ms
        if over_ms > 0:
            self.banks[seat] = max(0.0, self.banks[seat] - over_ms)
