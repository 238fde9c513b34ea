"""Chat rules: the collusion rule, spectator isolation, stamps, the size cap and normalisation
(server/social/chat.py)."""

from __future__ import annotations

import doctest

import pytest

import server.social.chat
from server.social.chat import (
    MAX_TEXT,
    ROOM_POLICIES,
    STAMPS,
    Audience,
    ChatError,
    ChatErrorCode,
    ChatPolicy,
    FreeText,
    Role,
    audience,
    check_stamp,
    check_text,
    hears,
    may_send_text,
)


def code(exc: pytest.ExceptionInfo[ChatError]) -> ChatErrorCode:
    return exc.value.code


@pytest.mark.parametrize("room", ["ranked", "tournament", "quick"])
def test_no_free_text_from_seated_players_while_a_hand_is_live(room: str) -> None:
    policy = ROOM_POLICIES[room]
    with pytest.raises(ChatError) as err:
        may_send_text(Role.SEATED, policy, hand_live=True)
    assert code(err) is ChatErrorCode.TEXT_OFF
    may_send_text(Role.SEATED, policy, hand_live=False)  # between hands: allowed
    check_stamp("gg", policy)  # stamps always


@pytest.mark.parametrize("room", ["private", "lobby"])
def test_free_text_on_in_private_tables_and_the_lobby(room: str) -> None:
    may_send_text(Role.SEATED, ROOM_POLICIES[room], hand_live=True)


def test_text_off_and_stamps_off() -> None:
    with pytest.raises(ChatError) as err:
        may_send_text(Role.SEATED, ChatPolicy(FreeText.OFF), hand_live=False)
    assert code(err) is ChatErrorCode.TEXT_OFF
    with pytest.raises(ChatError) as err:
        check_stamp("gg", ChatPolicy(stamps=False))
    assert code(err) is ChatErrorCode.STAMPS_OFF
    with pytest.raises(ChatError) as err:
        may_send_text(Role.SPECTATOR, ChatPolicy(spectator_text=False), hand_live=False)
    assert code(err) is ChatErrorCode.TEXT_OFF


def test_spectators_never_reach_the_seated_players() -> None:
    heard = audience(Role.SPECTATOR)
    assert heard is Audience.SPECTATORS
    assert hears(Role.SPECTATOR, heard) and not hears(Role.SEATED, heard)
    # spectators may talk among themselves even while ranked hands are live
    may_send_text(Role.SPECTATOR, ROOM_POLICIES["ranked"], hand_live=True)
    table = audience(Role.SEATED)
    assert hears(Role.SEATED, table) and hears(Role.SPECTATOR, table)
    assert not hears(Role.LOBBY, table) and hears(Role.LOBBY, audience(Role.LOBBY))


def test_text_is_normalised_and_capped() -> None:
    policy = ChatPolicy()
    assert check_text("a\tb\nc\x00d\u202ee", policy) == "a b cde"  # controls and bidi overrides go
    assert check_text("ｇｇ", policy) == "ｇｇ"  # full-width kept as typed (NFC, not NFKC)
    assert check_text("e\u0301", policy) == "\u00e9"  # composed
    assert (
        check_text("<script>alert(1)</script>", policy) == "<script>alert(1)</script>"
    )  # escaped where shown
    assert len(check_text("x" * MAX_TEXT, policy)) == MAX_TEXT
    for bad, expected in (("x" * (MAX_TEXT + 1), ChatErrorCode.TOO_LONG), ("  \u200b ", ChatErrorCode.EMPTY)):
        with pytest.raises(ChatError) as err:
            check_text(bad, policy)
        assert code(err) is expected
    with pytest.raises(ChatError):
        check_text(42, policy)


def test_stamps_are_a_fixed_set() -> None:
    assert len(set(STAMPS)) == len(STAMPS)
    with pytest.raises(ChatError) as err:
        check_stamp("<img>", ChatPolicy())
    assert code(err) is ChatErrorCode.UNKNOWN_STAMP


def test_doctests() -> None:
    assert doctest.testmod(server.social.chat).failed == 0
