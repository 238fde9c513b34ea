"""Tournaments: seating 1,000 entrants over 10 rounds, and the standings of 1,000 entrants, computed
and requested over HTTP while 250 tables play.

    python bench/tournament.py [--entrants 1000] [--rounds 10] [--repeat 5] [--max-meetings 1]
                               [--live-seconds 30] [--database-url URL]

* **seating**: every round of an event seated in turn (each round's seating depends on the rounds
  before it), by the random method and by standings (the standings order changing every round as
  results come in), with ``max_meetings`` (default 1: nobody meets anyone twice). The figure is the
  whole event's seating, the median of ``--repeat`` runs.
* **standings (computation)**: the standings of the whole event (``rounds x entrants / 4`` games)
  under each formula, the median of ``--repeat`` runs: the pure computation only.
* **standings while tables play** (``--live-seconds``, 0 skips it): the whole server runs in this
  process (``running_server``: the hub, the HTTP API with the event service) on a SQLite file in a
  temporary directory (or ``--database-url``). An organizer makes an event of ``--entrants``
  built-in bots (``POST .../bots``), seats and starts its first round over the HTTP API: 250 tables
  of 4. *Playing* means what the server does for an event of built-in bots: each bot takes 600 ms
  over its own turn (a discard, a kan, a win: the paced bot delay every event with clocks gets,
  ``bot_delay_ms``), a call window closes as soon as every bot has answered, each step is stored
  before anyone sees it. After ``--live-warmup`` seconds, ``GET /api/events/{id}/standings`` is
  requested over HTTP (a new request as soon as the last is answered) for ``--live-seconds``; the
  latencies' p50 and p99 are printed, with the steps the tables stored meanwhile (per second).
  The standings then read every table's result from the store (250 tables, none finished yet:
  a round's first minutes) and rank the 1,000 entrants.

Prints ``seating <N> entrants x <R> rounds: <ms> ms`` (the slower of the two methods) and
``standings p99 at <T> tables: <ms> ms``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.app.compose import event_store, open_repository, running_server
from server.domain.ports import Store
from server.domain.records import AccountKind
from server.engine.rules import PRESETS
from server.hub.settings import HubSettings
from server.services.auth import Authenticator
from server.tournament.draws import Draws
from server.tournament.seating import History, SeatingMethod, SeatingRules, seat_round
from server.tournament.standings import Formula, GameResult, ScoringRules, standings


def event(
    method: SeatingMethod, entrants: list[str], rounds: int, rules: SeatingRules, seed: int
) -> tuple[float, list[GameResult]]:
    """Seat every round; fake each table's result so standings move. Returns seating seconds."""
    history = History(rules.seats)
    order = list(entrants)
    games: list[GameResult] = []
    seconds = 0.0
    for r in range(rounds):
        start = time.perf_counter()
        seating = seat_round(method, order, history, rules, f"bench-{seed}-{r}".encode())
        seconds += time.perf_counter() - start
        history.add(seating)
        results = Draws(f"results-{seed}-{r}".encode(), "bench")
        for t, table in enumerate(seating.tables):
            places = [1, 2, 3, 4]
            results.shuffle(places)
            scores = tuple(50000 - 10000 * p + 1000 * results.below(5) for p in places)
            placed = tuple(sorted(range(4), key=lambda s: -scores[s]))
            placements = tuple(placed.index(s) + 1 for s in range(4))
            games.append(GameResult(f"m{r}-{t}", r, table, scores, placements))
        ranked = standings(games, [], entrants, ScoringRules.of(PRESETS["tenhou"], Formula.POINTS))
        order = [s.name for s in ranked]  # by standings: the next round seats close scores together
    return seconds, games


async def live_standings(entrants: int, warmup_s: float, seconds: float, database_url: str | None) -> None:
    """The standings requested over HTTP while the event's first round plays (module docstring)."""
    with tempfile.TemporaryDirectory(prefix="jantaku-bench-") as tmp:
        async with open_repository(Path(tmp), database_url) as repo:
            await _live(repo, entrants, warmup_s, seconds)


async def _live(repo: Store, entrants: int, warmup_s: float, seconds: float) -> None:
    settings = HubSettings(port=0, host="127.0.0.1")
    async with running_server(settings, repo, review_port=0) as (hub, review):
        assert review.url is not None
        org, token = await Authenticator(repo, session_ttl_s=3600).create_account(
            "bench-org", AccountKind.PLAYER
        )
        await event_store(repo).set_organizer_role(org.id, True, time.time())
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=review.url, headers=headers, timeout=120) as http:

            async def post(path: str, body: dict[str, object]) -> dict[str, object]:
                answer = await http.post(path, json=body)
                assert answer.status_code in (200, 201), answer.text
                result: dict[str, object] = answer.json()
                return result

            event = await post("/api/events", {"name": "Bench open", "rounds": 3, "action_ms": 10000})
            path = f"/api/events/{event['id']}"
            for _ in range(entrants // 64):
                await post(f"{path}/bots", {"count": 64})
            if entrants % 64:
                await post(f"{path}/bots", {"count": entrants % 64})
            started = time.perf_counter()
            await post(f"{path}/seat", {"key": "r1"})
            rnd = await post(f"{path}/start", {"key": "r1"})
            tables = rnd["tables"]
            assert isinstance(tables, list)
            print(f"  {len(tables)} tables seated and started in {time.perf_counter() - started:.1f} s")
            sample = [str(t["match_id"]) for t in tables[:: max(1, len(tables) // 20)]]
            await asyncio.sleep(warmup_s)
            before = sum([len(await repo.steps(m)) for m in sample])
            latencies: list[float] = []
            lags: list[float] = []
            end = time.perf_counter() + seconds

            async def probe() -> None:  # how late the event loop wakes a 50-ms sleep meanwhile
                while time.perf_counter() < end:
                    t = time.perf_counter()
                    await asyncio.sleep(0.05)
                    lags.append(time.perf_counter() - t - 0.05)

            prober = asyncio.create_task(probe())
            while time.perf_counter() < end:
                t0 = time.perf_counter()
                answer = await http.get(f"{path}/standings")
                latencies.append(time.perf_counter() - t0)
                assert answer.status_code == 200 and len(answer.json()) == entrants, answer.text[:200]
            await prober
            after = sum([len(await repo.steps(m)) for m in sample])
            running = hub.table_count
        ms = sorted(x * 1000 for x in latencies)
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        rate = (after - before) / len(sample) * len(tables) / seconds
        print(
            f"  standings requests: {len(ms)} in {seconds:.0f} s, p50 {statistics.median(ms):.0f} ms, "
            f"max {ms[-1]:.0f} ms; the tables stored about {rate:.0f} steps/s meanwhile"
            + f" ({running} tables running at the end)"
        )
        lag = sorted(x * 1000 for x in lags)
        print(
            f"  the event loop meanwhile: a 50-ms sleep woke late by p50 {statistics.median(lag):.0f} ms, "
            f"p99 {lag[min(len(lag) - 1, int(len(lag) * 0.99))]:.0f} ms (the server's own load)"
        )
        print(f"standings p99 at {len(tables)} tables: {p99:.0f} ms")


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--entrants", type=int, default=1000, help="entrants (a multiple of 4; default 1000)")
    parser.add_argument("--rounds", type=int, default=10, help="rounds in the event (default 10)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure; the median is printed")
    parser.add_argument("--max-meetings", type=int, default=1, help="max_meetings (0: no cap; default 1)")
    parser.add_argument("--live-seconds", type=float, default=30, help="standings requests (0: skip)")
    parser.add_argument("--live-warmup", type=float, default=10, help="seconds of play before them")
    parser.add_argument("--database-url", default=None, help="the live part's store (default SQLite)")
    args = parser.parse_args()
    entrants = [f"e{i:05d}" for i in range(args.entrants)]
    rules = SeatingRules(seats=4, max_meetings=args.max_meetings or None)
    worst = 0.0
    games: list[GameResult] = []
    for method in (SeatingMethod.RANDOM, SeatingMethod.STANDINGS):
        runs = []
        for k in range(args.repeat):
            seconds, games = event(method, entrants, args.rounds, rules, k)
            runs.append(seconds)
        median = statistics.median(runs)
        worst = max(worst, median)
        print(
            f"  {method.value:9} seating: median {median * 1000:.0f} ms "
            f"(min {min(runs) * 1000:.0f}, max {max(runs) * 1000:.0f}) for the whole event"
        )
    print(f"seating {args.entrants} entrants x {args.rounds} rounds: {worst * 1000:.0f} ms")
    teams = {e: f"team-{i % 50}" for i, e in enumerate(entrants)}
    for formula in Formula:
        scoring = ScoringRules.of(
            PRESETS["tenhou"], formula, best_n=5 if formula is Formula.BEST_CONSECUTIVE else None, teams=teams
        )
        runs = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            standings(games, [], entrants, scoring)
            runs.append(time.perf_counter() - start)
        print(
            f"standings ({formula.value}) of {args.entrants} entrants, {len(games)} games: "
            f"{statistics.median(runs) * 1000:.1f} ms (computation only)"
        )
    if args.live_seconds > 0:
        asyncio.run(live_standings(args.entrants, args.live_warmup, args.live_seconds, args.database_url))


if __name__ == "__main__":
    main()
