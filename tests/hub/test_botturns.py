"""Who answers for a seat: its bot, a failing or cheating bot's default, a player's timeout."""

from __future__ import annotations

import logging

import pytest

from server.bots import Bot, get_bot
from server.domain.records import AccountKind
from server.engine import default_action, legal_actions, new_match
from server.engine.actions import Action, Pass
from server.engine.views import SeatView, seat_view
from server.hub.botturns import BotTurns
from server.hub.inbox import SeatSpec
from tests.hub.helpers import EAST

LOG = logging.LoggerAdapter(logging.getLogger("tests.botturns"), {"match_id": "m"})


def crashing(view: SeatView, legal: frozenset[Action]) -> Action:
    raise RuntimeError("the bot broke")


def cheating(view: SeatView, legal: frozenset[Action]) -> Action:
    return Pass()  # never legal on its own turn


def turns(dealer: str) -> BotTurns:
    bots: dict[str, Bot] = {"crashing": crashing, "cheating": cheating}
    seats = [
        SeatSpec(name="dealer", kind=AccountKind.BOT, bot=dealer)
        if dealer != "human"
        else SeatSpec(name="dealer", kind=AccountKind.GUEST, account_id="a"),
        *(SeatSpec(name=f"b{i}", kind=AccountKind.BOT, bot="tsumogiri") for i in range(3)),
    ]
    return BotTurns("m", seats, LOG, bots=lambda name: bots.get(name) or get_bot(name))


def test_a_bot_seat_plays_its_bots_choice() -> None:
    t = new_match(EAST, b"turns")
    legal = legal_actions(t.state, 0)
    chooser = turns("tsumogiri")
    assert chooser.bot_seats == {0, 1, 2, 3}
    action, source = chooser.choose(t.state, 0, legal, presence="disconnected")
    assert source == "bot" and action == get_bot("tsumogiri")(seat_view(t.state, 0), legal)


@pytest.mark.parametrize(("bot", "logged"), [("crashing", "failed"), ("cheating", "chose an illegal")])
def test_a_bot_that_fails_or_cheats_gets_the_default(
    bot: str, logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    t = new_match(EAST, b"turns")
    with caplog.at_level(logging.ERROR, logger="tests.botturns"):
        action, source = turns(bot).choose(t.state, 0, legal_actions(t.state, 0), presence="disconnected")
    assert (action, source) == (default_action(t.state, 0), "bot")
    assert logged in caplog.text


def test_a_players_default_says_whether_it_was_connected() -> None:
    t = new_match(EAST, b"turns")
    chooser = turns("human")
    assert chooser.bot_seats == {1, 2, 3}
    legal = legal_actions(t.state, 0)
    default = default_action(t.state, 0)
    for presence in ("timeout", "disconnected", "left"):
        assert chooser.choose(t.state, 0, legal, presence=presence) == (default, presence)
