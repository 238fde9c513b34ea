"""``jantaku admin ...`` and ``jantaku export``: accounts, game review and the audit log from the
command line (``docs/admin.md``).

* accounts: ``create-bot``, ``create-player``, ``create-admin`` (each prints its token once),
  ``revoke``, ``list``;
* games: ``games list|show|walls``, ``audit`` and ``export``. They read the database directly (the
  same ``--data-dir`` / ``--database-url`` / ``DATABASE_URL`` as ``jantaku serve``), show what the
  admin API shows (through the same review service, :mod:`server.services.review`), and write
  every read of a game to the audit log as ``cli:<os user>``.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeAlias, TypeVar

from pydantic import TypeAdapter
from sqlalchemy.exc import SQLAlchemyError

from server.app import events_cli, moderation
from server.app.cliparts import cli_actor, usage
from server.app.compose import run_with_repo
from server.domain.errors import NotFoundError, RepositoryError
from server.domain.ports import Repository, Store
from server.domain.reads import Lineup, StatusFilter
from server.domain.records import AccountKind
from server.services import reviewtypes as m
from server.services.accounts import AccountInputError, Accounts
from server.services.admins import create_admin
from server.services.auth import Authenticator
from server.services.ratings import RatingService
from server.services.review import GameFilters, Review, ReviewError
from server.store.cli import add_database_options, database_url
from server.store.db import display_url
from server.store.errors import StoreConfigError
from server.store.repository import SqlRepository

T = TypeVar("T")
SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _iso(text: str) -> datetime:
    """A date or ISO 8601 time; UTC when it names no zone."""
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 date or time: {text!r}") from None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def register(sub: SubParsers) -> None:
    """``jantaku admin`` (accounts, games, audit) and ``jantaku export``."""
    admin = sub.add_parser("admin", help="accounts and game review")
    asub = admin.add_subparsers(dest="admin_command", metavar="ACTION")
    admin.set_defaults(handler=lambda _args: usage(admin))
    for kind in (AccountKind.BOT, AccountKind.PLAYER):
        c = asub.add_parser(
            f"create-{kind.value}", help=f"create a {kind.value} account and print its token once"
        )
        c.add_argument("name")
        if kind is AccountKind.PLAYER:
            c.add_argument(
                "--password",
                action="store_true",
                help="give the player a password instead of a token, to sign in on the web client's "
                "ranked card (asked for on the terminal, or read from the first line of standard input)",
            )
        add_database_options(c)
        c.set_defaults(handler=run_create, kind=kind)
    r = asub.add_parser("revoke", help="revoke an account's token (and its sessions)")
    r.add_argument("name")
    add_database_options(r)
    r.set_defaults(handler=run_revoke)
    accounts = asub.add_parser("list", help="list player and bot accounts (never tokens)")
    add_database_options(accounts)
    accounts.set_defaults(handler=run_list_accounts)

    ca = asub.add_parser("create-admin", help="create an admin account (review API) and print its token once")
    ca.add_argument("name")
    add_database_options(ca)
    ca.set_defaults(handler=run_create_admin)

    events_cli.register_admin(asub)  # admin organizer ..., admin events ...

    ratings = asub.add_parser("ratings", help="ranked play's ratings (docs/ranking.md)")
    rsub = ratings.add_subparsers(dest="ratings_command", metavar="RATINGS_COMMAND")
    ratings.set_defaults(handler=lambda _args: usage(ratings))
    rb = rsub.add_parser(
        "rebuild", help="recompute every rating from the stored results; store it unless --check"
    )
    rb.add_argument("--check", action="store_true", help="only report differences (exit 1 if any)")
    add_database_options(rb)
    rb.set_defaults(handler=run_ratings_rebuild)

    moderation.register(asub)  # jantaku admin moderation ... (server/app/moderation.py)

    games = asub.add_parser("games", help="find, show and verify stored games")
    gsub = games.add_subparsers(dest="games_command", metavar="GAMES_COMMAND")
    games.set_defaults(handler=lambda _args: usage(games))

    ls = gsub.add_parser("list", help="list games, newest first (filters combine)")
    ls.add_argument("--json", action="store_true", help="print the API's JSON document")
    ls.add_argument("--player", help="an account id or exact player name")
    ls.add_argument("--search", "-q", dest="q", help="part of a player name (case-insensitive)")
    ls.add_argument(
        "--status", choices=[s.value for s in StatusFilter], help="finished = completed or aborted"
    )
    ls.add_argument("--since", type=_iso, help="created at or after (ISO 8601 date or time, UTC by default)")
    ls.add_argument("--until", type=_iso, help="created before (ISO 8601 date or time, UTC by default)")
    ls.add_argument("--ruleset", help="a ruleset name (tenhou, ema, mahjongsoul, ...) or its hash")
    ls.add_argument("--lineup", choices=[v.value for v in Lineup], help="humans, bots or both at the table")
    ls.add_argument("--seats", type=int, choices=(3, 4), help="only games of that many seats")
    ls.add_argument("--limit", type=int, default=50, help="at most this many (default 50, max 500)")
    ls.add_argument("--offset", type=int, default=0, help="skip this many")
    add_database_options(ls)
    ls.set_defaults(handler=run_list_games)

    show = gsub.add_parser("show", help="one game: ranking, every hand's result, timeouts")
    show.add_argument("game_id", metavar="ID")
    show.add_argument("--json", action="store_true", help="print the API's JSON document")
    add_database_options(show)
    show.set_defaults(handler=run_show)

    walls = gsub.add_parser("walls", help="verify every hand's revealed wall against its commitment")
    walls.add_argument("game_id", metavar="ID")
    walls.add_argument("--json", action="store_true", help="print the API's JSON document")
    add_database_options(walls)
    walls.set_defaults(handler=run_walls)

    audit = asub.add_parser("audit", help="the audit log, most recent first")
    audit.add_argument("--game", dest="game_id", help="only entries about this game")
    audit.add_argument("--limit", type=int, default=50)
    audit.add_argument("--json", action="store_true")
    add_database_options(audit)
    audit.set_defaults(handler=run_audit)

    cl = asub.add_parser("cluster", help="cluster mode: the nodes, their health and load, the tables' owners")
    add_database_options(cl)
    cl.add_argument("--redis-url", required=True, help="the cluster's Redis (redis://HOST:6379/0)")
    cl.add_argument("--cluster-prefix", default="jantaku", help="the prefix of its Redis keys")
    cl.add_argument("--json", action="store_true", help="one JSON document")
    cl.set_defaults(handler=run_cluster)

    ex = sub.add_parser(
        "export",
        help="write a finished game as tenhou.net/6 JSON or mjai JSON lines",
        description=(
            "Write one finished game of the database as a record file. ID is the game's match id "
            "(m-..., the match_id a client is told when seated): `jantaku admin games list` lists "
            "them, newest first; a player finds their own under 'My games' in the web client."
        ),
    )
    ex.add_argument("game_id", metavar="ID", help="the match id, m-... (see `jantaku admin games list`)")
    ex.add_argument(
        "--format",
        required=True,
        choices=[f.value for f in m.ExportFormat],
        help="tenhou6: tenhou.net/6 JSON; mjai: mjai JSON lines",
    )
    ex.add_argument("--out", type=Path, help="write to FILE instead of standard output")
    add_database_options(ex)
    ex.set_defaults(handler=run_export)


def _run(args: argparse.Namespace, fn: Callable[[Review], Awaitable[int]]) -> int:
    """Open the store, run ``fn`` in one event loop, close it; errors are messages and exit codes."""
    try:
        url = database_url(args)
    except StoreConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    async def main() -> int:
        async with await SqlRepository.open(url) as repo:
            return await fn(Review(repo))

    try:
        return asyncio.run(main())
    except StoreConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ReviewError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `jantaku export ... | head`
        return 0
    except (SQLAlchemyError, OSError, RepositoryError) as exc:
        print(f"error: database {display_url(url)}: {exc}", file=sys.stderr)
        return 1


def _print_json(result: object) -> None:
    """A review result as the API's JSON document (the same serializer: pydantic's)."""
    print(TypeAdapter(type(result)).dump_json(result, indent=2).decode())


def _when(value: datetime | None) -> str:
    return "-" if value is None else value.strftime("%Y-%m-%d %H:%M")


def _seats_text(game: m.GameSummary) -> str:
    if game.standings:
        return ", ".join(
            f"{s.rank}. {s.name} {s.score} ({s.final_points:+.1f})"
            for s in sorted(game.standings, key=lambda s: s.rank)
        )
    return ", ".join(s.name + (" [bot]" if s.is_bot else "") for s in game.seats)


# -- accounts ------------------------------------------------------------------------------------------


def run_create(args: argparse.Namespace) -> int:
    kind: AccountKind = args.kind
    if getattr(args, "password", False):
        return _create_with_password(args)

    async def create(repo: Repository) -> int:
        try:
            account, token = await Authenticator(repo, session_ttl_s=0).create_account(args.name, kind)
        except (ValueError, RepositoryError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(f"created {kind.value} {account.name!r} (id {account.id}). Its token, shown only this once:")
        print(token)
        if kind is AccountKind.PLAYER:
            print(
                "It signs in with this token (a program's hello); it has no password, so the web "
                "client's ranked card does not take it: for that, create the player with --password."
            )
        return 0

    return run_with_repo(args, create)


def _create_with_password(args: argparse.Namespace) -> int:
    """A player who signs in on the web with name and password (as if it had registered there)."""
    if sys.stdin.isatty():
        password = getpass.getpass("password: ")
        if getpass.getpass("again: ") != password:
            print("error: the passwords differ", file=sys.stderr)
            return 1
    else:
        password = sys.stdin.readline().rstrip("\r\n")

    async def create(store: Store) -> int:
        accounts = Accounts(store, Authenticator(store, session_ttl_s=0))
        try:
            account = (await accounts.register(args.name, password)).account
        except (AccountInputError, RepositoryError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(
            f"created player {account.name!r} (id {account.id}): it signs in with this name and its "
            "password on the web client's ranked card (it has no token)"
        )
        return 0

    return run_with_repo(args, create)


def run_revoke(args: argparse.Namespace) -> int:
    async def revoke(repo: Repository) -> int:
        try:
            account = await Authenticator(repo, session_ttl_s=0).revoke(args.name)
        except NotFoundError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(f"revoked {account.kind.value} {account.name!r} (id {account.id})")
        return 0

    return run_with_repo(args, revoke)


def run_list_accounts(args: argparse.Namespace) -> int:
    async def listing(repo: Repository) -> int:
        for a in await repo.list_accounts():
            state = "revoked" if a.revoked_at is not None else "active"
            print(f"{a.kind.value:6} {a.name:32} {a.id:20} {state}")
        return 0

    return run_with_repo(args, listing)


def run_ratings_rebuild(args: argparse.Namespace) -> int:
    async def rebuild(store: Store) -> int:
        diffs = await RatingService(store).rebuild(check=args.check)
        for d in diffs:
            print(f"{d.what}: {d.detail}")
        if not diffs:
            print("ratings: the stored ratings equal the recomputation (no difference)")
            return 0
        if args.check:
            print(
                f"ratings: {len(diffs)} differences (nothing changed; without --check the recomputation "
                "is stored)"
            )
            return 1
        print(f"ratings: {len(diffs)} differences; the recomputation is stored")
        return 0

    return run_with_repo(args, rebuild)


# -- game review ---------------------------------------------------------------------------------------


def run_create_admin(args: argparse.Namespace) -> int:
    async def go(review: Review) -> int:
        try:
            account, token = await create_admin(review.repo, args.name)
        except (ValueError, RepositoryError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        await review.audit(
            actor=cli_actor(), actor_id=None, action="account.create_admin", detail={"account_id": account.id}
        )
        print(f"created admin {account.name!r} (id {account.id}). Its token, shown only this once:")
        print(token)
        return 0

    return _run(args, go)


def run_list_games(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= 500 or args.offset < 0:
        print("error: --limit must be 1..500 and --offset >= 0", file=sys.stderr)
        return 2
    f = GameFilters(
        status=None if args.status is None else StatusFilter(args.status),
        player=args.player,
        q=args.q or None,
        ruleset=args.ruleset,
        since=args.since,
        until=args.until,
        lineup=None if args.lineup is None else Lineup(args.lineup),
        seats=args.seats,
        limit=args.limit,
        offset=args.offset,
    )

    async def go(review: Review) -> int:
        await review.audit(actor=cli_actor(), actor_id=None, action="games.list", detail=f.describe())
        page = await review.list_games(f)
        if args.json:
            _print_json(page)
            return 0
        if not page.games:
            print("no games match")
            return 0
        print(f"{'ID':24} {'STATUS':10} {'RULESET':12} {'CREATED (UTC)':17} PLAYERS")
        for g in page.games:
            print(f"{g.id:24} {g.status.value:10} {g.ruleset:12} {_when(g.created_at):17} {_seats_text(g)}")
        shown = f"{page.offset + 1}-{page.offset + len(page.games)}"
        print(f"({shown} of {page.total})")
        return 0

    return _run(args, go)


def run_show(args: argparse.Namespace) -> int:
    async def go(review: Review) -> int:
        game = await review.audited(
            lambda: review.detail(args.game_id),
            actor=cli_actor(),
            actor_id=None,
            action="game.read",
            match_id=args.game_id,
        )
        if args.json:
            _print_json(game)
            return 0
        _print_detail(game)
        return 0

    return _run(args, go)


def _print_detail(g: m.GameDetail) -> None:
    print(f"game {g.id}: {g.status.value}" + (f" ({g.status_reason})" if g.status_reason else ""))
    print(f"  ruleset {g.ruleset} ({g.ruleset_hash[:16]}...), source {g.source or '-'}")
    print(f"  created {_when(g.created_at)} UTC, ended {_when(g.ended_at)} UTC")
    print(f"  engine {g.engine_version}, walls {g.wall_algorithm}, seed commitment {g.seed_commitment}")
    print(f"  seed {g.seed or '(not revealed)'}")
    print("  seats: " + ", ".join(f"{s.seat}: {s.name}" + (" [bot]" if s.is_bot else "") for s in g.seats))
    if g.live:
        print("  live: hands, steps and walls are sealed until the game ends")
        return
    if g.standings:
        print("  ranking:")
        for s in g.standings:
            print(f"    {s.rank}. {s.name:24} {s.score:>7} {s.final_points:+7.1f}")
    print(f"  {len(g.hands)} hands, {g.steps} steps:")
    names = {s.seat: s.name for s in g.seats}
    for h in g.hands:
        print(f"    {h.label:18} {_hand_outcome(h, names)}")
    if g.auto_played:
        print(f"  {len(g.auto_played)} decisions played by the server (timeouts, disconnects):")
        for c in g.auto_by_seat:
            if c.total:
                unknown = c.total - c.timeouts - c.disconnects
                why = f" ({unknown} stored before the reason was recorded)" if unknown else ""
                print(
                    f"    seat {c.seat} ({c.name}): {c.timeouts} timeouts, {c.disconnects} disconnected{why}"
                )
        for a in g.auto_played[:20]:
            print(f"    step {a.step:>5} seat {a.seat} ({a.name}) {a.source or 'server'}: {a.action}")
        if len(g.auto_played) > 20:
            print(f"    ... and {len(g.auto_played) - 20} more (--json lists them all)")


def _hand_outcome(h: m.HandResult, names: dict[int, str]) -> str:
    deltas = " ".join(f"{d:+d}" for d in h.deltas) if h.deltas else ""
    if h.outcome == "won":
        parts = []
        for w in h.wins:
            how = "tsumo" if w.tsumo else f"ron from {names.get(w.from_seat, w.from_seat)}"
            yaku = ", ".join(f"{y.name} {y.han}" for y in w.yaku)
            value = w.limit or f"{w.fu} fu"
            parts.append(f"{names.get(w.seat, w.seat)} {how}: {w.han} han {value}, {w.points} [{yaku}]")
        return "; ".join(parts) + f"  deltas {deltas}"
    if h.outcome == "drawn":
        return f"draw ({h.draw_reason})  deltas {deltas}"
    return "not finished"


def run_walls(args: argparse.Namespace) -> int:
    async def go(review: Review) -> int:
        report = await review.audited(
            lambda: review.walls(args.game_id),
            actor=cli_actor(),
            actor_id=None,
            action="game.verify",
            match_id=args.game_id,
        )
        if args.json:
            _print_json(report)
            return 0 if report.all_ok else 1
        seed = {None: "not revealed", True: "matches its commitment", False: "DOES NOT match its commitment"}
        print(f"game {report.game_id}: seed {seed[report.seed_ok]}")
        for h in report.hands:
            if not h.revealed:
                print(f"  {h.label:18} not revealed (the game ended during this hand)")
                continue
            checks = [
                f"commitment {'ok' if h.commitment_ok else 'MISMATCH'}",
                {None: "", True: "wall from seed ok", False: "wall NOT from seed"}[h.from_seed],
                {None: "", True: "deal ok", False: "deal MISMATCH"}[h.deal_ok],
            ]
            print(f"  {h.label:18} {'ok ' if h.ok else 'BAD'} " + ", ".join(c for c in checks if c))
        print("all revealed walls verified" if report.all_ok else "VERIFICATION FAILED")
        return 0 if report.all_ok else 1

    return _run(args, go)


def run_audit(args: argparse.Namespace) -> int:
    async def go(review: Review) -> int:
        log = await review.audit_log(match_id=args.game_id, limit=max(1, min(args.limit, 1000)))
        if args.json:
            _print_json(log)
            return 0
        for e in log.entries:
            print(f"{e.at:%Y-%m-%d %H:%M:%S} {e.actor:24} {e.action:22} {e.match_id or '-':24} {e.detail}")
        return 0

    return _run(args, go)


def run_export(args: argparse.Namespace) -> int:
    fmt = m.ExportFormat(args.format)

    async def go(review: Review) -> int:
        text = await review.audited(
            lambda: review.export(args.game_id, fmt),
            actor=cli_actor(),
            actor_id=None,
            action="game.export",
            match_id=args.game_id,
            detail={"format": fmt.value},
        )
        if args.out is None:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
        else:
            args.out.write_text(text, encoding="utf-8")  # byte for byte what the API serves
            print(f"wrote {args.out} ({fmt.value})", file=sys.stderr)
        return 0

    return _run(args, go)


def run_cluster(args: argparse.Namespace) -> int:
    """``jantaku admin cluster``: the registry and the leases (Redis), the running matches (the
    database); what ``GET /api/cluster`` answers."""
    from server.cluster.node import REDIS_ERRORS, redis_client  # loads redis: cluster mode only
    from server.cluster.settings import ClusterSettings, ClusterSettingsError
    from server.cluster.status import cluster_status, render

    try:
        settings = ClusterSettings(redis_url=args.redis_url, node_id="admin", key_prefix=args.cluster_prefix)
    except ClusterSettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    async def show(repo: Repository) -> int:
        redis = redis_client(settings)
        try:
            status = await cluster_status(redis, settings, repo)
        except REDIS_ERRORS as exc:
            print(f"error: redis {args.redis_url}: {exc}", file=sys.stderr)
            return 1
        finally:
            await redis.aclose()
        print(json.dumps(status.as_json(), indent=2) if args.json else render(status))
        return 0

    return run_with_repo(args, show)
