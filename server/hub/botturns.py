"""Who answers when the table must answer for a seat: its built-in bot, or the engine's default.

A bot seat's "deadline" is when its bot answers (:meth:`~server.hub.timing.TimeKeeper.deadline`);
a player's is when its time and bank ran out, connected or not (at once for an absent seat:
:mod:`server.hub.timing`). Then the table asks
:meth:`BotTurns.choose` for the action and the source stored with the step (``STEP_SOURCES``):

* ``bot``: the seat's built-in bot chose (it sees only its seat's view: ``seat_view``); a bot
  that fails or chooses something illegal is logged and the default is played for it;
* ``timeout``: a connected player's time ran out; ``disconnected``: the seat had no connection;
  ``left``: its player left the table on purpose (:mod:`server.hub.seating`).

The default (``default_action``) passes in a call window and discards the drawn tile on a turn.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from server.bots import Bot, get_bot
from server.engine import MatchState, default_action
from server.engine.actions import Action
from server.engine.views import seat_view
from server.hub.inbox import SeatSpec


class BotTurns:
    """The built-in bots of one table's seats, and the defaults played for the others."""

    __slots__ = ("_bots", "_log", "_match_id", "_names")

    def __init__(
        self,
        match_id: str,
        seats: Sequence[SeatSpec],
        log: logging.LoggerAdapter[logging.Logger],
        *,
        bots: Callable[[str], Bot] = get_bot,
    ) -> None:
        self._match_id = match_id
        self._bots: list[Bot | None] = [bots(s.bot) if s.bot is not None else None for s in seats]
        self._names = [s.bot for s in seats]
        self._log = log

    @property
    def bot_seats(self) -> frozenset[int]:
        return frozenset(seat for seat, bot in enumerate(self._bots) if bot is not None)

    def choose(
        self, state: MatchState, seat: int, legal: frozenset[Action], *, presence: str
    ) -> tuple[Action, str]:
        """The action played for ``seat`` now, and who decided it (its step's source); ``presence``
        is the human seat's (:meth:`Seating.presence`: ``timeout``, ``left`` or ``disconnected``)."""
        bot = self._bots[seat]
        action: Action | None = None
        if bot is not None:
            try:
                action = bot(seat_view(state, seat), legal)
            except Exception:
                self._log.exception(
                    "bot %s of table %s failed; playing the default", self._names[seat], self._match_id
                )
            if action is not None and action not in legal:
                self._log.error("bot %s chose an illegal %r; playing the default", self._names[seat], action)
                action = None
        if action is not None:
            return action, "bot"
        action = default_action(state, seat)
        if bot is not None:
            return action, "bot"
        # Its time and bank ran out while connected, or while it had no connection (or it is absent).
        return action, presence
