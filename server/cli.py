"""The ``jantaku`` command line: one entry point, subcommands registered by their own packages.

Each area adds its subcommands in its own module (``register(subparsers)``) so that the engine,
records, hub and store stay apart; this file only wires them together.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

Handler = Callable[[argparse.Namespace], int]


Registrar = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

# Modules that contribute subcommands, each exposing ``register(subparsers)``.
COMMAND_MODULES = (
    "server.bots.cli",
    "server.records.cli",
    "server.hub.cli",
    "server.store.cli",
    "server.web.api.cli",  # after server.hub.cli: adds to its ``jantaku admin``
)


def _registrars() -> list[Registrar]:
    out: list[Registrar] = []
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                continue  # that area has no commands yet
            raise
        out.append(module.register)
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jantaku",
        description="Jantaku: an authoritative online Riichi Mahjong server.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in _registrars():
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
