"""Revision 0004 (``steps.format_version``) on a database written by the code before it: the steps
stored then read back as format 1, decode to the very events that were played, replay for crash
recovery and rebuild the hand projection; new steps carry the version they were written in."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import insert, text

from server.engine.rules import preset
from server.eventlog.codec import FORMAT_VERSION, log_events
from server.hub.recovery import replay_log
from server.store.db import write_connection
from server.store.migrate import downgrade, upgrade
from server.store.models import MatchRow, SeatRow, StepRow
from server.store.repository import SqlRepository
from server.store.types import from_unix
from tests.store.conftest import Database
from tests.store.games import match_record, played


def _match_row(match_id: str) -> dict[str, object]:
    m = match_record(match_id, played()[1])
    return {
        "id": m.id,
        "ruleset_json": m.ruleset_json,
        "ruleset_hash": m.ruleset_hash,
        "seed_commitment": m.seed_commitment,
        "seed_hex": None,
        "engine_version": m.engine_version,
        "wall_algorithm": m.wall_algorithm,
        "status": m.status.value,
        "source": m.source,
        "created_at": from_unix(m.created_at),
        "ended_at": None,
        "status_reason": None,
    }


@pytest.mark.asyncio
async def test_steps_stored_before_0004_read_as_format_1(database: Database) -> None:
    records, events = played()
    engine = database.engine()
    try:
        await upgrade(engine, "0003")
        async with write_connection(engine) as conn:
            # What the 0003 code inserted: the columns of the writer's step row, no version.
            await conn.execute(insert(MatchRow).values(_match_row("m-old")))
            await conn.execute(
                insert(SeatRow),
                [
                    {"match_id": "m-old", "seat": i, "account_id": None, "name": f"bot{i}", "kind": "bot"}
                    | {"bot": "greedy"}
                    for i in range(4)
                ],
            )
            await conn.execute(
                insert(StepRow),
                [
                    {
                        "match_id": "m-old",
                        "step": r.step,
                        "seat": r.seat,
                        "action": r.action,
                        "events": list(r.events),
                        "request_id": r.request_id,
                        "applied_at": from_unix(r.applied_at),
                        "source": r.source,
                    }
                    for r in records
                ],
            )
        await upgrade(engine)
        repo = SqlRepository(engine)
        try:
            stored = await repo.steps("m-old")
            assert len(stored) == len(records)
            assert {s.format_version for s in stored} == {1}
            assert log_events(stored) == list(events)  # decoded through the codec: the played events
            transitions = replay_log(preset("tenhou"), b"store-tests", stored)  # crash recovery's check
            assert len(transitions) == len(records)
            # The hand projection (not written by the raw inserts) is rebuilt from the old rows,
            # and equals the one projected while a new match is appended.
            assert await repo.rebuild_hand_results("m-old") >= 4
            await repo.create_match(match_record("m-new", events))
            for r in records:
                await repo.append_step(replace(r, match_id="m-new"))
            new = await repo.steps("m-new")
            assert {s.format_version for s in new} == {FORMAT_VERSION}
            old_hands = [replace(h, match_id="") for h in await repo.hand_results("m-old")]
            assert old_hands == [replace(h, match_id="") for h in await repo.hand_results("m-new")]
        finally:
            await repo.close()
        await downgrade(engine, "0003")  # and back: the steps stay, without the column
        async with engine.connect() as conn:
            count = (
                await conn.execute(text("SELECT count(*) FROM steps WHERE match_id = 'm-old'"))
            ).scalar_one()
            assert count == len(records)
    finally:
        await engine.dispose()


@pytest.mark.asyncio
async def test_a_step_of_an_unknown_format_is_stored_as_it_is(sql_repo: SqlRepository) -> None:
    """A newer server's steps: the store keeps their version; readers refuse to guess their form."""
    records, events = played()
    await sql_repo.create_match(match_record("m-1", events))
    await sql_repo.append_step(replace(records[0], match_id="m-1", format_version=99))
    (stored,) = await sql_repo.steps("m-1")
    assert stored.format_version == 99
    assert await sql_repo.rebuild_hand_results("m-1") == 0  # projected from nothing it cannot read
