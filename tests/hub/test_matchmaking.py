"""The queue policy (server/services/matchmaking.py, pure) that the lobby and the cross-node
mechanics (server/hub/crossnode.py) apply: order, when a table forms, whom a node hands over."""

from __future__ import annotations

import doctest

import pytest

from server.hub import crossnode
from server.services import matchmaking as mm


@pytest.mark.parametrize("module", [mm, crossnode], ids=lambda m: m.__name__)
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted and not result.failed


def test_a_queue_is_in_the_order_players_first_queued_and_a_full_one_makes_a_table() -> None:
    queue: list[mm.QueueEntry[str]] = []
    for i, name in enumerate("abc"):
        mm.enqueue(queue, mm.new_entry(name, now=10.0 + i))
    mm.enqueue(queue, mm.new_entry("far", now=20.0, waited_s=99_999.0))  # waited elsewhere, capped
    assert [e.participant for e in queue] == ["far", "a", "b", "c"]
    assert queue[0].since == 20.0 - mm.MAX_CARRIED_WAIT_S and queue[0].relayed
    assert mm.fill_at(queue, 5.0) == queue[0].since + 5.0
    assert mm.take_table(queue[:3], 4) is None
    group = mm.take_table(queue, 4)
    assert group is not None and [e.participant for e in group] == ["far", "a", "b", "c"]
    assert queue == [] and mm.fill_at(queue, 5.0) is None
    assert mm.new_entry("x", now=1.0, waited_s=-3.0).since == 1.0  # a negative wait counts as none


def test_the_cross_node_policy_looks_after_the_local_wait_and_hands_everyone_or_nobody() -> None:
    policy = mm.CrossNodePolicy(local_wait_s=2.0, recheck_s=0.5)
    here = mm.new_entry("here", now=0.0)
    assert policy.next_look([here]) == 2.0 and not policy.keep_name([here])
    sent = mm.new_entry("sent", now=1.0, waited_s=3.0)
    assert policy.due(sent) == 1.0 and policy.keep_name([here, sent])  # at once; keeps the name
    assert policy.to_hand_over([here, sent], None, now=2.0) == []  # this node pairs the queue
    assert (here.check_at, sent.check_at) == (2.5, 2.5)
    assert policy.to_hand_over([here, sent], "http://b", now=3.0) == [here, sent]
    policy.stay(here, 3.0)  # its hand-over failed
    assert policy.next_look([here]) == 3.5 and policy.next_look([]) is None
