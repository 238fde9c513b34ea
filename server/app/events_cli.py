"""``jantaku event ...`` and ``jantaku admin organizer|events ...``: tournaments from the command line
(``docs/tournaments.md``, "Command line").

The commands open the database (``--database-url``, ``DATABASE_URL`` or the data directory's
SQLite file) and act through the event service, as an administrator named ``cli:<user>`` in the
audit log (whoever can run them can open the database). Tables are made by the running server:
``jantaku event start`` asks it over its HTTP API (``--api URL --token TOKEN``, an organizer's or
an administrator's token); everything else works on the store alone.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeAlias

from sqlalchemy.exc import SQLAlchemyError

from server.app.cliparts import cli_actor, usage
from server.app.compose import StoredResults, event_service
from server.domain.errors import RepositoryError
from server.domain.records import Account, AccountKind, Scope
from server.domain.tournaments import EventStore
from server.services.eventcheck import rebuild_check
from server.services.eventexport import event_archive
from server.services.eventrules import settings_from_dict, standings_csv
from server.services.tables import LiveTable, SeatRequest, TableSpec, TableStatus, TableUnsupportedError
from server.services.tournaments import Actor, EventError, EventService
from server.store.cli import add_database_options, database_url
from server.store.db import display_url
from server.store.errors import StoreConfigError
from server.store.repository import SqlRepository
from server.tournament.standings import Formula

SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


_ON_SERVER = "--api URL --token TOKEN (the running server's HTTP API)"


class ServerTables:
    """The command line runs no tables: making one, or acting on a live one, is the running
    server's (``jantaku event start|pause|lock|substitute ... --api URL --token TOKEN``)."""

    async def create(self, spec: TableSpec) -> LiveTable:
        raise TableUnsupportedError(
            f"tables are made by the running server: use jantaku event start ID {_ON_SERVER}"
        )

    async def find(self, match_id: str) -> LiveTable | None:
        return ServerTable(match_id)


class ServerTable:
    """A table of the running server, seen from the command line: every action on it is refused
    (``unsupported``), naming the way to ask the server instead."""

    def __init__(self, match_id: str) -> None:
        self._match_id = match_id

    @property
    def match_id(self) -> str:
        return self._match_id

    def status(self) -> TableStatus:
        return TableStatus(self._match_id)

    def _refuse(self) -> TableUnsupportedError:
        return TableUnsupportedError(f"match {self._match_id} runs on the server: add {_ON_SERVER}")

    async def pause(self, reason: str) -> None:
        raise self._refuse()

    async def unpause(self) -> None:
        raise self._refuse()

    async def end(self, reason: str) -> None:
        raise self._refuse()

    async def lock_seat(self, seat: int, locked: bool) -> None:
        raise self._refuse()

    async def substitute(self, seat: int, by: SeatRequest) -> int:
        raise self._refuse()


def _operator() -> Actor:

    name = cli_actor()
    return Actor(Account(name, name, AccountKind.PLAYER, frozenset({Scope.ADMIN}), 0.0), admin=True)


Job = Callable[[EventService, SqlRepository], Awaitable[int]]


def _run(args: argparse.Namespace, job: Job) -> int:
    try:
        url = database_url(args)
    except StoreConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    async def main() -> int:
        async with await SqlRepository.open(url) as repo:
            return await job(event_service(repo, ServerTables()), repo)

    try:
        return asyncio.run(main())
    except EventError as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return 1
    except (SQLAlchemyError, OSError, RepositoryError) as exc:
        print(f"error: database {display_url(url)}: {exc}", file=sys.stderr)
        return 1


def _print_json(value: object) -> None:
    print(json.dumps(value, indent=2, sort_keys=True, default=str))


# for the commands of other modules (server.app.botevents_cli)
operator, run_job, print_json = _operator, _run, _print_json


# -- jantaku event ... -----------------------------------------------------------------------------------


def register(sub: SubParsers) -> None:
    """``jantaku event list|show|create|seat|start|standings|finish-round``."""
    event = sub.add_parser("event", help="tournaments: create, seat, start, standings (docs/tournaments.md)")
    esub = event.add_subparsers(dest="event_command", metavar="ACTION")
    event.set_defaults(handler=lambda _args: usage(event))

    ls = esub.add_parser("list", help="every event")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=run_list)
    show = esub.add_parser("show", help="an event: settings, entrants, rounds, tables, walls")
    show.add_argument("event_id")
    show.set_defaults(handler=run_show)
    create = esub.add_parser("create", help="create an event from a JSON file of its settings")
    create.add_argument("file", type=Path)
    create.add_argument("--organizer", help="an account to name as the event's organizer")
    create.add_argument("--reason", default="")
    create.set_defaults(handler=run_create)
    seat = esub.add_parser("seat", help="seat the next round (its tables are made by start)")
    seat.add_argument("event_id")
    seat.add_argument("--script", type=Path, help="the round's tables as CSV or JSON (scripted seating)")
    seat.add_argument("--reason", default="")
    seat.set_defaults(handler=run_seat)
    start = esub.add_parser("start", help="start the seated round on the running server (its HTTP API)")
    start.add_argument("event_id")
    start.add_argument("--api", required=True, help="the server's HTTP API, e.g. http://127.0.0.1:8766")
    start.add_argument("--token", required=True, help="an organizer's or an administrator's token")
    start.add_argument("--key", help="idempotency key: starting again with it changes nothing")
    start.add_argument("--reason", default="")
    start.set_defaults(handler=run_start)
    st = esub.add_parser("standings", help="the standings (a table, --csv or --json)")
    st.add_argument("event_id")
    fmt = st.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true")
    fmt.add_argument("--json", action="store_true")
    st.set_defaults(handler=run_standings)
    fin = esub.add_parser(
        "finish-round", help="finish the running round (every table ended): reveal its seeds"
    )
    fin.add_argument("event_id")
    fin.add_argument("--reason", default="")
    fin.set_defaults(handler=run_finish_round)
    for p in (ls, show, create, seat, st, fin):
        add_database_options(p)
    register_more(esub)
    from server.app import botevents_cli  # its commands use this module's helpers: imported here

    botevents_cli.register(esub)  # event bot-entrant, event comparison


def register_admin(asub: SubParsers) -> None:
    """``jantaku admin organizer grant|revoke NAME --reason ...`` and ``admin events rebuild``."""
    org = asub.add_parser("organizer", help="grant or revoke the organizer role (events)")
    osub = org.add_subparsers(dest="organizer_command", metavar="ACTION")
    org.set_defaults(handler=lambda _args: usage(org))
    for action in ("grant", "revoke"):
        p = osub.add_parser(action, help=f"{action} the organizer role")
        p.add_argument("name", help="the account's name")
        p.add_argument("--reason", required=True, help="why (kept in the audit log)")
        add_database_options(p)
        p.set_defaults(handler=run_organizer, granted=action == "grant")
    events = asub.add_parser("events", help="events (tournaments)")
    evsub = events.add_subparsers(dest="events_command", metavar="ACTION")
    events.set_defaults(handler=lambda _args: usage(events))
    rb = evsub.add_parser(
        "rebuild", help="recompute standings from the stored games and adjustments, compare with those shown"
    )
    rb.add_argument("event_id", nargs="?", help="one event (default: every event)")
    rb.add_argument("--check", action="store_true", help="report differences (exit 1 if any)")
    add_database_options(rb)
    rb.set_defaults(handler=run_rebuild)


def run_list(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        events = await service.events()
        if args.json:
            _print_json([{"id": e.id, "name": e.settings.name, "status": e.status.value} for e in events])
            return 0
        for e in events:
            print(f"{e.id}  {e.status.value:<9} {e.settings.rounds} rounds  {e.settings.name}")
        if not events:
            print("no events")
        return 0

    return _run(args, job)


def run_show(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        view = await service.view(args.event_id)
        e = view.event
        _print_json(
            {
                "id": e.id,
                "name": e.settings.name,
                "status": e.status.value,
                "organizers": list(e.organizers),
                "rounds_planned": e.settings.rounds,
                "entrants": [
                    {
                        "id": x.entrant_id,
                        "name": x.name,
                        "kind": x.kind,
                        "status": x.status.value,
                        "start_points": x.start_points,
                    }
                    for x in view.entrants
                ],
                "rounds": [
                    {
                        "number": r.number,
                        "status": r.status.value,
                        "tables": [
                            {
                                "index": t.index,
                                "entrants": list(t.entrants),
                                "match_id": t.match_id,
                                "set": t.set_id,
                                "stand_ins": [dataclasses.asdict(s) for s in t.stand_ins],
                                "locked": list(t.locked),
                                "start_scores": t.start_scores,
                            }
                            for t in r.tables
                        ],
                        "sets": [
                            {"set_id": p.set_id, "seed_commitment": p.seed_commitment, "seed": p.seed_hex}
                            for p in r.sets
                        ],
                    }
                    for r in view.rounds
                ],
            }
        )
        return 0

    return _run(args, job)


def run_create(args: argparse.Namespace) -> int:
    try:
        data = json.loads(Path(args.file).read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("the file must hold a JSON object")
        settings = settings_from_dict(data)
    except (OSError, ValueError) as exc:
        print(f"error: {args.file}: {exc}", file=sys.stderr)
        return 2
    except EventError as exc:
        print(f"error: {args.file}: {exc.message}", file=sys.stderr)
        return 2

    async def job(service: EventService, repo: SqlRepository) -> int:
        organizer = None
        if args.organizer:
            organizer = await repo.account_by_name(args.organizer)
            if organizer is None:
                raise EventError("not_found", f"no account named {args.organizer!r}")
        actor = _operator()
        event = await service.create(actor, settings, args.reason or data.get("reason", ""))
        if organizer is not None:
            await service.add_organizer(actor, event.id, organizer.id, "named on the command line")
        print(event.id)
        return 0

    return _run(args, job)


def run_seat(args: argparse.Namespace) -> int:
    script = None
    if args.script is not None:
        try:
            script = Path(args.script).read_text(encoding="utf-8")
        except OSError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2

    async def job(service: EventService, repo: SqlRepository) -> int:
        rnd = await service.seat(_operator(), args.event_id, script=script, reason=args.reason)
        print(f"round {rnd.number} seated: {len(rnd.tables)} tables")
        for t in rnd.tables:
            print(f"  table {t.index} ({t.set_id}): {', '.join(t.entrants)}")
        return 0

    return _run(args, job)


def run_standings(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        formula = (await service.view(args.event_id)).event.settings.formula
        rows = await service.standings(args.event_id)
        if args.csv:
            sys.stdout.write(standings_csv(rows, formula))
        elif args.json:
            _print_json([{"rank": r.rank, "name": r.name, "total": r.total, "games": r.games} for r in rows])
        else:
            for r in rows:
                print(f"{r.rank:>4}  {r.shown(Formula(formula)):>8}  {r.games:>3} games  {r.name}")
        return 0

    return _run(args, job)


def run_finish_round(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        rnd = await service.finish_round(_operator(), args.event_id, args.reason)
        print(f"round {rnd.number} finished; seeds revealed:")
        for p in rnd.sets:
            print(f"  {p.set_id}: {p.seed_hex}")
        return 0

    return _run(args, job)


def run_organizer(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        account = await repo.account_by_name(args.name)
        if account is None:
            raise EventError("not_found", f"no account named {args.name!r}")
        await service.grant_organizer(_operator(), account.id, args.granted, args.reason)
        print(f"{account.name}: organizer role {'granted' if args.granted else 'revoked'}")
        return 0

    return _run(args, job)


def run_rebuild(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        store: EventStore = repo
        ids = [args.event_id] if args.event_id else [e.id for e in await service.events()]
        problems = []
        for event_id in ids:
            found = await rebuild_check(service, store, StoredResults(repo), event_id)
            problems += [f"{event_id}: {p}" for p in found]
        for p in problems:
            print(p)
        print(f"{len(ids)} events checked: {len(problems)} differences")
        return 1 if problems and args.check else 0

    return _run(args, job)


# -- start: over the running server's HTTP API ------------------------------------------------------------


def run_start(args: argparse.Namespace) -> int:
    result = post_action(args, "start", {})
    if result is None:
        return 1
    print(f"round {result['number']} {result['status']}:")
    for t in result["tables"]:
        print(f"  table {t['index']}: {t['match_id']}  {', '.join(t['entrants'])}")
    return 0


def post_action(args: argparse.Namespace, action: str, body: dict[str, Any]) -> Any:
    """POST ``body`` (with ``--reason`` and ``--key``) to the event's ``action`` on the running
    server's HTTP API; its JSON answer, or None once the error is printed."""
    body = {"reason": args.reason} | body
    if args.key:
        body["key"] = args.key
    url = f"{args.api.rstrip('/')}/api/events/{args.event_id}/{action}"
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {args.token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        try:
            error = json.loads(exc.read())["error"]
            print(f"error: {error['code']}: {error['message']}", file=sys.stderr)
        except (ValueError, KeyError, TypeError):
            print(f"error: {url}: HTTP {exc.code}", file=sys.stderr)
        return None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        print(f"error: {url}: {exc}", file=sys.stderr)
        return None


# -- the organizers' other actions --------------------------------------------------------------------------


def _server_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--api", required=True, help="the server's HTTP API, e.g. http://127.0.0.1:8766")
    p.add_argument("--token", required=True, help="an organizer's or an administrator's token")
    p.add_argument("--key", help="idempotency key: sending the action again with it changes nothing")
    p.add_argument("--reason", default="")


def register_more(esub: SubParsers) -> None:
    """``jantaku event pause|resume|end-table|lock|unlock|substitute`` (on the running server, over
    its HTTP API) and ``start-points|adjust|notice|checkin|close|moves|export`` (on the database)."""
    for name, helptext in (("pause", "pause a table, or every table"), ("resume", "resume it")):
        p = esub.add_parser(name, help=f"{helptext} of the running round (on the server)")
        p.add_argument("event_id")
        p.add_argument("--table", type=int, help="a table's index (default: every table)")
        _server_options(p)
        p.set_defaults(handler=run_pause, action=name)
    end = esub.add_parser("end-table", help="end a table early by rule (on the server)")
    end.add_argument("event_id")
    end.add_argument("table", type=int)
    _server_options(end)
    end.set_defaults(handler=run_end_table)
    for name in ("lock", "unlock"):
        p = esub.add_parser(name, help=f"{name} a seat of the seated or running round (on the server)")
        p.add_argument("event_id")
        p.add_argument("--table", type=int, required=True)
        p.add_argument("--seat", type=int, required=True)
        _server_options(p)
        p.set_defaults(handler=run_lock, action=name)
    sub = esub.add_parser("substitute", help="seat a substitute: an account id or bot:NAME (on the server)")
    sub.add_argument("event_id")
    sub.add_argument("--table", type=int, required=True)
    sub.add_argument("--seat", type=int, required=True)
    sub.add_argument("--by", required=True, help="the substitute: an account id, or bot:NAME")
    _server_options(sub)
    sub.set_defaults(handler=run_substitute)

    sp = esub.add_parser("start-points", help="an entrant's start points at the tables made from now on")
    sp.add_argument("event_id")
    sp.add_argument("entrant")
    sp.add_argument("points", help="a multiple of 100, or 'default' (the ruleset's)")
    adj = esub.add_parser("adjust", help="a penalty or correction in the formula's unit, with a reason")
    adj.add_argument("event_id")
    adj.add_argument("entrant")
    adj.add_argument("amount", type=int)
    note = esub.add_parser("notice", help="a notice to every entrant (shown with the event)")
    note.add_argument("event_id")
    note.add_argument("text")
    ci = esub.add_parser("checkin", help="check an entrant in (or --out) for the next round, before seating")
    ci.add_argument("event_id")
    ci.add_argument("entrant")
    ci.add_argument("--out", action="store_true", help="check the entrant out instead")
    close = esub.add_parser("close", help="close the event before its last round (a reason is required)")
    close.add_argument("event_id")
    mv = esub.add_parser("moves", help="a game's moves, a substitute's marked (JSON)")
    mv.add_argument("event_id")
    mv.add_argument("match_id")
    ex = esub.add_parser("export", help="every game (tenhou.net/6 and mjai) and the standings, one zip")
    ex.add_argument("event_id")
    ex.add_argument("--out", type=Path, required=True, help="the zip file to write")
    jobs = (
        (sp, run_start_points),
        (adj, run_adjust),
        (note, run_notice),
        (ci, run_checkin),
        (close, run_close),
    )
    for p, handler in jobs:
        p.add_argument("--reason", default="")
        p.add_argument("--key", help="idempotency key: sending the action again with it changes nothing")
        p.set_defaults(handler=handler)
    mv.set_defaults(handler=run_moves)
    ex.set_defaults(handler=run_export)
    for p in (sp, adj, note, ci, close, mv, ex):
        add_database_options(p)


def run_pause(args: argparse.Namespace) -> int:
    result = post_action(args, args.action, {"table": args.table})
    if result is None:
        return 1
    which = "every table" if args.table is None else f"table {args.table}"
    print(f"{which}: {'paused' if result['paused'] else 'resumed'}")
    return 0


def run_end_table(args: argparse.Namespace) -> int:
    result = post_action(args, f"tables/{args.table}/end", {})
    if result is None:
        return 1
    print(f"table {result['ended']} ended")
    return 0


def run_lock(args: argparse.Namespace) -> int:
    result = post_action(args, args.action, {"table": args.table, "seat": args.seat})
    if result is None:
        return 1
    print(f"table {args.table} seat {args.seat}: {args.action}ed")
    return 0


def run_substitute(args: argparse.Namespace) -> int:
    body = {"table": args.table, "seat": args.seat, "substitute": args.by}
    result = post_action(args, "substitute", body)
    if result is None:
        return 1
    table = result["tables"][args.table]
    by, entrant = table["stand_ins"][-1]["by"], table["entrants"][args.seat]
    print(f"table {args.table} seat {args.seat}: {by} plays for {entrant}")
    return 0


def run_start_points(args: argparse.Namespace) -> int:
    points: int | None = None
    if args.points != "default":
        try:
            points = int(args.points)
        except ValueError:
            print(f"error: points: a multiple of 100 or 'default', got {args.points!r}", file=sys.stderr)
            return 2

    async def job(service: EventService, repo: SqlRepository) -> int:
        await service.set_start_points(
            _operator(), args.event_id, args.entrant, points, args.reason, key=args.key
        )
        print(f"{args.entrant}: start points {points if points is not None else 'of the ruleset'}")
        return 0

    return _run(args, job)


def run_adjust(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        await service.adjust(_operator(), args.event_id, args.entrant, args.amount, args.reason, key=args.key)
        print(f"{args.entrant}: adjusted by {args.amount}")
        return 0

    return _run(args, job)


def run_notice(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        await service.notice(_operator(), args.event_id, args.text, key=args.key)
        print("notice sent")
        return 0

    return _run(args, job)


def run_checkin(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        record = await service.check_in_for(
            _operator(), args.event_id, args.entrant, not args.out, args.reason, key=args.key
        )
        rounds = ", ".join(map(str, record.checked_in)) or "none"
        print(f"{args.entrant}: checked {'out' if args.out else 'in'}; checked in for rounds: {rounds}")
        return 0

    return _run(args, job)


def run_close(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        closed = await service.close(_operator(), args.event_id, args.reason, key=args.key)
        dropped = "" if closed.dropped_round is None else f"; seated round {closed.dropped_round} dropped"
        print(f"{args.event_id}: {closed.status} after {closed.rounds_played} rounds{dropped}")
        return 0

    return _run(args, job)


def run_moves(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        moves = await service.moves(_operator(), args.event_id, args.match_id)
        _print_json([dataclasses.asdict(m) for m in moves])
        return 0

    return _run(args, job)


def run_export(args: argparse.Namespace) -> int:
    async def job(service: EventService, repo: SqlRepository) -> int:
        data = await event_archive(service, _operator(), args.event_id)
        try:
            Path(args.out).write_bytes(data)
        except OSError as exc:
            print(f"error: {args.out}: {exc}", file=sys.stderr)
            return 1
        print(f"{args.out}: {len(data)} bytes")
        return 0

    return _run(args, job)
