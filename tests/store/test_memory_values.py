"""The in-memory store gives steps back as a database does (JSON values), encoding them once when
appended rather than copying them through the standard ``json`` module (issue 17: the hub's
benchmark runs on this store)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.domain.records import StepRecord
from server.store.memory import InMemoryRepository
from tests.store.games import match_record, played


def _round_trip(value: Any) -> Any:
    return json.loads(json.dumps(value))


@pytest.mark.asyncio
async def test_a_whole_match_comes_back_as_its_json_round_trip() -> None:
    repo = InMemoryRepository()
    records, events = played()
    await repo.create_match(match_record("m-game", events))
    for r in records:
        await repo.append_step(r)
    stored = await repo.steps("m-game")
    assert len(stored) == len(records) > 100
    for got, sent in zip(stored, records, strict=True):
        assert got.action == _round_trip(sent.action)
        assert list(got.events) == _round_trip(list(sent.events))
        assert json.dumps(list(got.events)) == json.dumps(_round_trip(list(sent.events)))
        assert got.engine_events is None


@pytest.mark.asyncio
async def test_tuples_become_lists_and_keys_strings_and_nothing_is_shared() -> None:
    repo = InMemoryRepository()
    _, events = played()
    await repo.create_match(match_record("m-1", events))
    action = {"type": "chi", "consumed": ("3m", "4m")}
    event: dict[Any, Any] = {"type": "x", "tiles": ("1m", ("2m",)), 7: None, "n": 1.5}
    step = StepRecord("m-1", 0, 1, action, (event,))
    await repo.append_step(step)
    (got,) = await repo.steps("m-1")
    assert got.action == _round_trip(action) == {"type": "chi", "consumed": ["3m", "4m"]}
    assert list(got.events) == _round_trip([event])
    event["n"] = 2.5  # the caller's value changing later changes nothing stored
    assert got.events[0]["n"] == 1.5
    event["n"] = 1.5
    await repo.append_step(step)  # the same write again is a retry, not a conflict
    assert len(await repo.steps("m-1")) == 1
