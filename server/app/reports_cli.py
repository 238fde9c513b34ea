"""``jantaku admin moderation reports ...``: the review queue from the command line (docs/social.md).

* ``reports list [--status open|dismissed|actioned]``: the reports, oldest first;
* ``reports show ID``: one report, its context (the lines around a reported line, the channel or
  match and its step) and the reported player's sanctions;
* ``reports resolve ID --action dismiss|chat-ban|suspend --reason TEXT [--minutes N]``: close it
  (a chat ban or suspension is a sanction, as ``chat-ban`` and ``suspend`` give), written to the
  audit log with the reason.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, cast

from server.app.cliparts import cli_actor, usage
from server.app.compose import run_with_repo
from server.domain.moderation import ModerationStore, ReportRecord
from server.domain.ports import Store
from server.domain.reads import AuditEntry
from server.domain.social import SocialStore
from server.services.reports import Reports, context_of
from server.services.social import SocialError, SocialService
from server.store.cli import add_database_options

if TYPE_CHECKING:
    import argparse as _argparse

    SubParsers = _argparse._SubParsersAction[_argparse.ArgumentParser]


def register_reports(msub: SubParsers) -> None:
    rep = msub.add_parser("reports", help="players' reports: the review queue")
    rsub = rep.add_subparsers(dest="reports_command", metavar="REPORTS_COMMAND")
    rep.set_defaults(handler=lambda _args: usage(rep))
    ls = rsub.add_parser("list", help="the reports, oldest first")
    ls.add_argument("--status", choices=("open", "dismissed", "actioned"), help="only these")
    add_database_options(ls)
    ls.set_defaults(handler=run_list)
    show = rsub.add_parser("show", help="one report with its context")
    show.add_argument("id", type=int)
    add_database_options(show)
    show.set_defaults(handler=run_show)
    res = rsub.add_parser("resolve", help="dismiss a report, or act on it with a chat ban or a suspension")
    res.add_argument("id", type=int)
    res.add_argument("--action", required=True, choices=("dismiss", "chat-ban", "suspend"))
    res.add_argument("--reason", required=True, help="why (stored; a sanction's reason)")
    res.add_argument("--minutes", type=float, help="a sanction's length (default: until lifted)")
    add_database_options(res)
    res.set_defaults(handler=run_resolve)


def _when(t: float | None) -> str:
    return "-" if t is None else datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M")


def _line(r: ReportRecord) -> str:
    state = r.status if r.resolved_at is None else f"{r.status} {_when(r.resolved_at)} by {r.resolved_by}"
    return f"{r.id}\t{_when(r.created_at)}\t{r.where}\t{r.reporter_id}\t{r.target_id}\t{state}\t{r.reason}"


def _reports(store: Store) -> Reports:
    social = SocialService(time.time, store=cast(SocialStore, store))  # both stores are SocialStores
    return Reports(social, cast(ModerationStore, store), now=time.time)


def run_list(args: argparse.Namespace) -> int:
    async def show(store: Store) -> int:
        for record in await _reports(store).list(args.status):
            print(_line(record))
        return 0

    return int(run_with_repo(args, show))


def run_show(args: argparse.Namespace) -> int:
    async def show(store: Store) -> int:
        reports = _reports(store)
        try:
            record = await reports.get(args.id)
        except SocialError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        await reports.social.load()
        print(_line(record))
        if record.resolution is not None:
            print(
                f"resolution: {record.resolution}"
                + (f" (sanction {record.sanction_id})" if record.sanction_id else "")
            )
        context = context_of(record)
        where = context.get("channel") or context.get("match_id")
        if where is not None:
            print(
                f"where: {where}" + (f", step {context['step']}" if context.get("step") is not None else "")
            )
        for line in context.get("lines", []):
            mark = ">" if line.get("id") == context.get("line_id") else " "
            said = line.get("text") if line.get("text") is not None else f"[stamp {line.get('stamp')}]"
            who = f"{line.get('name')} ({line.get('account_id')})"
            print(f"{mark} {_when(line.get('at'))} {who}: {json.dumps(said, ensure_ascii=False)}")
        for s in reports.social.sanctions(record.target_id):
            lifted = f", lifted {_when(s.lifted_at)}" if s.lifted_at is not None else ""
            print(
                f"sanction {s.id}: {s.kind} from {_when(s.starts)} until {_when(s.ends)}{lifted}: {s.reason}"
            )
        return 0

    return int(run_with_repo(args, show))


def run_resolve(args: argparse.Namespace) -> int:
    async def resolve(store: Store) -> int:
        reports, actor = _reports(store), cli_actor()
        action = args.action.replace("-", "_")
        try:
            done = await reports.resolve(args.id, action, args.reason, by=actor, minutes=args.minutes)
        except SocialError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        detail = {"report": args.id, "action": action, "reason": args.reason, "sanction": done.sanction_id}
        await store.record_audit(
            AuditEntry(at=time.time(), actor=actor, action="report.resolve", detail=detail)
        )
        print(_line(done.report))
        return 0

    return int(run_with_repo(args, resolve))
