"""Import boundaries, checked on the source (AST), so no module has to be importable to be judged.

* ``server.engine`` is pure and deterministic (DESIGN.md): no event loop, clock, randomness, OS,
  I/O, persistence or wire types, and nothing from the other ``server`` packages.
* ``client_protocol`` never imports ``server``: bots and clients install it alone.
* The packages of ``server`` are layered (``docs/architecture.md``): each imports only the packages
  below it (``LAYERS``); the composition root ``server.app`` is the only one that may import them all,
  and nothing imports it.

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
    "redis",
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
    "server.cluster",
    "server.app",
)

CLIENT_PROTOCOL_FORBIDDEN: tuple[str, ...] = ("server",)

# Which ``server`` packages each package may import (besides itself). Anything else of ``server`` is
# refused; a new package needs its line here. Read from the bottom: the engine knows nothing, the
# domain (persisted records, errors, the repository port) knows the engine, and so on up to the
# composition root, which builds the server from all of them.
LAYERS: dict[str, frozenset[str]] = {
    "server.engine": frozenset(),
    "server.ranking": frozenset(),  # ranked play's rules: pure data and functions
    "server.tournament": frozenset({"server.engine"}),  # events' seating, walls, standings: pure
    "server.social": frozenset(),  # chat, friends, moderation rules: pure
    "server.domain": frozenset({"server.engine", "server.ranking"}),
    "server.eventlog": frozenset({"server.engine", "server.domain"}),  # the event-log codec
    "server.records": frozenset({"server.engine", "server.eventlog"}),
    "server.bots": frozenset({"server.engine", "server.records"}),
    "server.store": frozenset({"server.engine", "server.ranking", "server.domain", "server.eventlog"}),
    # the application services (accounts, review, ranked rooms, the table factory's port): below
    # every adapter, so they import no hub, web or command-line module
    "server.services": frozenset(
        {
            "server.engine",
            "server.ranking",
            "server.tournament",
            "server.social",
            "server.domain",
            "server.eventlog",
            "server.records",
        }
    ),
    "server.hub": frozenset(
        {
            "server.engine",
            "server.ranking",
            "server.social",
            "server.domain",
            "server.eventlog",
            "server.records",
            "server.bots",
            "server.services",
        }
    ),
    "server.web": frozenset(
        {
            "server.engine",
            "server.ranking",
            "server.domain",
            "server.eventlog",
            "server.records",
            "server.services",
            "server.tournament",  # pure: the events API shows standings in their formula's unit
        }
    ),
    # cluster mode: registry, leases, takeover; the hub never imports it (docs/scaling.md); it
    # carries the table factory's commands (server.services.tables) between nodes
    "server.cluster": frozenset({"server.engine", "server.domain", "server.hub", "server.services"}),
    "server.app": frozenset(
        {
            "server.cluster",
            "server.engine",
            "server.ranking",
            "server.tournament",
            "server.social",
            "server.domain",
            "server.eventlog",
            "server.records",
            "server.bots",
            "server.store",
            "server.services",
            "server.hub",
            "server.web",
        }
    ),
}


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
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
SERVER_MODULES = [p for p in _modules("server") if p.parent != ROOT / "server"]


def _package_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


def layer_violations(
    source: str,
    module: str,
    *,
    is_package: bool = False,
    layers: dict[str, frozenset[str]] = LAYERS,
) -> list[str]:
    """The imports of ``server`` packages that ``module``'s package may not make (``layers``)."""
    package = _package_of(module)
    if package not in layers:
        return [f"{module}: package {package} has no line in LAYERS (add one: what may it import?)"]
    allowed = layers[package] | {package}
    found = []
    for line, name in imported_modules(source, module, is_package=is_package):
        parts = name.split(".")
        if parts[0] != "server" or len(parts) < 2:
            continue
        target = _package_of(name)
        if target not in layers:
            continue  # ``from server import __version__`` and the like: not a package
        if target not in allowed:
            found.append(f"{module} (line {line}) imports {name!r}: {package} may not import {target}")
    return found


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


PURE_RULES = _modules("server.ranking") + _modules("server.tournament") + _modules("server.social")


@pytest.mark.parametrize("path", PURE_RULES, ids=_module_name)
def test_ranking_module_is_pure(path: Path) -> None:
    """Ranked play's, tournaments' and the social rules are data and functions like the engine's: no
    clock, I/O or store."""
    module = _module_name(path)
    found = violations(
        path.read_text(encoding="utf-8"), module, ENGINE_FORBIDDEN, is_package=path.name == "__init__.py"
    )
    assert not found, "server.ranking, server.tournament and server.social must stay pure:\n" + "\n".join(
        found
    )


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


def check_layers(path: Path, root: Path = ROOT) -> None:
    """The layering test of one module file (``root``: the directory ``server/`` is in)."""
    module = _module_name(path, root)
    found = layer_violations(
        path.read_text(encoding="utf-8"),
        module,
        is_package=path.name == "__init__.py",
    )
    assert not found, "server packages are layered (docs/architecture.md, LAYERS):\n" + "\n".join(found)


@pytest.mark.parametrize("path", SERVER_MODULES, ids=_module_name)
def test_server_packages_import_only_the_layers_below(path: Path) -> None:
    check_layers(path)


# The commands of ``jantaku`` (server/app) work through the services, never through the web package;
# only the composition of ``serve`` (compose.py, review_api.py) mounts the web package's apps.
CLI_MODULES = [p for p in _modules("server.app") if p.name not in ("compose.py", "review_api.py")]


@pytest.mark.parametrize("path", CLI_MODULES, ids=_module_name)
def test_the_cli_imports_nothing_from_the_web_package(path: Path) -> None:
    module = _module_name(path)
    found = violations(path.read_text(encoding="utf-8"), module, ("server.web",))
    assert not found, "the CLI reads through server.services, not server.web:\n" + "\n".join(found)


# Rating a match is the rating service's (server/services/ratings.py): the stores only read and write
# what it computed, so they use none of the rating arithmetic or the rateable check.
STORE_MODULES = _modules("server.store")
RATING_LOGIC: tuple[str, ...] = (
    "server.ranking.ledger.Ledger",
    "server.ranking.ledger.check_rateable",
    "server.ranking.rules",
    "server.ranking.rate_match",
    "server.ranking.rating_change",
    "server.ranking.dan_after",
    "server.domain.ranked.rated_match",
)


@pytest.mark.parametrize("path", STORE_MODULES, ids=_module_name)
def test_the_store_computes_no_rating(path: Path) -> None:
    module = _module_name(path)
    found = violations(path.read_text(encoding="utf-8"), module, RATING_LOGIC)
    assert not found, "the rating service rates; the store persists:\n" + "\n".join(found)


def private_imports(source: str, module: str, *, is_package: bool = False) -> list[str]:
    """The names starting with one underscore that ``source`` imports from another module."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            base = ".".join(p for p in [*parts[: len(parts) - (node.level - 1)], base] if p)
        for alias in node.names:
            if alias.name.startswith("_") and not alias.name.startswith("__") and base != module:
                found.append(f"{module} (line {node.lineno}) imports {base}.{alias.name}, a private name")
    return found


@pytest.mark.parametrize("path", SERVER_MODULES + CLIENT_PROTOCOL_MODULES, ids=_module_name)
def test_no_module_imports_another_modules_private_name(path: Path) -> None:
    module = _module_name(path)
    found = private_imports(path.read_text(encoding="utf-8"), module, is_package=path.name == "__init__.py")
    assert not found, "make the name public where it is defined:\n" + "\n".join(found)


def test_the_private_import_checker() -> None:
    assert private_imports("from server.hub.lobbytypes import _Waiting", "server.hub.crossnode")
    assert private_imports("from .lobbytypes import Waiting, _x", "server.hub.crossnode")
    assert not private_imports("from server.hub.lobbytypes import Waiting, __version__", "server.hub.lobby")
    assert violations("from server.ranking.ledger import Ledger", "server.store.x", RATING_LOGIC)
    assert not violations("from server.ranking.ledger import StandingKey", "server.store.x", RATING_LOGIC)


def test_every_server_package_has_a_layer() -> None:
    packages = {_package_of(_module_name(p)) for p in SERVER_MODULES}
    assert packages <= set(LAYERS), sorted(packages - set(LAYERS))


def test_the_layers_have_no_cycle() -> None:
    def below(package: str) -> set[str]:
        found: set[str] = set()
        todo = list(LAYERS[package])
        while todo:
            nxt = todo.pop()
            if nxt not in found:
                found.add(nxt)
                todo.extend(LAYERS[nxt])
        return found

    assert not [p for p in LAYERS if p in below(p)]
    assert not any("server.app" in below for below in LAYERS.values())


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


@pytest.mark.parametrize(
    ("source", "module"),
    [
        ("from server.web.api.app import create_app", "server.hub.table"),  # hub -> web
        ("from server.store.repository import SqlRepository", "server.hub.server"),  # hub -> store
        ("from server.hub.mjai import MjaiSession", "server.bots.connect"),  # bots -> hub
        ("from server.bots import BOTS", "server.records.cli"),  # records -> bots
        ("from server.hub import auth", "server.store.repository"),  # store -> hub
        ("import server.store.models", "server.web.api.pages"),  # web -> store
        ("from server.app.cli import main", "server.hub.server"),  # nothing imports the root
        ("from server.domain.records import Account", "server.engine.state"),  # engine -> domain
        ("from server.records import export", "server.domain.ports"),  # domain -> records
        ("from ..store import db", "server.hub.server"),  # a relative import: hub -> store
        ("from server.hub.lobby import Lobby", "server.services.tournament"),  # services -> hub
        ("from server.hub.tables import LocalTables", "server.services.tables"),  # services -> hub
        ("from server.web.api import models", "server.services.review"),  # services -> web
        ("from server.app.admin import main", "server.services.auth"),  # services -> CLI
        ("from server.store.repository import SqlRepository", "server.services.review"),  # -> store
        ("from server.hub.lobby import Lobby", "server.web.api.app"),  # web -> hub internals
        ("from server.store.models import MatchRow", "server.web.api.review"),  # web -> store
    ],
)
def test_layer_checker_catches_reverse_imports(source: str, module: str) -> None:
    found = layer_violations(source, module)
    assert found and module in found[0]


@pytest.mark.parametrize(
    ("source", "module"),
    [
        ("from server.services.auth import Authenticator", "server.web.api.app"),
        ("from server.services.tables import TableSpec", "server.hub.tables"),
        ("from server.services.review import Review", "server.app.admin"),
        ("from server.domain.ports import Store", "server.services.review"),
        ("from server.records.export_mjai import MJAI_EVENT_TYPES", "server.bots.connect"),
        ("from server.store.repository import SqlRepository", "server.app.compose"),
        ("from server.domain.ports import Repository", "server.store.repository"),
        ("from server import __version__", "server.hub.server"),
        ("from .inbox import Attach", "server.hub.table"),
        ("import json", "server.domain.records"),
    ],
)
def test_layer_checker_allows_downward_imports(source: str, module: str) -> None:
    assert layer_violations(source, module) == []


def test_layer_checker_refuses_upward_imports() -> None:
    assert layer_violations("from server.store.models import MatchRow", "server.web.api.review")
    assert layer_violations("from server.store.repository import SqlRepository", "server.hub.lobby")
    assert layer_violations("from server.hub.table import TableActor", "server.store.writer")
    assert layer_violations("x = 1", "server.newpkg.mod")  # an unknown package is refused


def test_the_layering_test_fails_on_a_wrong_import(tmp_path: Path) -> None:
    """A synthetic module that breaks the rules: the layering test fails on it, naming the import;
    the same module importing only what its layer may passes."""
    services = tmp_path / "server" / "services"
    services.mkdir(parents=True)
    bad = services / "director.py"
    bad.write_text("from server.hub.lobby import Lobby\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=r"server\.services\.director \(line 1\) imports 'server\.hub"):
        check_layers(bad, tmp_path)
    web = tmp_path / "server" / "web"
    web.mkdir()
    (web / "views.py").write_text("import server.store.models\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=r"server\.web may not import server\.store"):
        check_layers(web / "views.py", tmp_path)
    good = services / "fine.py"
    good.write_text("from server.services.tables import TableFactory\nfrom server.domain import ports\n")
    check_layers(good, tmp_path)
