"""Substitutes at a running table (``docs/tournaments.md``, "Substitutes"): an organizer hands an
absent or dropped player's seat to another account or to a built-in bot flagged as substitute,
without stopping the table. Used by the table factory (:meth:`server.hub.tables.LocalTable.substitute`).

A substitution changes who may hold the seat, never the match: the seat keeps its score and its
place in the stored match (whose seats stay the entrants of record); the seat's name is the
substitute's from then on. The previous connection is let go (told ``left``).

* **An account** takes the seat by ``resume`` (its lobby ``welcome`` lists the seat).
* **A built-in bot** plays the seat through :class:`BotStandIn`, a participant that holds the seat
  as a connection does: prompted like a player, it answers with the bot's choice on the seat's own
  view (``seat_view``), after the table's bot delay. Its moves are stored as a player's are; the
  event service records from which step the substitute played (``StandInRecord.from_step``), which
  is what marks them as the substitute's.
"""

from __future__ import annotations

import asyncio
import itertools
import logging

from server.bots import BOTS, get_bot
from server.domain.records import Account, AccountKind
from server.engine import default_action
from server.engine.views import seat_view
from server.hub.inbox import ActRequest, Attach, Detach, SeatSpec
from server.hub.outputs import Outbound, PromptOut
from server.hub.table import TableActor
from server.services.tables import SeatKind, SeatRequest, TableSpecError

log = logging.getLogger(__name__)

STAND_IN_PREFIX = "standin:"


class BotStandIn:
    """A built-in bot holding a seat as a connection would (a substitute): it answers each prompt
    with the bot's choice (the default action if the bot fails or chooses something illegal)."""

    _ids = itertools.count(1)

    def __init__(self, table: TableActor, seat: int, bot: str) -> None:
        self._table = table
        self._seat = seat
        self._bot_name = bot
        self._bot = get_bot(bot)
        self._requests = itertools.count(1)
        self._id = f"{STAND_IN_PREFIX}{bot}:{table.match_id}:{seat}:{next(self._ids)}"
        self._account = Account(self._id, f"{bot} (substitute)", AccountKind.BOT, frozenset(), 0.0)
        self.released_from: set[str] = set()

    @property
    def participant_id(self) -> str:
        return self._id

    @property
    def account(self) -> Account:
        return self._account

    @property
    def wants_hints(self) -> bool:
        return False

    def attached(self, match_id: str, seat: int | None) -> bool:
        return True

    def released(self, match_id: str) -> None:
        self.released_from.add(match_id)

    def deliver(self, item: Outbound) -> None:
        if not isinstance(item, PromptOut) or item.seat != self._seat:
            return
        state = self._table.state
        if state is None:
            return
        action = None
        try:
            action = self._bot(seat_view(state, self._seat), item.legal)
        except Exception:
            log.exception("substitute bot %s failed; playing the default", self._bot_name)
        if action is None or action not in item.legal:
            action = default_action(state, self._seat)
        request = ActRequest(self, next(self._requests), item.step, action)
        delay = self._table.timers.bot_delay_ms / 1000
        if delay > 0:
            asyncio.get_running_loop().call_later(delay, self._table.submit, request)
        else:
            self._table.submit(request)


def seat_spec(by: SeatRequest, table: TableActor, seat: int) -> tuple[SeatSpec, BotStandIn | None]:
    """The seat's new description and, for a bot, the stand-in that will hold it."""
    if by.kind is SeatKind.PLAYER:
        account = by.account
        assert account is not None  # SeatRequest checks it
        if table.seat_of_account(account.id) is not None:
            raise TableSpecError(f"{account.id} already has a seat at {table.match_id}")
        return SeatSpec(name=account.name, kind=account.kind, account_id=account.id), None
    if by.kind is SeatKind.BOT and by.bot in BOTS:
        stand_in = BotStandIn(table, seat, by.bot)
        spec = SeatSpec(name=stand_in.account.name, kind=AccountKind.BOT, account_id=stand_in.account.id)
        return spec, stand_in
    raise TableSpecError(f"a substitute is an account or a built-in bot ({sorted(BOTS)}), got {by.bot!r}")


def hand_over(table: TableActor, seat: int, spec: SeatSpec, stand_in: BotStandIn | None) -> int:
    """Give ``seat`` to ``spec`` now (no await: nothing else runs meanwhile); the last step before."""
    previous = table.chat_room().seats
    old = previous[seat] if seat < len(previous) else None
    table.give_seat(seat, spec)
    if old is not None:
        table.submit(Detach(old, notify=True))
    if stand_in is not None:
        table.submit(Attach(stand_in, seat, table.version, announce=False))
    return table.state.step if table.state is not None else 0
