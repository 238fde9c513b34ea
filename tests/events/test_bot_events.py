"""A bot event on a real hub: four mjai bots (bot accounts, two entered by the organizer, two by
themselves) play one duplicate-rotation cycle of four rounds over the ``/mjai`` endpoint. Each bot
learns its seat by saying hello with the event's id (``waiting`` until its table runs); every
round repeats the line-up with the seats rotated, on the same walls; the walls stay sealed (no
seed in the event, the games' review refused) until the cycle's last round finishes; then every
game verifies against the published commitments, and the comparison counts one complete set."""

from __future__ import annotations

import asyncio
import logging
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from client_protocol.messages import MatchEndReason, TokenAuth
from server.app.compose import StoredResults, event_service, event_store
from server.bots.connect import EXIT_FAILED, EXIT_OK, ConnectOptions, Connector
from server.domain.records import AccountKind
from server.domain.tournaments import DuplicateMode, EventSettings, RoundStatus
from server.engine.rules import Ruleset
from server.services.eventrules import sealed_games
from server.services.review import GameLiveError, Review
from server.services.tournaments import Actor, EventError, EventService
from server.store.memory import InMemoryRepository
from server.tournament.duplicate import PublishedSet, check_reveal, rotations
from tests.bots.mjai_kit import TSUMOGIRI_BOT, MjaiClient, mjai_hub
from tests.events.kit import account
from tests.hub.helpers import EAST
from tests.modload import REPO, load_module

pytestmark = pytest.mark.asyncio


async def _organizer(repo: InMemoryRepository, service: EventService) -> Actor:
    admin = Actor(account("root", admin=True), admin=True)
    org = Actor(account("org"))
    for a in (admin.account, org.account):
        await repo.create_account(a)
    await service.grant_organizer(admin, org.id, True, "runs the bot league")
    return org


async def _play(client: MjaiClient) -> dict[str, Any]:
    """Answer every request with its first possible action until the match ends."""
    while True:
        message = await client.recv()
        if message["type"] == "request":
            answer = dict(message["possible_actions"][0])
            answer["request_id"] = message["request_id"]
            await client.send(answer)
        elif message["type"] == "match_end":
            return message


async def _seat_of(hub: Any, token: str, event_id: str) -> MjaiClient:
    """Say hello with the event until the bot is seated (``waiting`` before its table runs)."""
    for _ in range(50):
        client = await MjaiClient.open(hub, token, event=event_id)
        await client.until("welcome")
        message = await client.recv()
        if message["type"] == "seated":
            assert message["resumed"] is True
            return client
        assert message == {"type": "waiting", "event": event_id, "retry_ms": 1000}
        assert await client.until_closed() == 1013
        await asyncio.sleep(0.05)
    raise AssertionError("never seated")


async def test_four_mjai_bots_play_a_rotation_cycle_on_the_same_walls() -> None:
    repo = InMemoryRepository()
    async with mjai_hub(repo=repo) as hub:
        service = event_service(repo, hub.tables)
        org = await _organizer(repo, service)
        settings = EventSettings(
            name="Bot league",
            ruleset_json=EAST.to_json(),
            rounds=4,
            duplicate=DuplicateMode.ROTATIONS,
            action_ms=3000,
            bank_ms=3000,
        )
        event = await service.create(org, settings)
        tokens, bots = [], []
        for i in range(4):
            bot, token = await hub.auth.create_account(f"bot{i}", AccountKind.BOT)
            tokens.append(token)
            bots.append(bot)
        await service.bots.enter(org, event.id, bots[0].id, "invited")
        assert (await service.bots.enter(org, event.id, bots[0].id)).entrant_id == bots[0].id  # idempotent
        await service.bots.enter(org, event.id, bots[1].id)
        for bot in bots[2:]:
            await service.enter(Actor(bot), event.id)  # a bot enters itself with its own token
        player = account("human")
        await repo.create_account(player)
        with pytest.raises(EventError) as refused:
            await service.bots.enter(org, event.id, player.id)
        assert refused.value.code == "malformed"
        with pytest.raises(EventError) as refused:
            await service.bots.enter(Actor(bots[3]), event.id, bots[3].id)
        assert refused.value.code == "forbidden"

        early = await MjaiClient.open(hub, tokens[0], event=event.id)  # before any table: told to wait
        await early.until("welcome")
        assert (await early.recv())["type"] == "waiting" and await early.until_closed() == 1013

        review = Review(repo, sealed=sealed_games(event_store(repo)))
        matches: list[str] = []
        for number in range(1, 5):
            await service.seat(org, event.id)
            rnd = await service.start(org, event.id)
            (table,) = rnd.tables
            assert table.match_id is not None
            matches.append(table.match_id)
            clients = await asyncio.gather(*(_seat_of(hub, t, event.id) for t in tokens))
            ends = await asyncio.gather(*(_play(c) for c in clients))
            assert all(e["reason"] == "completed" for e in ends)
            for client in clients:
                assert client.errors == []
                assert not any("seed" in m and m.get("seed") for m in client.messages)
                await client.close()
            for _ in range(100):  # the table stores its end, then the round can finish
                if await StoredResults(repo).final(table.match_id) is not None:
                    break
                await asyncio.sleep(0.05)
            done = await service.finish_round(org, event.id, "all tables ended")
            if number < 4:  # the cycle goes on: its walls stay secret, its games sealed
                assert all(p.seed_hex is None for p in done.sets)
                for match_id in matches:
                    with pytest.raises(GameLiveError):
                        await review.walls(match_id)

        rounds = await event_store(repo).rounds(event.id)
        assert [r.status for r in rounds] == [RoundStatus.FINISHED] * 4
        lineup = rounds[0].tables[0].entrants
        assert [r.tables[0].entrants for r in rounds] == list(rotations(lineup))
        assert {r.sets[0].set_id for r in rounds} == {"r1-s0"}
        seeds = {r.sets[0].seed_hex for r in rounds}
        assert len(seeds) == 1 and None not in seeds
        published = rounds[0].sets[0]
        seed = bytes.fromhex(published.seed_hex or "")
        as_published = PublishedSet(
            published.set_id, published.tables, published.seed_commitment, published.wall_commitments
        )
        assert check_reveal(as_published, seed, Ruleset.from_json(EAST.to_json())) == []
        for match_id in matches:  # every game verifies, on the same seed
            report = await review.walls(match_id)
            assert report.all_ok and report.seed == seed.hex()

        comparison = await service.bots.comparison(event.id)
        (one,) = comparison.sets
        assert one.complete and list(one.games) == matches
        assert sorted(r.entrant for r in comparison.entrants) == sorted(b.id for b in bots)
        assert all(r.sets == 1 and r.games == 4 and sum(r.places) == 4 for r in comparison.entrants)
        assert sum(r.total for r in comparison.entrants) == 0  # points are zero-sum per game


async def test_rotations_need_a_whole_number_of_cycles() -> None:
    repo = InMemoryRepository()
    service = event_service(repo, hub_tables_unused())
    org = await _organizer(repo, service)
    six = EventSettings(
        name="Bot league", ruleset_json=EAST.to_json(), rounds=6, duplicate=DuplicateMode.ROTATIONS
    )
    with pytest.raises(EventError) as refused:
        await service.create(org, six)
    assert refused.value.code == "malformed" and "cycles of 4" in refused.value.message


def hub_tables_unused() -> Any:
    return object()  # no table is made


async def test_protocol_bots_play_their_event_seats() -> None:
    """Bots of our JSON protocol (``examples/random_bot.py --event``): each says hello with its
    bot account's token until the welcome lists its seat at the event's table, resumes it, plays."""
    repo = InMemoryRepository()
    async with mjai_hub(repo=repo) as hub:
        service = event_service(repo, hub.tables)
        org = await _organizer(repo, service)
        settings = EventSettings(name="Protocol bots", ruleset_json=EAST.to_json(), rounds=1)
        event = await service.create(org, settings)
        tokens = []
        for i in range(4):
            bot, token = await hub.auth.create_account(f"pbot{i}", AccountKind.BOT)
            await service.bots.enter(org, event.id, bot.id)
            tokens.append(token)
        url = f"ws://127.0.0.1:{hub.port}/ws"
        example = load_module("random_bot_events", REPO / "examples" / "random_bot.py")
        players = [
            asyncio.create_task(example.play(url, TokenAuth(token=t), "tenhou", random.Random(i), event=True))
            for i, t in enumerate(tokens)
        ]
        await asyncio.sleep(0.2)  # they wait: no table yet
        assert not any(p.done() for p in players)
        await service.seat(org, event.id)
        rnd = await service.start(org, event.id)
        ends = await asyncio.gather(*players)
        assert {e.match_id for e in ends} == {rnd.tables[0].match_id}
        assert all(e.reason is MatchEndReason.COMPLETED for e in ends)


async def test_a_malformed_event_in_a_hello_is_refused() -> None:
    async with mjai_hub() as hub:
        _, token = await hub.auth.create_account("odd", AccountKind.BOT)
        for event in (123, "", "x" * 65):
            client = await MjaiClient.open(hub, token, event=event)
            error = await client.until("error")
            assert error["code"] == "malformed" and "'event'" in error["message"]
            assert await client.until_closed() == 1008


async def test_a_bot_of_an_event_that_is_over_is_told_so_and_its_connector_stops(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An event's bot says hello once its event was closed: ``event_over`` (and a normal close)
    instead of ``waiting``, and ``jantaku bot connect --event`` stops with success; a hello naming
    no event is refused before the welcome, and the connector gives up at once."""
    repo = InMemoryRepository()
    async with mjai_hub(repo=repo) as hub:
        service = event_service(repo, hub.tables)
        hub.event_status = service.status_of  # as jantaku serve wires it (server.app.compose)
        org = await _organizer(repo, service)
        event = await service.create(
            org, EventSettings(name="Short league", ruleset_json=EAST.to_json(), rounds=3)
        )
        bot, token = await hub.auth.create_account("late-bot", AccountKind.BOT)
        await service.bots.enter(org, event.id, bot.id)

        waiting = await MjaiClient.open(hub, token, event=event.id)  # open: told to wait, as before
        await waiting.until("welcome")
        assert (await waiting.recv())["type"] == "waiting" and await waiting.until_closed() == 1013
        await service.close(org, event.id, "nobody else came")
        over = await MjaiClient.open(hub, token, event=event.id)
        await over.until("welcome")
        assert await over.recv() == {"type": "event_over", "event": event.id, "status": "cancelled"}
        assert await over.until_closed() == 1000
        unknown = await MjaiClient.open(hub, token, event="ev-000000000000")
        refused = await unknown.recv()  # before any welcome
        assert (
            refused["type"] == "error"
            and refused["code"] == "not_found"
            and "ev-000000000000" in refused["message"]
        )
        assert await unknown.until_closed() == 1008

        bot_cmd = (sys.executable, str(TSUMOGIRI_BOT), "--log", str(tmp_path / "events.jsonl"))

        def connector(event_id: str) -> Connector:
            server = f"127.0.0.1:{hub.port}"
            return Connector(
                ConnectOptions(server=server, token=token, command=bot_cmd, games=2, event=event_id)
            )

        with caplog.at_level(logging.INFO, logger="jantaku.bot.connect"):
            assert await connector(event.id).run() == EXIT_OK
            assert await connector("ev-000000000000").run() == EXIT_FAILED
        assert f"event {event.id} is over (cancelled): 0 games played" in caplog.text
        assert "refused the bot: not_found" in caplog.text
