"""The live mjai conversion the /mjai endpoint uses (``server.records.export_mjai.MjaiStream``):
fed a seat's redacted events transition by transition, as the table publishes them, it writes
exactly the offline per-seat export of the whole log, line for line."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from typing import Any

import pytest

from server.bots.selfplay import Step, play
from server.engine.events import Event, TileDiscarded
from server.engine.rules import preset
from server.engine.views import redact, redact_all
from server.records.export_mjai import MjaiStream, export_mjai
from tests.records.golden_scenarios import SCENARIOS

MATCHES = [
    ("tenhou", ("greedy", "random", "greedy", "random")),
    ("mahjongsoul", ("random", "random", "random", "random")),
    ("ema", ("random", "greedy", "random", "greedy")),
]


@cache
def transitions(ruleset: str, bots: tuple[str, ...]) -> tuple[tuple[Event, ...], ...]:
    items = play(preset(ruleset), f"stream-{ruleset}".encode(), bots)
    return tuple((i.transition if isinstance(i, Step) else i).events for i in items)


def offline(events: list[Event], seat: int, names: tuple[str, ...]) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in export_mjai(events, names=names, viewer=seat).splitlines()]
    lines[0] = {"type": "start_game", "id": seat, **lines[0]}
    return lines


@pytest.mark.parametrize(("ruleset", "bots"), MATCHES, ids=[m[0] for m in MATCHES])
def test_fed_transition_by_transition_it_writes_the_offline_export(
    ruleset: str, bots: tuple[str, ...]
) -> None:
    batches = transitions(ruleset, bots)
    events = [e for batch in batches for e in batch]
    for seat in range(4):
        stream = MjaiStream(seat=seat, names=bots)
        got = [line for batch in batches for line in stream.feed(redact_all(batch, seat))]
        assert got == offline(events, seat, bots)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenarios_in_one_batch_and_event_by_event(name: str) -> None:
    """Whole: identical. One event at a time (cuts inside transitions, which the hub never makes
    where a decision is due): the same lines, an open kan's dora at worst after the discard."""
    events = SCENARIOS[name]()
    names = ("a", "b", "c", "d")
    for seat in range(4):
        want = offline(events, seat, names)
        assert MjaiStream(seat=seat, names=names).feed([redact(e, seat) for e in events]) == want
        stream = MjaiStream(seat=seat, names=names)
        got = [line for e in events for line in stream.feed([redact(e, seat)])]
        assert Counter(map(json.dumps, got)) == Counter(map(json.dumps, want))


def test_a_line_shown_ahead_is_not_sent_again() -> None:
    batches = transitions(*MATCHES[0])
    events = [e for batch in batches for e in batch]
    riichi = next(
        i for i, b in enumerate(batches) if any(isinstance(e, TileDiscarded) and e.riichi for e in b)
    )
    seat = next(e.seat for e in batches[riichi] if isinstance(e, TileDiscarded) and e.riichi)
    stream = MjaiStream(seat=seat, names=MATCHES[0][1])
    got = [line for batch in batches[:riichi] for line in stream.feed(redact_all(batch, seat))]
    echo = {"type": "reach", "actor": seat}
    stream.shown(echo)  # the hub echoes the bot's reach before its discard arrives
    got.append(echo)
    got += [line for batch in batches[riichi:] for line in stream.feed(redact_all(batch, seat))]
    assert got == offline(events, seat, MATCHES[0][1])


def test_an_echo_never_confirmed_does_not_hold_back_the_rest() -> None:
    batches = transitions(*MATCHES[0])
    events = [e for batch in batches for e in batch]
    stream = MjaiStream(seat=0, names=MATCHES[0][1])
    got = [line for batch in batches[:5] for line in stream.feed(redact_all(batch, 0))]
    stream.shown({"type": "reach", "actor": 0})  # a riichi that did not happen (a timeout)
    got += [line for batch in batches[5:] for line in stream.feed(redact_all(batch, 0))]
    assert got == offline(events, 0, MATCHES[0][1])
