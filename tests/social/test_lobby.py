"""Lobby chat's pure rules (server/social/lobby.py): channels and the history settings."""

from __future__ import annotations

import doctest

import pytest

from server.social import chat, lobby
from server.social.chat import ChatError, ChatErrorCode
from server.social.lobby import GENERAL, LobbySettings, check_channel


def test_channels_are_general_or_a_rooms() -> None:
    rooms = ("queue:tenhou", "ranked:open:east")
    assert check_channel(GENERAL, rooms) == "general"
    assert check_channel("ranked:open:east", rooms) == "ranked:open:east"
    for bad in ("queue:nope", "", None, 7, "General"):
        with pytest.raises(ChatError) as refused:
            check_channel(bad, rooms)
        assert refused.value.code is ChatErrorCode.UNKNOWN_CHANNEL


def test_history_and_retention_settings() -> None:
    s = LobbySettings(history=10, retention_s=60)
    assert s.oldest(1000.0) == 940.0
    assert LobbySettings(retention_s=0).oldest(1000.0) == 0.0  # kept for ever
    for bad in ({"history": -1}, {"history": 201}, {"retention_s": -1.0}):
        with pytest.raises(ValueError):
            LobbySettings(**bad)


def test_doctests() -> None:
    for module in (lobby, chat):
        assert doctest.testmod(module).failed == 0
