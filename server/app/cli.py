"""The ``jantaku`` command line: one entry point (``[project.scripts]``; ``python -m server.app``).

The parser is built here, explicitly: each package that has commands offers a
``register(subparsers)`` for its own (``server.bots``: ``play``, ``bot connect``;
``server.records``: ``verify``; ``server.store``: ``db``), and the commands that join several
packages are the composition root's own (``serve``, ``admin``, ``export``, ``simulate``). Nothing
registers itself by being imported, and no package adds to another one's commands.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from server import __version__, buildinfo
from server.app import admin, events_cli, serve, simulate
from server.bots import cli as bots_cli
from server.bots import connect_cli
from server.records import cli as records_cli
from server.store import cli as store_cli

Handler = Callable[[argparse.Namespace], int]
Registrar = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

# In the order ``jantaku --help`` lists them.
REGISTRARS: tuple[Registrar, ...] = (
    bots_cli.register,  # play
    connect_cli.register,  # bot connect
    records_cli.register,  # verify
    simulate.register,  # simulate
    serve.register,  # serve
    admin.register,  # admin ..., export
    events_cli.register,  # event ...
    store_cli.register,  # db
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jantaku",
        description="Jantaku: an authoritative online Riichi Mahjong server.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"jantaku {__version__} ({buildinfo.describe()})",
        help="print the version and which engine build runs (compiled with mypyc, or pure Python)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in REGISTRARS:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    return handler(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
