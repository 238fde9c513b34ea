"""``jantaku serve`` and ``jantaku admin ...`` (accounts).

Until the SQL store lands, ``--database-url`` accepts only ``memory:`` (everything in memory, for
throw-away servers); without it, matches live in memory and player/bot accounts in
``DATA_DIR/accounts.json`` (see ``docs/hub.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import signal
import sys
from pathlib import Path
from typing import cast

from server.bots import BOTS
from server.hub.auth import Authenticator
from server.hub.memory import InMemoryRepository
from server.hub.repository import AccountKind, NotFoundError, RepositoryError
from server.hub.server import HttpFallback, Hub
from server.hub.settings import ConnectionLimits, HubSettings, SettingsError, SpectatePolicy, TableTimers

DEFAULTS = HubSettings()
MEMORY_URL = "memory:"


def _store_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data-dir", type=Path, default=DEFAULTS.data_dir, help="data directory (default: ./data)"
    )
    p.add_argument(
        "--database-url",
        default=None,
        help="store URL; until the SQL store lands only 'memory:' (nothing kept on disk) is accepted",
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    t, lim = TableTimers(), ConnectionLimits()
    p = sub.add_parser("serve", help="run the hub: websocket tables, lobby, /healthz")
    p.add_argument("--host", default=DEFAULTS.host, help=f"interface (default {DEFAULTS.host})")
    p.add_argument("--port", type=int, default=DEFAULTS.port, help=f"port (default {DEFAULTS.port}; 0: any)")
    _store_options(p)
    p.add_argument("--action-ms", type=int, default=t.action_ms, help="time per decision (ms)")
    p.add_argument("--bank-ms", type=int, default=t.bank_ms, help="time bank per player and match (ms)")
    p.add_argument(
        "--min-call-ms", type=int, default=t.min_call_ms, help="uniform minimum call window (ms; 0: off)"
    )
    p.add_argument(
        "--disconnect-grace-ms",
        type=int,
        default=t.disconnect_grace_ms,
        help="wait before auto-playing a disconnected seat",
    )
    p.add_argument(
        "--bot-delay-ms", type=int, default=t.bot_delay_ms, help="built-in bots answer after this long"
    )
    p.add_argument(
        "--bot-fill-after",
        type=float,
        default=DEFAULTS.bot_fill_after_s,
        help="quick match: seconds before bots fill empty seats",
    )
    p.add_argument(
        "--fill-bot",
        default=DEFAULTS.fill_bot,
        choices=sorted(BOTS),
        help="the built-in bot that fills seats",
    )
    p.add_argument("--spectate-delay-steps", type=int, default=DEFAULTS.spectate.delay_steps)
    p.add_argument("--spectate-delay-s", type=float, default=DEFAULTS.spectate.delay_s)
    p.add_argument("--no-spectators", action="store_true", help="refuse spectators")
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="allow browsers from ORIGIN (repeatable; '*': any)",
    )
    p.add_argument("--rate", type=float, default=lim.rate_per_s, help="messages per second per connection")
    p.add_argument("--burst", type=int, default=lim.rate_burst, help="message burst per connection")
    p.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    p.set_defaults(handler=run_serve)

    admin = sub.add_parser("admin", help="accounts: create bots and players, revoke, list")
    asub = admin.add_subparsers(dest="admin_command", metavar="ACTION")
    for kind in (AccountKind.BOT, AccountKind.PLAYER):
        c = asub.add_parser(
            f"create-{kind.value}", help=f"create a {kind.value} account and print its token once"
        )
        c.add_argument("name")
        _store_options(c)
        c.set_defaults(handler=run_create, kind=kind)
    r = asub.add_parser("revoke", help="revoke an account's token (and its sessions)")
    r.add_argument("name")
    _store_options(r)
    r.set_defaults(handler=run_revoke)
    ls = asub.add_parser("list", help="list player and bot accounts (never tokens)")
    _store_options(ls)
    ls.set_defaults(handler=run_list)

    def admin_help(args: argparse.Namespace) -> int:
        admin.print_help()
        return 2

    admin.set_defaults(handler=admin_help)


def _open_repo(args: argparse.Namespace) -> InMemoryRepository | None:
    url = args.database_url
    if url is None:
        return InMemoryRepository(accounts_path=Path(args.data_dir) / "accounts.json")
    if url == MEMORY_URL:
        return InMemoryRepository()
    print(
        f"error: --database-url {url!r}: the SQL store is not available yet; omit it (accounts are kept "
        f"in {Path(args.data_dir) / 'accounts.json'}) or use {MEMORY_URL!r}",
        file=sys.stderr,
    )
    return None


def run_serve(args: argparse.Namespace) -> int:
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = HubSettings(
            host=args.host,
            port=args.port,
            data_dir=Path(args.data_dir),
            database_url=args.database_url,
            timers=TableTimers(
                action_ms=args.action_ms,
                bank_ms=args.bank_ms,
                min_call_ms=args.min_call_ms,
                disconnect_grace_ms=args.disconnect_grace_ms,
                bot_delay_ms=args.bot_delay_ms,
            ),
            spectate=SpectatePolicy(
                delay_steps=args.spectate_delay_steps,
                delay_s=args.spectate_delay_s,
                allowed=not args.no_spectators,
            ),
            limits=ConnectionLimits(rate_per_s=args.rate, rate_burst=args.burst),
            bot_fill_after_s=args.bot_fill_after,
            fill_bot=args.fill_bot,
            allowed_origins=tuple(args.allow_origin),
        )
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    repo = _open_repo(args)
    if repo is None:
        return 2
    try:
        asyncio.run(_serve(settings, repo))
    except OSError as exc:
        print(f"error: cannot listen on {settings.host}:{settings.port}: {exc}", file=sys.stderr)
        return 1
    return 0


def _browser_client() -> HttpFallback | None:
    """The browser client's static files (``server.web``), when that package is installed."""
    try:
        module = importlib.import_module("server.web.static")
    except ModuleNotFoundError:
        return None
    return cast(HttpFallback, module.static_response)


async def _serve(settings: HubSettings, repo: InMemoryRepository) -> None:
    hub = Hub(settings, repo, http_fallback=_browser_client())
    await hub.start()
    urls = hub.urls()
    print(f"Jantaku hub running. Connect clients to {urls['websocket']}", flush=True)
    if hub.serves_browser_client:
        print(f"  play in a browser: {urls['browser']}", flush=True)
    print(f"  health check: {urls['health']}", flush=True)
    print(
        "  protocol: docs/protocol.md; operations: docs/hub.md. Ctrl-C (SIGINT) or SIGTERM stops.", flush=True
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        await hub.shutdown()


def run_create(args: argparse.Namespace) -> int:
    repo = _open_repo(args)
    if repo is None:
        return 2
    kind: AccountKind = args.kind
    try:
        account, token = asyncio.run(Authenticator(repo, session_ttl_s=0).create_account(args.name, kind))
    except (ValueError, RepositoryError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"created {kind.value} {account.name!r} (id {account.id}). Its token, shown only this once:")
    print(token)
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    repo = _open_repo(args)
    if repo is None:
        return 2
    try:
        account = asyncio.run(Authenticator(repo, session_ttl_s=0).revoke(args.name))
    except NotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"revoked {account.kind.value} {account.name!r} (id {account.id})")
    return 0


def run_list(args: argparse.Namespace) -> int:
    repo = _open_repo(args)
    if repo is None:
        return 2
    for a in asyncio.run(repo.list_accounts()):
        state = "revoked" if a.revoked_at is not None else "active"
        print(f"{a.kind.value:6} {a.name:32} {a.id:20} {state}")
    return 0
