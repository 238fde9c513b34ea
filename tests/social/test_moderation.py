"""Mutes, chat bans and suspensions (server/social/moderation.py)."""

from __future__ import annotations

import dataclasses

import pytest

from server.social.moderation import (
    ModerationError,
    SanctionKind,
    check_may_chat,
    check_may_play,
    delivered,
    new_sanction,
)


def test_chat_ban_ends() -> None:
    ban = new_sanction(
        "bob", SanctionKind.CHAT_BAN, "spam in the lobby", given_by="ops", now=1000.0, minutes=10
    )
    assert ban.ends == 1600.0
    with pytest.raises(ModerationError, match="you may not chat until 1600: spam in the lobby") as err:
        check_may_chat([ban], 1599.0)
    assert err.value.code == "chat_banned"
    check_may_chat([ban], 1600.0)
    check_may_play([ban], 1000.0)  # a chat ban does not stop play


def test_suspension_stops_play_and_chat_until_lifted() -> None:
    s = new_sanction("bob", SanctionKind.SUSPENSION, "abuse", given_by="ops", now=0.0, minutes=None)
    with pytest.raises(ModerationError) as err:
        check_may_play([s], 10**9)
    assert err.value.code == "suspended" and "until lifted" in str(err.value)
    with pytest.raises(ModerationError):
        check_may_chat([s], 5.0)
    check_may_play([dataclasses.replace(s, lifted=True)], 5.0)


def test_a_sanction_needs_a_reason_and_a_length() -> None:
    with pytest.raises(ModerationError, match="needs a reason"):
        new_sanction("bob", SanctionKind.CHAT_BAN, "  ", given_by="ops", now=0.0, minutes=5)
    with pytest.raises(ModerationError, match="positive number of minutes"):
        new_sanction("bob", SanctionKind.CHAT_BAN, "x", given_by="ops", now=0.0, minutes=0)


def test_mutes() -> None:
    assert not delivered("bob", frozenset({"bob"}))
    assert delivered("cat", frozenset({"bob"}))
