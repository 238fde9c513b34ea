"""The /mjai endpoint over real localhost websockets, with bare websocket clients.

Every message a client receives goes through the mjai leak scanner (``tests.bots.mjai_kit.scan``)
and, at the end, each seat's mjai events are compared with the offline per-seat export of the
table's omniscient log (``server.records.export_mjai``): the same lines, in the same order. No test
sleeps: waits are on messages and closed connections.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from server.engine.actions import Action, Discard, Pass, Riichi
from server.engine.tiles import parse_tile
from server.hub.mjai import default_for
from server.hub.server import Hub
from server.hub.settings import TableTimers
from server.hub.table import TableActor
from tests.bots.mjai_kit import (
    HandTracker,
    MjaiClient,
    bot_token,
    choose,
    expected_lines,
    mjai_hub,
)


def _table(hub: Hub, match_id: str | None) -> TableActor:
    assert match_id is not None
    table = hub.lobby.table(match_id)
    assert table is not None
    return table


async def _play_fair(client: MjaiClient, seed: int) -> tuple[dict[str, Any], list[str]]:
    """Answer every request with :func:`choose`; returns match_end and the answer types sent."""
    rng = random.Random(seed)
    hand: HandTracker | None = None
    sent: list[str] = []
    while True:
        message = await client.recv()
        kind = message["type"]
        if kind == "seated":
            hand = HandTracker(message["seat"])
        elif hand is not None and kind not in ("request", "error", "match_end"):
            hand.see(message)
        if kind == "request":
            assert hand is not None
            answer = choose(message, hand, rng)
            sent.append(answer["type"])
            await client.send({**answer, "request_id": message["request_id"]})
        elif kind == "match_end":
            return message, sent


@pytest.mark.asyncio
async def test_four_mjai_bots_play_a_full_match_and_each_gets_its_own_view() -> None:
    """Four /mjai clients answer from the requests' possible actions (wins, riichi, calls, discards):
    the match completes without a single error, every message passes the leak scanner, and every
    seat got exactly the offline mjai export of the match for that seat."""
    async with mjai_hub(seed=b"mjai-four") as hub:
        clients = []
        for i in range(4):
            client = await MjaiClient.open(hub, await bot_token(hub, f"mj{i}"), queue="tenhou")
            await client.until("welcome")
            clients.append(client)
            if i < 3:
                await client.until("queued")
        results = await asyncio.gather(*(_play_fair(c, i) for i, c in enumerate(clients)))
        table = _table(hub, clients[0].match_id)
        sent = [t for _, types in results for t in types]
        for client, (end, _) in zip(clients, results, strict=True):
            assert end["reason"] == "completed" and end["result"]["ranks"]
            assert client.seat is not None and client.errors == []
            assert client.events == await expected_lines(table, client.seat)
            assert client.events[0]["id"] == client.seat and client.events[-1]["type"] == "end_game"
            assert await client.until_closed() == 1000
        assert {"dahai", "none", "reach", "hora"} <= set(sent), sent
        assert {"chi", "pon"} & set(sent), sent
        _check_reach_flow(clients)


def _check_reach_flow(clients: list[MjaiClient]) -> None:
    """An answer ``reach`` is echoed as the reach event and a request for the discard follows,
    whose possible actions are riichi discards only; everyone sees reach, then that dahai."""
    for client in clients:
        messages = client.messages
        for i, message in enumerate(messages[:-2]):
            if message["type"] == "request" and messages[i + 1]["type"] == "reach":
                second = messages[i + 2]
                assert second["type"] == "request", second
                assert {a["type"] for a in second["possible_actions"]} == {"dahai"}
    events = clients[0].events
    reaches = [i for i, e in enumerate(events) if e["type"] == "reach"]
    assert reaches
    for i in reaches:
        follow = events[i + 1]
        assert follow["type"] == "dahai" and follow["actor"] == events[i]["actor"], follow


@pytest.mark.asyncio
async def test_invalid_answers_get_an_error_and_the_default_action() -> None:
    async with mjai_hub(fill_after_s=0.0) as hub:
        client = await MjaiClient.open(hub, await bot_token(hub, "clumsy"), queue="tenhou")
        await client.until("seated")
        bad_answers: list[dict[str, Any] | str] = [
            "this is not json",
            {"type": "dahai", "pai": "9z", "tsumogiri": True},  # not an mjai tile
            {"type": "dahai", "actor": -1, "pai": "1m"},  # another seat
            {"type": "none"},  # must discard
            {"type": "pon", "consumed": ["1m", "1m"]},
            {"type": "fly"},
        ]
        for bad in bad_answers:
            request = await _own_turn(client)
            drawn = _last_own_tsumo(client)
            await client.send(bad)
            error = await client.until("error")
            assert error["code"] == "illegal_action" and error["request_id"] == request["request_id"], error
            assert error["applied"] == {
                "type": "dahai",
                "actor": client.seat,
                "pai": drawn,
                "tsumogiri": True,
            }
            discard = await _next_own(client, "dahai")
            assert discard["pai"] == drawn and discard["tsumogiri"] is True

        request = await _own_turn(client)
        await client.send({"type": "none", "request_id": request["request_id"] - 1})  # an old request
        error = await client.until("error")
        assert error["code"] == "stale_step"
        drawn = _last_own_tsumo(client)
        await client.send({"type": "dahai", "actor": client.seat, "pai": drawn, "tsumogiri": True})
        assert (await _next_own(client, "dahai"))["pai"] == drawn
        errors_before = len(client.errors)

        while True:  # play on: tsumogiri and pass
            message = await client.recv()
            if message["type"] == "request":
                kinds = {a["type"] for a in message["possible_actions"]}
                if "dahai" in kinds:
                    pai = _last_own_tsumo(client)
                    await client.send({"type": "dahai", "actor": client.seat, "pai": pai, "tsumogiri": True})
                else:
                    await client.send({"type": "none"})
            elif message["type"] == "match_end":
                break
        assert len(client.errors) == errors_before
        table = _table(hub, client.match_id)
        assert client.seat is not None
        assert client.events == await expected_lines(table, client.seat)


async def _own_turn(client: MjaiClient) -> dict[str, Any]:
    """Pass every call prompt until a request to discard comes."""
    while True:
        request = await client.until("request")
        if any(a["type"] == "dahai" for a in request["possible_actions"]):
            return request
        await client.send({"type": "none"})


async def _next_own(client: MjaiClient, kind: str) -> dict[str, Any]:
    while True:
        message = await client.recv()
        if message["type"] == kind and message.get("actor") == client.seat:
            return message


def _last_own_tsumo(client: MjaiClient) -> str:
    for event in reversed(client.events):
        if event["type"] == "tsumo" and event["actor"] == client.seat:
            pai: str = event["pai"]
            return pai
    raise AssertionError("no tsumo yet")


@pytest.mark.asyncio
async def test_refused_hellos_close_the_connection() -> None:
    async with mjai_hub() as hub:
        bad = await MjaiClient.open(hub, "b-0123.not-a-token", queue="tenhou")
        assert (await bad.until("error"))["code"] == "unauthenticated"
        assert await bad.until_closed() == 1008

        rude = await MjaiClient.open(hub, None)
        await rude.send({"type": "dahai", "pai": "1m"})
        assert (await rude.until("error"))["code"] == "unauthenticated"
        assert await rude.until_closed() == 1008

        waiting = await MjaiClient.open(hub, await bot_token(hub, "early"), queue="tenhou")
        await waiting.until("queued")
        await waiting.send({"type": "dahai", "pai": "1m"})  # nothing is asked yet: changes nothing
        assert (await waiting.until("error"))["code"] == "not_your_turn"
        await waiting.send("}{")
        assert (await waiting.until("error"))["code"] == "malformed"
        await waiting.close()

        lost = await MjaiClient.open(hub, await bot_token(hub, "lost"), queue="no-such-rules")
        await lost.until("welcome")
        assert (await lost.until("error"))["code"] == "not_found"
        assert await lost.until_closed() == 1008


@pytest.mark.asyncio
async def test_a_new_connection_resumes_the_game_from_start_game() -> None:
    """A bot that drops mid-game and connects again is put back in its match: ``seated`` with
    ``resumed``, the game again from start_game, then the pending request."""
    timers = TableTimers(action_ms=60_000, disconnect_grace_ms=60_000)
    async with mjai_hub(timers=timers, fill_after_s=0.0) as hub:
        token = await bot_token(hub, "flaky")
        first = await MjaiClient.open(hub, token, queue="tenhou")
        await first.until("seated")
        for _ in range(5):
            request = await _own_turn(first)
            pai = _last_own_tsumo(first)
            await first.send({"type": "dahai", "pai": pai, "tsumogiri": True})
        request = await _own_turn(first)
        await first.close()

        second = await MjaiClient.open(hub, token, queue="tenhou")
        seated = await second.until("seated")
        assert seated["resumed"] is True and seated["match_id"] == first.match_id
        again = await second.until("request")
        assert second.events == first.events  # the whole game so far, nothing else
        assert again["possible_actions"] == request["possible_actions"]
        await second.send({"type": "dahai", "pai": _last_own_tsumo(second), "tsumogiri": True})
        while True:
            message = await second.recv()
            if message["type"] == "request":
                kinds = {a["type"] for a in message["possible_actions"]}
                answer: dict[str, Any] = {"type": "none"}
                if "dahai" in kinds:
                    answer = {"type": "dahai", "pai": _last_own_tsumo(second), "tsumogiri": True}
                await second.send(answer)
            elif message["type"] == "match_end":
                break
        table = _table(hub, second.match_id)
        assert second.seat is not None and second.errors == []
        assert second.events == await expected_lines(table, second.seat)


def test_the_default_action_for_an_invalid_answer() -> None:
    m1, m9 = parse_tile("1m"), parse_tile("9m")
    assert default_for(frozenset({Pass(), Discard(m1)})) == Pass()
    turn: frozenset[Action] = frozenset(
        {Discard(m1), Discard(m9), Discard(m9, tsumogiri=True), Riichi(m1), Riichi(m9, True)}
    )
    assert default_for(turn) == Discard(m9, tsumogiri=True)
    assert default_for(turn, after_reach=True) == Riichi(m9, True)


@pytest.mark.asyncio
async def test_a_resume_hands_later_gets_the_whole_game_although_the_table_forgot_its_start() -> None:
    """The table keeps only its latest hands in memory; the rest of the game comes from the store."""
    timers = TableTimers(action_ms=60_000, disconnect_grace_ms=60_000)
    async with mjai_hub(timers=timers, fill_after_s=0.0) as hub:
        token = await bot_token(hub, "forgetful")
        first = await MjaiClient.open(hub, token, queue="tenhou")
        await first.until("seated")
        table = _table(hub, first.match_id)
        while table._audience.pacing.stream.base == 0:
            await _own_turn(first)
            await first.send({"type": "dahai", "pai": _last_own_tsumo(first), "tsumogiri": True})
        request = await _own_turn(first)
        await first.close()

        second = await MjaiClient.open(hub, token, queue="tenhou")
        seated = await second.until("seated")
        assert seated["resumed"] is True and seated["match_id"] == first.match_id
        again = await second.until("request")
        assert table._audience.pacing.stream.base > 0
        assert second.events == first.events  # the whole game so far, nothing else
        assert again["possible_actions"] == request["possible_actions"]
        assert second.seat is not None
        assert second.events == (await expected_lines(table, second.seat))[: len(second.events)]
