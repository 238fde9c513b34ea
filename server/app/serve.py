"""``jantaku serve``: the hub, the browser client and the admin review API in one process.

Every setting comes from its flag, else its environment variable, else the ``--config`` TOML file,
else its default (:mod:`server.hub.config`, docs/operations.md). The data lives in the database of
``server.store`` (``docs/store.md``): the embedded SQLite file ``DATA_DIR/jantaku.sqlite3`` by
default (created by running the migrations), PostgreSQL with ``--database-url`` / ``DATABASE_URL``;
``--database-url memory:`` keeps everything in memory instead (throw-away servers, tests). The parts
are put together by :mod:`server.app.compose`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from sqlalchemy.exc import SQLAlchemyError

from server import __version__, buildinfo
from server.app.compose import MEMORY_URL, open_repository, repository_url, running_server
from server.app.loops import LOOP_CHOICES, LoopUnavailableError, choose_loop
from server.app.review_api import ReviewServer
from server.app.review_api import review_port as review_port_option
from server.bots import BOTS
from server.cluster.settings import (
    ClusterSettings,
    ClusterSettingsError,
    cluster_store_error,
    default_node_id,
)
from server.domain.ports import Store
from server.hub import config, logs
from server.hub.server import Hub
from server.hub.settings import (
    ConnectionLimits,
    GcPolicy,
    HubSettings,
    SettingsError,
    SpectatePolicy,
    TableTimers,
)
from server.social.chat import TEXT_MODES
from server.social.lobby import LobbySettings
from server.store.cli import add_database_options
from server.store.db import display_url
from server.store.errors import StoreConfigError

if TYPE_CHECKING:
    from server.cluster.node import ClusterNode

log = logging.getLogger(__name__)

DEFAULTS = HubSettings()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``jantaku serve``."""
    t, lim = DEFAULTS.timers, ConnectionLimits()
    p = sub.add_parser(
        "serve",
        help="run the hub: websocket tables, lobby, /healthz, /readyz, /metrics",
        description="Run the hub. Every setting comes from its flag, else its environment variable "
        "(JANTAKU_<OPTION>; the database URL: DATABASE_URL), else the --config TOML file (key = the "
        "option name with underscores), else its default. See docs/operations.md.",
    )
    p.add_argument(
        "--config", metavar="FILE", help="a TOML file of settings (keys: the option names with underscores)"
    )
    p.add_argument("--host", default=DEFAULTS.host, help=f"interface (default {DEFAULTS.host})")
    p.add_argument("--port", type=int, default=DEFAULTS.port, help=f"port (default {DEFAULTS.port}; 0: any)")
    p.add_argument(
        "--http-port",
        type=int,
        default=None,
        help="admin review API and pages (docs/admin.md); default: --port + 1 (any if --port is 0); -1: off",
    )
    add_database_options(p)
    p.add_argument("--action-ms", type=int, default=t.action_ms, help="time per decision (ms)")
    p.add_argument("--bank-ms", type=int, default=t.bank_ms, help="time bank per player and match (ms)")
    p.add_argument(
        "--min-call-ms", type=int, default=t.min_call_ms, help="uniform minimum call window (ms; 0: off)"
    )
    p.add_argument(
        "--disconnect-grace-ms",
        type=int,
        default=t.disconnect_grace_ms,
        help="extra time a seat without a connection gets once its own action time and bank are "
        "spent, before the server plays for it (it keeps its own clock either way)",
    )
    p.add_argument(
        "--bot-delay-ms",
        type=int,
        default=t.bot_delay_ms,
        help="built-in bots take this long over their own turns (call windows: at once)",
    )
    p.add_argument(
        "--hand-pause-ms",
        type=int,
        default=t.hand_pause_ms,
        help="at tables with a human seat, the next hand starts this long after a hand ends",
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
    p.add_argument(
        "--spectate-delay-steps",
        type=int,
        default=DEFAULTS.spectate.delay_steps,
        help="spectators see an event once this many more events have been shown to the players",
    )
    p.add_argument(
        "--spectate-delay-s",
        type=float,
        default=DEFAULTS.spectate.delay_s,
        help="... and this many seconds after the seats saw it",
    )
    p.add_argument(
        "--spectate-delay-hands",
        type=int,
        default=DEFAULTS.spectate.delay_hands,
        help="... and only once this many more hands have begun (0: no hand delay)",
    )
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
    p.add_argument(
        "--ip-connect-rate",
        type=float,
        default=lim.connect_per_ip_per_s,
        help="new websocket connections per second per client address (beyond the burst: HTTP 429)",
    )
    p.add_argument(
        "--ip-connect-burst", type=int, default=lim.connect_per_ip_burst, help="connection burst per address"
    )
    p.add_argument(
        "--ip-guest-rate",
        type=float,
        default=lim.guest_per_ip_per_s,
        help="guest hellos per second per client address (beyond the burst: rate_limited)",
    )
    p.add_argument(
        "--ip-guest-burst", type=int, default=lim.guest_per_ip_burst, help="guest hello burst per address"
    )
    gc_policy = DEFAULTS.gc
    p.add_argument(
        "--gc-freeze-every",
        type=float,
        default=gc_policy.freeze_every_s,
        help="seconds between the hub's own young garbage collections, after each of which what "
        "survives is frozen (gc.freeze), keeping pauses short (0: Python's own collector settings; "
        "docs/operations.md)",
    )
    p.add_argument(
        "--gc-full-every",
        type=float,
        default=gc_policy.full_every_s,
        help="seconds between full garbage collections (each pauses the hub; 0: never)",
    )
    p.add_argument(
        "--gil-switch-interval",
        type=float,
        default=DEFAULTS.gil_switch_interval_s,
        help="seconds a thread may hold the GIL while another waits (sys.setswitchinterval): short, "
        "so the SQLite writer thread gets it back soon after each call at a busy event loop (0: "
        "Python's own 0.005; docs/operations.md)",
    )
    lobby = DEFAULTS.lobby
    p.add_argument(
        "--lobby-history",
        type=int,
        default=lobby.history,
        help=f"lobby chat: lines a player joining a channel is sent (0-200; default {lobby.history})",
    )
    p.add_argument(
        "--lobby-retention-days",
        type=float,
        default=lobby.retention_s / 86400,
        help="lobby chat: lines older than this are deleted, and never shown on join (0: kept for ever; "
        "docs/social.md)",
    )
    p.add_argument(
        "--table-chat",
        action="append",
        default=[],
        metavar="KIND=MODE",
        help="seated players' free text in every room of KIND (private, quick, ranked, tournament): on, "
        "between_hands (not while a hand is live) or off; repeatable (docs/social.md)",
    )
    c = p.add_argument_group("cluster mode (docs/scaling.md)")
    c.add_argument(
        "--redis-url",
        default=None,
        metavar="URL",
        help="run as a node of a cluster coordinated by this Redis (redis://HOST:6379/0); needs "
        "PostgreSQL (--database-url)",
    )
    c.add_argument("--node-id", default=None, help="this node's name in the cluster (default: HOSTNAME-PID)")
    c.add_argument(
        "--advertise-url",
        default=None,
        metavar="URL",
        help="how the other nodes reach this node's game port (default ws://HOST:PORT)",
    )
    c.add_argument("--cluster-secret", default=None, help="the secret the nodes share for their node link")
    c.add_argument(
        "--cluster-prefix",
        default="jantaku",
        help="the prefix of every Redis key (several clusters on one Redis)",
    )
    c.add_argument(
        "--queue-local-wait",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="quick match: a player not paired with players of its own node within this wait goes "
        "to the queue's matcher node, which pairs the players of every node (0: at once)",
    )
    p.add_argument(
        "--drain-s",
        type=float,
        default=DEFAULTS.drain_s,
        help="on SIGTERM, /readyz answers 503 for this many seconds before the server stops "
        "(a load balancer moves traffic away first; a second signal ends it early; 0: off)",
    )
    p.add_argument(
        "--loop",
        default="auto",
        choices=LOOP_CHOICES,
        help="the event loop: uvloop where installed (auto), or asyncio's own (docs/operations.md)",
    )
    p.add_argument(
        "--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="log level"
    )
    p.add_argument(
        "--log-format",
        default=None,
        choices=["json", "text"],
        help="json: one JSON object per line; text: readable lines (unset: text on a terminal, else json)",
    )
    p.set_defaults(handler=run_serve, serve_parser=p, serve_defaults=config.make_layered(p))


# -- serve --------------------------------------------------------------------------------------------


def run_serve(args: argparse.Namespace) -> int:
    try:
        args = config.resolve(args.serve_parser, args, args.serve_defaults)
    except config.ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    logs.configure(args.log_level, args.log_format)
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
                hand_pause_ms=args.hand_pause_ms,
            ),
            spectate=SpectatePolicy(
                delay_steps=args.spectate_delay_steps,
                delay_s=args.spectate_delay_s,
                delay_hands=args.spectate_delay_hands,
                allowed=not args.no_spectators,
            ),
            limits=ConnectionLimits(
                rate_per_s=args.rate,
                rate_burst=args.burst,
                connect_per_ip_per_s=args.ip_connect_rate,
                connect_per_ip_burst=args.ip_connect_burst,
                guest_per_ip_per_s=args.ip_guest_rate,
                guest_per_ip_burst=args.ip_guest_burst,
            ),
            bot_fill_after_s=args.bot_fill_after,
            fill_bot=args.fill_bot,
            allowed_origins=tuple(args.allow_origin),
            gc=GcPolicy(freeze_every_s=args.gc_freeze_every, full_every_s=args.gc_full_every),
            gil_switch_interval_s=args.gil_switch_interval,
            drain_s=args.drain_s,
            lobby=LobbySettings(history=args.lobby_history, retention_s=args.lobby_retention_days * 86400),
            table_chat=table_chat_option(args.table_chat),
        )
        review = review_port_option(settings.port, args.http_port)
    except (SettingsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        url = repository_url(settings.data_dir, settings.database_url)
        cluster = cluster_settings(args, settings, url)
    except (StoreConfigError, ClusterSettingsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        loop_name, loop_factory = choose_loop(args.loop)
    except LoopUnavailableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    log.info("event loop: %s (--loop %s)", loop_name, args.loop)
    try:
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            runner.run(
                _serve(
                    settings, review_port=review, review_required=args.http_port is not None, cluster=cluster
                )
            )
    except StoreConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SQLAlchemyError as exc:
        print(f"error: database {display_url(url)}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: cannot listen on {settings.host}:{settings.port}: {exc}", file=sys.stderr)
        return 1
    return 0


TABLE_KINDS = ("private", "quick", "ranked", "tournament")


def table_chat_option(values: list[str] | str) -> tuple[tuple[str, str], ...]:
    """``--table-chat KIND=MODE`` values (a TOML file or the environment may give one string,
    comma-separated); SettingsError for a malformed one.

    >>> table_chat_option(["ranked=on", "private=off"])
    (('ranked', 'on'), ('private', 'off'))
    """
    items = values.split(",") if isinstance(values, str) else values
    out = []
    for item in items:
        kind, eq, mode = item.strip().partition("=")
        if (
            not eq
            or kind not in ("private", "quick", "ranked", "tournament", "lobby")
            or mode not in TEXT_MODES
        ):
            raise SettingsError(
                f"--table-chat takes KIND=MODE (KIND: private, quick, ranked, tournament; MODE: "
                f"{', '.join(TEXT_MODES)}), got {item!r}"
            )
        out.append((kind, mode))
    return tuple(out)


def cluster_settings(args: argparse.Namespace, settings: HubSettings, url: str) -> ClusterSettings | None:
    """Cluster mode's settings (None without ``--redis-url``). Raises ClusterSettingsError for a
    store other than PostgreSQL or a bad setting."""
    if not args.redis_url:
        return None
    why = cluster_store_error(url)
    if why is not None:
        raise ClusterSettingsError(why)
    host = "127.0.0.1" if settings.host in ("", "0.0.0.0", "::") else settings.host
    return ClusterSettings(
        redis_url=args.redis_url,
        node_id=args.node_id or default_node_id(),
        advertise_url=args.advertise_url or f"ws://{host}:{settings.port}",
        secret=args.cluster_secret,
        key_prefix=args.cluster_prefix,
        queue_local_wait_s=args.queue_local_wait,
    )


async def _serve(
    settings: HubSettings,
    *,
    review_port: int | None = None,
    review_required: bool = False,
    cluster: ClusterSettings | None = None,
) -> None:
    async with open_repository(
        settings.data_dir,
        settings.database_url,
        commit_timeout_s=settings.commit_timeout_s,
        owner=cluster.node_id if cluster else None,
    ) as repo:
        url = repository_url(settings.data_dir, settings.database_url)
        log.info("jantaku %s, %s", __version__, buildinfo.describe())
        log.info("store: %s", display_url(url) if url != MEMORY_URL else "in memory (nothing is kept)")
        if cluster is None:
            await serve_forever(settings, repo, review_port=review_port, review_required=review_required)
            return
        from server.cluster.node import ClusterNode  # loads redis: cluster mode only

        node = ClusterNode(cluster, repo)
        log.info("cluster node %s (redis %s)", cluster.node_id, display_url(cluster.redis_url))
        try:
            await serve_forever(
                settings, repo, review_port=review_port, review_required=review_required, node=node
            )
        finally:
            await node.stop()


async def serve_forever(
    settings: HubSettings,
    repo: Store,
    *,
    review_port: int | None = None,
    review_required: bool = False,
    node: ClusterNode | None = None,
) -> None:
    """Run the server on ``repo`` until SIGTERM or SIGINT, then shut it down (the caller closes
    ``repo``). With ``node``, as that node of a cluster (docs/scaling.md)."""
    status = None
    if node is not None:
        from server.cluster.status import status_reader

        status = status_reader(node.redis, node.settings, repo)
    async with running_server(
        settings,
        repo,
        review_port=review_port,
        review_required=review_required,
        placement=node,
        cluster_status=status,
    ) as (hub, review):
        close_bus = None
        if node is not None:
            hub.metrics.label_node(node.node_id)
            await node.start(hub)
            close_bus = await _social_bus(hub, node)
        try:
            await _announce_and_wait(hub, review)
        finally:
            if close_bus is not None:
                await close_bus()


async def _social_bus(hub: Hub, node: ClusterNode) -> Callable[[], Awaitable[None]]:
    """Cluster mode: lobby chat, presence, invitations and friends' changes reach the players of
    every node through one Redis bus (docs/social.md, "Across nodes")."""
    from server.cluster.socialbus import social_bus  # loads redis: cluster mode only

    bus, close = social_bus(node.settings, node.redis)  # publishes on the node's client
    await bus.start()
    await hub.use_bus(bus)
    return close


def browser_url(page: str, review: ReviewServer | None) -> str:
    """The browser client's URL, with ``?api=`` naming the HTTP API (sign-in, ranks, leaderboards)
    where the page would not find it on its own (it tries its own port + 1; docs/browser.md).

    >>> class R:
    ...     url = "http://127.0.0.1:41025"
    >>> browser_url("http://127.0.0.1:32909/", R())  # type: ignore[arg-type]
    'http://127.0.0.1:32909/?api=http://127.0.0.1:41025'
    >>> R.url = "http://127.0.0.1:32910"
    >>> browser_url("http://127.0.0.1:32909/", R())  # type: ignore[arg-type]
    'http://127.0.0.1:32909/'
    """
    if review is None or review.url is None:
        return page
    parsed, api = urlsplit(page), urlsplit(review.url)
    if parsed.port is not None and api.hostname == parsed.hostname and api.port == parsed.port + 1:
        return page
    return f"{page}?api={review.url}"


async def _announce_and_wait(hub: Hub, review: ReviewServer | None = None) -> None:
    urls = hub.urls()
    print(f"Jantaku hub running. Connect clients to {urls['websocket']}", flush=True)
    if hub.serves_browser_client:
        print(f"  play in a browser: {browser_url(urls['browser'], review)}", flush=True)
        print(f"  your finished games and replays: {urls['browser']}games/", flush=True)
    print(f"  health check: {urls['health']}", flush=True)
    print(f"  mjai bots: {urls['mjai']} (jantaku bot connect; docs/mjai.md)", flush=True)
    if review is not None and review.url is not None:
        print(f"  admin review: {review.url}/admin/ (API {review.url}/api/; docs/admin.md)", flush=True)
    elif review is not None and review.note is not None:
        print(f"  {review.note}", flush=True)
    print(
        "  protocol: docs/protocol.md; operations: docs/operations.md. Ctrl-C (SIGINT) or SIGTERM stops.",
        flush=True,
    )
    recovered = hub.recovery
    if recovered.resumed or recovered.diverged or recovered.unrecoverable:
        print(
            f"  recovered {len(recovered.resumed)} matches; {len(recovered.diverged)} diverged (flagged, "
            f"not resumed), {len(recovered.unrecoverable)} could not be resumed",
            flush=True,
        )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
        stop.clear()  # a second signal ends the drain window early
        await hub.drain(hub.settings.drain_s, interrupt=stop)
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
