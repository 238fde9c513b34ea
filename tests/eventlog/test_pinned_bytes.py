"""The bytes the server stores and sends, pinned: a refactoring of the codecs must change none of them.

Bots play a few fixed seeded matches (calls among them), every kind of action is encoded once, and
the hand-built scenarios of the golden export tests add the rare endings (a double ron, chankan,
pao, the abortive draws). The test renders what the server keeps and what it sends, and compares one
SHA-256 per kind of output with the digest recorded when the formats were last changed on purpose:

* ``stored``: each step row's columns as the store writes them (the action and the events of
  :func:`server.hub.steplog.step_record`, encoded by :func:`server.store.batch.encoded_step`), and
  the hand projection's rows and win summaries (``hand_results``);
* ``wire``: every event frame each seat and a spectator receive (redacted for them), the prompt's
  legal actions of the seat that decided and the ``act`` the bot answered with.

A digest that changes means stored logs or clients would see different bytes: that is a new event
log format (``server.eventlog.codec.FORMAT_VERSION``) or a new protocol version, never a refactoring.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any, get_args

from client_protocol.codec import encode
from client_protocol.messages import Act, EventMessage
from server.bots.selfplay import Step, play
from server.engine import actions as act
from server.engine import events as ev
from server.engine import legal_actions, redact
from server.engine.rules import preset
from server.engine.state import MatchState
from server.eventlog.codec import FORMAT_VERSION, encode_action, encode_events
from server.hub.steplog import step_record
from server.hub.wire import action_from_wire, action_to_wire, event_to_wire, legal_actions_to_wire
from server.store.batch import encoded_step, json_text, sqlite_datetime
from server.store.projection import HandEnd, HandStart, hand_ops
from tests.records.golden_scenarios import SCENARIOS

# (seed, bots): random bots call; the golden scenarios add the rare
# endings (double ron, chankan, pao, abortive draws).
MATCHES = (
    (b"pinned-0", ("greedy", "greedy", "greedy", "greedy")),
    (b"pinned-1", ("greedy", "random", "greedy", "random")),
    (b"pinned-2", ("random", "greedy", "random", "greedy")),
)

STORED_SHA256 = "7e4ef21bce28459a2a018f476cd1b0fb83c24d5ce4db886b212814c9efa139d4"
WIRE_SHA256 = "71b713f4bcaf59bdcc15119c9228c81f08c9084996e6162690cad5dae6f1f0c1"


EVERY_ACTION: tuple[act.Action, ...] = (
    act.Discard(35, tsumogiri=True),
    act.Riichi(4, tsumogiri=False),
    act.Tsumo(),
    act.Ron(),
    act.Pass(),
    act.Chi((1, 2)),
    act.Pon((35, 14)),
    act.Daiminkan((27, 27, 27)),
    act.Ankan((14, 14, 15, 35)),
    act.Kakan(33),
    act.KyuushuKyuuhai(),
)


def _render() -> tuple[str, str, set[type[ev.Event]]]:
    stored, sent = hashlib.sha256(), hashlib.sha256()
    kinds: set[type[ev.Event]] = set()
    for seed, bots in MATCHES:
        match_id = f"m-{seed.decode()}"
        version = 0
        state: MatchState | None = None
        for n, item in enumerate(play(preset("tenhou"), seed, bots)):
            seat: int | None = None
            action: act.Action | None = None
            if isinstance(item, Step):
                assert state is not None
                t, seat, action = item.transition, item.seat, item.action
                legal = legal_actions_to_wire(legal_actions(state, seat))
                wire_action = action_to_wire(action)
                assert action_from_wire(wire_action) == action
                for a in legal:
                    sent.update(encode(Act(request_id=n, step=n, action=a)))
                sent.update(encode(Act(request_id=n, step=n, action=wire_action)))
            else:
                t = item
            state = t.state
            record = step_record(
                match_id,
                t,
                seat=seat,
                action=action,
                request_id=None if seat is None else n,
                applied_at=1_700_000_000.0 + n * 0.25,
                source=None if seat is None else "bot",
                banks=None if seat is None else (1000, 2000, 3000, 4000),
            )
            for column in encoded_step(record, sqlite_datetime):
                stored.update(repr(column).encode())
            for op in hand_ops(match_id, t.step, record.events, record.format_version):
                values = op.values if isinstance(op, HandStart) else op.values()
                assert isinstance(op, HandStart | HandEnd)
                stored.update(json_text(values).encode())
            version = _send(sent, match_id, version, t.events, kinds)
    for action in EVERY_ACTION:  # the kinds of action the matches above may not play
        stored.update(json_text(encode_action(action)).encode())
        sent.update(encode(Act(request_id=0, step=0, action=action_to_wire(action))))
    for name, scenario in SCENARIOS.items():
        events = tuple(scenario())
        stored.update(json_text(encode_events(events)).encode())
        for op in hand_ops(name, 0, encode_events(events), FORMAT_VERSION):
            stored.update(json_text(op.values if isinstance(op, HandStart) else op.values()).encode())
        _send(sent, name, 0, events, kinds)
    return stored.hexdigest(), sent.hexdigest(), kinds


def _send(
    sent: Any, match_id: str, version: int, events: Iterable[ev.Event], kinds: set[type[ev.Event]]
) -> int:
    """Every frame of ``events`` to each seat and to a spectator; returns the last version."""
    for event in events:
        kinds.add(type(event))
        version += 1
        for viewer in (0, 1, 2, 3, None):
            message = EventMessage(
                match_id=match_id, version=version, event=event_to_wire(redact(event, viewer))
            )
            sent.update(encode(message))
    return version


def test_stored_and_sent_bytes_are_unchanged() -> None:
    stored, sent, kinds = _render()
    # the pinned matches are four-player ones; the three-player north (NorthDeclared) is folded and
    # checked against the engine in tests/protocol/test_engine_wire.py's three-player matches
    four_player = set(get_args(ev.Event)) - {ev.NorthDeclared}
    assert kinds == four_player, "the seeds no longer cover every kind of four-player event"
    assert (stored, sent) == (STORED_SHA256, WIRE_SHA256)
