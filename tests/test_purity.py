"""Import boundaries, checked on the source (AST), so no module has to be importable to be judged.

* ``server.engine`` is pure and deterministic (DESIGN.md): no event loop, clock, randomness, OS,
  I/O, persistence or wire types, and nothing from the other ``server`` packages.
* ``client_protocol`` never imports ``server``: bots and clients install it alone.

``json`` and ``hashlib`` are allowed in the engine (the ruleset document; walls and commitments).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

ENGINE_FORBIDDEN: tuple[str, ...] = (
    # time, randomness, concurrency, OS and I/O
    "asyncio",
    "random",
    "secrets",
    "uuid",
    "time",
    "datetime",
    "os",
    "sys",
    "io",
    "pathlib",
    "shutil",
    "tempfile",
    "socket",
    "ssl",
    "select",
    "selectors",
    "signal",
    "subprocess",
    "threading",
    "multiprocessing",
    "concurrent",
    "logging",
    "importlib",
    "urllib",
    "http",
    # persistence and wire
    "sqlite3",
    "sqlalchemy",
    "alembic",
    "aiosqlite",
    "asyncpg",
    "websockets",
    "msgspec",
    "pydantic",
    "client_protocol",
    # the rest of the server
    "server.hub",
    "server.store",
    "server.web",
    "server.records",
    "server.bots",
    "server.cli",
)

CLIENT_PROTOCOL_FORBIDDEN: tuple[str, ...] = ("server",)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str, *, is_package: bool = False) -> Iterator[tuple[int, str]]:
    """Every module name ``source`` imports, with its line; relative imports resolved.

    ``from a import b`` yields both ``a`` and ``a.b``, since ``b`` may be a submodule.
    """
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(p for p in [*base_parts, node.module or ""] if p)
            else:
                base = node.module or ""
            yield node.lineno, base
            for alias in node.names:
                if alias.name != "*":
                    yield node.lineno, f"{base}.{alias.name}"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "__import__"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.lineno, node.args[0].value


def violations(
    source: str, module: str, forbidden: tuple[str, ...], *, is_package: bool = False
) -> list[str]:
    found = []
    for line, name in imported_modules(source, module, is_package=is_package):
        for banned in forbidden:
            if name == banned or name.startswith(banned + "."):
                found.append(f"{module} (line {line}) imports {name!r}, which is forbidden there ({banned})")
                break
    return found


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package.replace(".", "/")).rglob("*.py"))


ENGINE_MODULES = _modules("server.engine")
CLIENT_PROTOCOL_MODULES = _modules("client_protocol")


def test_the_packages_exist() -> None:
    assert any(p.name == "tiles.py" for p in ENGINE_MODULES)
    assert CLIENT_PROTOCOL_MODULES


@pytest.mark.parametrize("path", ENGINE_MODULES, ids=_module_name)
def test_engine_module_is_pure(path: Path) -> None:
    module = _module_name(path)
    found = violations(
        path.read_text(encoding="utf-8"), module, ENGINE_FORBIDDEN, is_package=path.name == "__init__.py"
    )
    assert not found, "server.engine must stay pure (DESIGN.md):\n" + "\n".join(found)


@pytest.mark.parametrize("path", CLIENT_PROTOCOL_MODULES, ids=_module_name)
def test_client_protocol_never_imports_server(path: Path) -> None:
    module = _module_name(path)
    found = violations(
        path.read_text(encoding="utf-8"),
        module,
        CLIENT_PROTOCOL_FORBIDDEN,
        is_package=path.name == "__init__.py",
    )
    assert not found, "client_protocol must not depend on server:\n" + "\n".join(found)


# -- the checker itself --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "banned_name"),
    [
        ("import random", "random"),
        ("import os.path", "os.path"),
        ("from time import monotonic", "time"),
        ("from datetime import datetime as dt", "datetime"),
        ("import asyncio, json", "asyncio"),
        ("from server import hub", "server.hub"),
        ("from server.store.models import Match", "server.store.models"),
        ("from .. import records", "server.records"),
        ("from ..web import app", "server.web"),
        ("if TYPE_CHECKING:\n    import sqlalchemy", "sqlalchemy"),
        ("def f():\n    import secrets", "secrets"),
        ("m = __import__('subprocess')", "subprocess"),
        ("import client_protocol.messages", "client_protocol.messages"),
    ],
)
def test_checker_catches_forbidden_imports(source: str, banned_name: str) -> None:
    found = violations(source, "server.engine.example", ENGINE_FORBIDDEN)
    assert found
    assert "server.engine.example" in found[0]
    assert repr(banned_name) in found[0]


@pytest.mark.parametrize(
    "source",
    [
        "import json",
        "import hashlib",
        "from dataclasses import dataclass",
        "from server.engine.tiles import Tile",
        "from server.engine import hand as analysis",
        "from . import tiles",
        "from .rules import Ruleset",
        "import timeit_helpers_not_time",  # a prefix is not a match
        "import osaka",
    ],
)
def test_checker_allows_pure_imports(source: str) -> None:
    assert violations(source, "server.engine.example", ENGINE_FORBIDDEN) == []


def test_checker_resolves_relative_imports_in_a_package_init() -> None:
    found = violations("from . import hub", "server", ENGINE_FORBIDDEN, is_package=True)
    assert found and "'server.hub'" in found[0]
    assert violations("from .engine import tiles", "server", ENGINE_FORBIDDEN, is_package=True) == []


def test_client_protocol_checker() -> None:
    assert violations("from server.engine import tiles", "client_protocol.codec", ("server",))
    assert violations("import server", "client_protocol.codec", ("server",))
    assert not violations("import msgspec", "client_protocol.codec", ("server",))
    assert not violations("import serverless", "client_protocol.codec", ("server",))
