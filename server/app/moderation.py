"""``jantaku admin moderation ...``: chat bans, suspensions and reports from the command line
(docs/social.md; the reports: :mod:`server.app.reports_cli`).

* ``chat-ban PLAYER --reason TEXT [--minutes N]``: no chat or stamps anywhere;
* ``suspend PLAYER --reason TEXT [--minutes N]``: no chat and no new seat (a join of a queue or a
  private table is refused; watching is allowed);
* ``lift ID``: end a sanction now;
* ``list [PLAYER] [--active]``: the sanctions, oldest first (lifted and ended ones too: the audit).

``PLAYER`` is an account's name or id. Without ``--minutes`` a sanction lasts until lifted. Every
sanction is stored with its reason, who gave it (``cli:<os user>``) and when; a running server reads
them again within 30 seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, cast

from server.app.cliparts import cli_actor, usage
from server.app.compose import run_with_repo
from server.app.reports_cli import register_reports
from server.domain.ports import Store
from server.domain.social import SanctionRecord, SocialStore
from server.services.social import SocialError, SocialService
from server.social.moderation import SanctionKind
from server.store.cli import add_database_options

if TYPE_CHECKING:
    import argparse as _argparse

    SubParsers = _argparse._SubParsersAction[_argparse.ArgumentParser]


def register(asub: SubParsers) -> None:
    mod = asub.add_parser("moderation", help="chat bans, suspensions and reports (docs/social.md)")
    msub = mod.add_subparsers(dest="moderation_command", metavar="MODERATION_COMMAND")
    mod.set_defaults(handler=lambda _args: usage(mod))
    for name, kind, what in (
        ("chat-ban", SanctionKind.CHAT_BAN, "no chat or stamps anywhere"),
        ("suspend", SanctionKind.SUSPENSION, "no new seat at a table, and no chat"),
    ):
        p = msub.add_parser(name, help=what)
        p.add_argument("player", help="the account's name or id")
        p.add_argument("--reason", required=True, help="why (stored, and told to the player)")
        p.add_argument("--minutes", type=float, help="how long (default: until lifted)")
        add_database_options(p)
        p.set_defaults(handler=run_sanction, kind=kind)
    lift = msub.add_parser("lift", help="end a sanction now")
    lift.add_argument("id", type=int)
    add_database_options(lift)
    lift.set_defaults(handler=run_lift)
    ls = msub.add_parser("list", help="the sanctions, oldest first")
    ls.add_argument("player", nargs="?", help="only this account's (name or id)")
    ls.add_argument("--active", action="store_true", help="only the ones running now")
    add_database_options(ls)
    ls.set_defaults(handler=run_list)
    register_reports(msub)


async def _account_id(store: Store, player: str) -> str | None:
    account = await store.account_by_name(player) or await store.account_by_id(player)
    return None if account is None else account.id


def _when(t: float | None) -> str:
    return "-" if t is None else datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M")


def _line(r: SanctionRecord) -> str:
    state = f"lifted {_when(r.lifted_at)} by {r.lifted_by}" if r.lifted_at is not None else "until lifted"
    if r.lifted_at is None and r.ends is not None:
        state = f"until {_when(r.ends)}" + (" (over)" if r.ends <= time.time() else "")
    return f"{r.id}\t{r.account_id}\t{r.kind}\t{_when(r.starts)}\t{state}\t{r.given_by}\t{r.reason}"


def _service(store: Store) -> SocialService:
    return SocialService(time.time, store=cast(SocialStore, store))  # both stores are SocialStores


def run_sanction(args: argparse.Namespace) -> int:
    async def give(store: Store) -> int:
        account_id = await _account_id(store, args.player)
        if account_id is None:
            print(f"error: no account {args.player!r}", file=sys.stderr)
            return 1
        try:
            record = await _service(store).sanction(
                account_id, args.kind, args.reason, given_by=cli_actor(), minutes=args.minutes
            )
        except SocialError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(_line(record))
        return 0

    return int(run_with_repo(args, give))


def run_lift(args: argparse.Namespace) -> int:
    async def lift(store: Store) -> int:
        try:
            record = await _service(store).lift(args.id, by=cli_actor())
        except SocialError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(_line(record))
        return 0

    return int(run_with_repo(args, lift))


def run_list(args: argparse.Namespace) -> int:
    async def show(store: Store) -> int:
        service = _service(store)
        await service.load()
        account_id = None
        if args.player:
            account_id = await _account_id(store, args.player)
            if account_id is None:
                print(f"error: no account {args.player!r}", file=sys.stderr)
                return 1
        for record in service.sanctions(account_id, active_only=args.active):
            print(_line(record))
        return 0

    return int(run_with_repo(args, show))
