"""``jantaku event bot-entrant ID ACCOUNT`` and ``jantaku event comparison ID``: bot events from the
command line (``docs/tournaments.md``, "Bot events"), beside the other ``jantaku event`` commands
(``server.app.events_cli``, which registers these), acting on the database as they do."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from server.app import events_cli
from server.services.botevents import comparison_json
from server.services.tournaments import EventService
from server.store.cli import add_database_options
from server.store.repository import SqlRepository
from server.tournament.standings import format_points


def register(esub: Any) -> None:
    """Add the bot-event commands to ``jantaku event``'s sub-commands."""
    enter = esub.add_parser("bot-entrant", help="enter a bot account (its name or id) in an event")
    enter.add_argument("event_id")
    enter.add_argument("account", help="the bot account's name or id")
    enter.add_argument("--reason", default="")
    enter.set_defaults(handler=run_bot_entrant)
    cmp = esub.add_parser("comparison", help="the duplicate comparison of the entrants (or --json)")
    cmp.add_argument("event_id")
    cmp.add_argument("--json", action="store_true")
    cmp.set_defaults(handler=run_comparison)
    for p in (enter, cmp):
        add_database_options(p)


def run_bot_entrant(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        account = await repo.account_by_name(args.account) or await repo.account_by_id(args.account)
        if account is None:
            print(f"error: no account named {args.account!r}", file=sys.stderr)
            return 1
        record = await service.bots.enter(events_cli.operator(), args.event_id, account.id, args.reason)
        print(f"{record.entrant_id} ({record.name}): {record.status.value}")
        return 0

    return events_cli.run_job(args, job)


def run_comparison(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        result = await service.bots.comparison(args.event_id)
        if args.json:
            events_cli.print_json(comparison_json(result))
            return 0
        for s in result.sets:
            state = "complete" if s.complete else "incomplete"
            points = ", ".join(f"{e} {format_points(p)}" for e, p in s.points)
            print(f"set {s.set_id} ({len(s.games)} games, {state}): {points}")
        for r in result.entrants:
            print(
                f"{format_points(r.total):>8}  {r.entrant}: {r.sets} sets, {r.games} games, "
                f"mean {format_points(r.mean_per_set)} per set (spread {format_points(r.spread)}), "
                f"mean place {r.mean_place}"
            )
        return 0

    return events_cli.run_job(args, job)
