"""Every message and event survives encode -> decode unchanged, and the samples cover every type."""

from __future__ import annotations

import json

import msgspec
import pytest

from client_protocol import events as w
from client_protocol.codec import decode_client, decode_server, encode
from client_protocol.messages import (
    CLIENT_MESSAGE_TYPES,
    SERVER_MESSAGE_TYPES,
    Act,
    Action,
    ActionType,
    ClientMessage,
    EventMessage,
    ServerMessage,
)
from tests.protocol.samples import CLIENT_MESSAGES, EVENTS, SERVER_MESSAGES


def _tag(cls: type[msgspec.Struct]) -> str:
    return str(cls.__struct_config__.tag)


@pytest.mark.parametrize("message", CLIENT_MESSAGES, ids=lambda m: _tag(type(m)))
def test_client_message_round_trip(message: ClientMessage) -> None:
    data = encode(message)
    assert decode_client(data) == message
    assert decode_client(data.decode()) == message
    assert json.loads(data)["type"] == _tag(type(message))


@pytest.mark.parametrize("message", SERVER_MESSAGES, ids=lambda m: _tag(type(m)))
def test_server_message_round_trip(message: ServerMessage) -> None:
    data = encode(message)
    assert decode_server(data) == message
    assert json.loads(data)["type"] == _tag(type(message))


def test_samples_cover_every_type() -> None:
    assert {type(m) for m in CLIENT_MESSAGES} == set(CLIENT_MESSAGE_TYPES)
    assert {type(m) for m in SERVER_MESSAGES} == set(SERVER_MESSAGE_TYPES)
    assert {type(e) for e in EVENTS} == set(w.EVENT_TYPES)
    acts = {m.action.type for m in CLIENT_MESSAGES if isinstance(m, Act)}
    assert acts == set(ActionType)


def test_tags_are_unique_snake_case() -> None:
    for types in (CLIENT_MESSAGE_TYPES, SERVER_MESSAGE_TYPES, w.EVENT_TYPES):
        tags = [_tag(cls) for cls in types]
        assert len(set(tags)) == len(tags)
        assert all(tag.islower() and tag.replace("_", "").isalpha() for tag in tags)


def test_hidden_tiles_are_explicit_nulls() -> None:
    drawn = json.loads(
        encode(EventMessage(match_id="m", version=1, event=w.TileDrawn(seat=1, tile=None, rinshan=False)))
    )
    assert drawn["event"] == {"type": "tile_drawn", "seat": 1, "tile": None, "rinshan": False}
    started = next(e for e in EVENTS if isinstance(e, w.RoundStarted))
    hands = json.loads(encode(EventMessage(match_id="m", version=2, event=started)))["event"]["hands"]
    assert hands[1:] == [None, None, None]
    assert hands[0][5] == "0m"


def test_action_omits_fields_it_does_not_have() -> None:
    assert msgspec.json.encode(Action(type=ActionType.PASS)) == b'{"type":"pass"}'
    assert json.loads(msgspec.json.encode(Action(type=ActionType.DISCARD, tile="0p", tsumogiri=False))) == {
        "type": "discard",
        "tile": "0p",
        "tsumogiri": False,
    }


def test_design_example_act_decodes() -> None:
    # The discard of DESIGN.md, "one discard, end to end", byte for byte.
    message = decode_client(
        '{"type":"act","request_id":42,"step":57,"action":{"type":"discard","tile":"0p"}}'
    )
    assert message == Act(request_id=42, step=57, action=Action(type=ActionType.DISCARD, tile="0p"))


def test_server_messages_ignore_unknown_fields() -> None:
    # A newer server may add fields; an older client must still read the message.
    assert decode_server(b'{"type":"pong","nonce":1,"server_time":123}') == decode_server(
        b'{"type":"pong","nonce":1}'
    )
    event = (
        b'{"type":"event","match_id":"m","version":1,"event":{"type":"dora_revealed","indicator":"1z","x":0}}'
    )
    assert decode_server(event) == EventMessage(match_id="m", version=1, event=w.DoraRevealed(indicator="1z"))
