"""Chat policy per room and per event (docs/social.md): the collusion rule holds by default at
ranked, quick-match and tournament tables while a hand is live; a table's ``chat`` tag (an event's
setting, an administrator's table) or the server's ``--table-chat`` changes it."""

from __future__ import annotations

import pytest

from server.domain.tournaments import EventSettings
from server.engine.rules import PRESETS
from server.services.eventrules import EventError, check_settings
from server.services.social import SocialService
from server.social.chat import ChatError, FreeText, Role
from tests.hub.test_table_chat import Room, say


def _seated_line(room: Room) -> list[str]:
    say(room.seats[0][0], "call the dealer's tiles?")
    return [m.get("code") or m["type"] for m in room.received()[0]]


@pytest.mark.parametrize("source", ["ranked:open:east", "event:7:r1:t2", "queue:tenhou"])
def test_the_collusion_rule_holds_by_default(source: str) -> None:
    room = Room(source)
    room.table.hand_live = True
    assert _seated_line(room) == ["text_off"]


@pytest.mark.parametrize("source", ["ranked:open:east", "event:7:r1:t2"])
def test_a_table_whose_chat_tag_is_on_allows_free_text_during_a_hand(source: str) -> None:
    room = Room(source)
    room.desk.tags_of = lambda match_id: {"chat": "on"} if match_id == "m-1" else {}
    room.table.hand_live = True
    assert _seated_line(room) == ["chat"]


def test_a_private_table_whose_chat_tag_is_off_allows_stamps_only() -> None:
    room = Room("private:ABCD")
    room.desk.tags_of = lambda _match_id: {"chat": "off"}
    assert _seated_line(room) == ["text_off"]
    room.seats[0][0].receive('{"type": "stamp", "stamp": "gg"}')
    assert [m.get("stamp") for m in room.received()[0]] == ["gg"]


def test_an_unknown_tag_value_keeps_the_rooms_rule() -> None:
    room = Room("ranked:open:east")
    room.desk.tags_of = lambda _match_id: {"chat": "loud"}
    room.table.hand_live = True
    assert _seated_line(room) == ["text_off"]


def test_the_server_sets_a_room_kinds_rule() -> None:
    service = SocialService(lambda: 0.0)
    service.set_room_text("ranked", "on")
    assert service.policy("ranked:open:east").seated_text is FreeText.ON
    assert service.policy("event:1:r1:t1").seated_text is FreeText.BETWEEN_HANDS
    service.compose("a", "a", Role.SEATED, 0, source="ranked:open:east", hand_live=True, text="hi")
    with pytest.raises(ValueError):
        service.set_room_text("ranked", "loud")
    with pytest.raises(ValueError):
        service.set_room_text("nowhere", "on")
    with pytest.raises(ChatError):
        service.compose("a", "a", Role.SEATED, 0, source="event:1:r1:t1", hand_live=True, text="hi")


def test_an_events_chat_setting_is_checked() -> None:
    base = EventSettings(name="Cup", ruleset_json=PRESETS["tenhou"].to_json(), rounds=2)
    check_settings(base)
    check_settings(EventSettings(name="Cup", ruleset_json=base.ruleset_json, rounds=2, chat="on"))
    with pytest.raises(EventError):
        check_settings(EventSettings(name="Cup", ruleset_json=base.ruleset_json, rounds=2, chat="loud"))
