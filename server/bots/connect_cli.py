"""``jantaku bot connect``: the command line of :mod:`server.bots.connect` (``docs/mjai.md``).

    jantaku bot connect --server ws://127.0.0.1:8765 --token TOKEN [--queue tenhou] [--games N]
        [--line-mode] -- python my_bot.py {seat}

The token may also come from the environment (``JANTAKU_BOT_TOKEN``), which keeps it out of the
process list.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys

from server.bots.connect import EXIT_FAILED, ConnectOptions, Connector, configure_logging

TOKEN_ENV = "JANTAKU_BOT_TOKEN"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bot = sub.add_parser("bot", help="network bots: seat an mjai bot program at a hub")
    bsub = bot.add_subparsers(dest="bot_command", metavar="ACTION")
    c = bsub.add_parser(
        "connect",
        help="run an mjai bot (stdin/stdout) as a subprocess and play it at a hub's /mjai endpoint",
        description=(
            "Runs COMMAND (a new process per game; '{seat}' in it becomes the bot's seat) and plays it "
            "at the hub. Default: mjai.app batch mode (a JSON array of events per line, one answer "
            "line each); --line-mode: one event per line, answers only where the bot can act."
        ),
    )
    c.add_argument("--server", required=True, help="the hub, e.g. ws://127.0.0.1:8765 (path /mjai)")
    c.add_argument("--token", default=None, help=f"the bot account's API token (or ${TOKEN_ENV})")
    c.add_argument("--queue", default="tenhou", help="quick-match queue (ruleset preset; default tenhou)")
    c.add_argument("--private", default=None, metavar="CODE", help="join this private table instead")
    c.add_argument(
        "--event",
        default=None,
        metavar="ID",
        help="play this event's rounds: wait for the bot's seat at each of its tables (docs/mjai.md)",
    )
    c.add_argument("--games", type=int, default=1, help="games to play before exiting 0 (default 1)")
    c.add_argument("--line-mode", action="store_true", help="one event per line (Mortal-style bots)")
    c.add_argument(
        "--answer-grace",
        type=float,
        default=2.0,
        metavar="S",
        help="seconds an answer is awaited beyond the server's deadline and bank (default 2)",
    )
    c.add_argument("--quiet", action="store_true", help="only warnings and errors on stderr")
    c.add_argument("command", nargs=argparse.REMAINDER, help="-- then the bot's command line")
    c.set_defaults(handler=run_connect)

    def bot_help(args: argparse.Namespace) -> int:
        bot.print_help()
        return 2

    bot.set_defaults(handler=bot_help)


def run_connect(args: argparse.Namespace) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        print("error: give the bot's command after --, e.g. -- python bot.py", file=sys.stderr)
        return 2
    token = args.token or os.environ.get(TOKEN_ENV)
    if not token:
        print(f"error: --token (or ${TOKEN_ENV}) is required", file=sys.stderr)
        return 2
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    configure_logging(verbose=not args.quiet)
    options = ConnectOptions(
        server=args.server,
        token=token,
        command=tuple(command),
        queue=args.queue,
        private=args.private,
        event=args.event,
        games=args.games,
        line_mode=args.line_mode,
        answer_grace_s=args.answer_grace,
    )
    return asyncio.run(_main(options))


async def _main(options: ConnectOptions) -> int:
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, task.cancel)
    try:
        return await Connector(options).run()
    except asyncio.CancelledError:
        print("jantaku bot connect: stopped", file=sys.stderr)
        return EXIT_FAILED
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
