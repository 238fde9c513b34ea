"""Which build of the rules engine runs: compiled with mypyc, or the pure Python reference.

``make install``, the Docker image and a built wheel compile the modules below with mypyc where a
C compiler is present (``hatch_build.py``); the same ``.py`` files stay beside the extension modules
and are the reference implementation. This module, imported first by ``server/__init__.py``, picks
one of the two for the whole process, before any engine module is imported:

* ``JANTAKU_PURE=1`` in the environment forces the pure Python sources (tests run both builds).
* the compiled modules are used only while every source still has the SHA-256 recorded when it was
  compiled (``server/_compiled.json``); an edited source means the extensions are stale, and the
  pure sources run (saying so on stderr) until ``make install`` compiles again.

All the modules switch together (they call each other natively). :func:`engine_build` tells which
build actually runs (``jantaku --version``, the ``serve`` startup log). docs/operations.md, "The
compiled engine", documents the switch.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

# Compiled by hatch_build.py (which reads this literal from the source).
# Not ``server.engine.rules``: compiled dataclass fields check their types on assignment, so a
# ``Ruleset`` built with a wrong value would raise ``TypeError`` before its own validation could
# raise ``RulesetError`` (and a ruleset is read once per match, not per step).
COMPILED_MODULES = (
    "server.engine.actions",
    "server.engine.builder",
    "server.engine.calls",
    "server.engine.endings",
    "server.engine.errors",
    "server.engine.events",
    "server.engine.hand",
    "server.engine.kans",
    "server.engine.match",
    "server.engine.melds",
    "server.engine.options",
    "server.engine.overlap",
    "server.engine.payments",
    "server.engine.scoring",
    "server.engine.state",
    "server.engine.tiles",
    "server.engine.turns",
    "server.engine.views",
    "server.engine.wall",
    "server.bots.builtin",
)

PURE_ENV = "JANTAKU_PURE"
_ROOT = Path(__file__).resolve().parent.parent
_STAMP = Path(__file__).resolve().with_name("_compiled.json")


def _source(module: str) -> Path:
    base = _ROOT / module.replace(".", "/")
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def pure_forced(environ: dict[str, str] | None = None) -> bool:
    value = (os.environ if environ is None else environ).get(PURE_ENV, "")
    return value.strip().lower() not in ("", "0", "false", "no")


def _choose() -> tuple[bool, str]:
    """(use the compiled modules?, why not)."""
    if pure_forced():
        return False, f"{PURE_ENV} is set"
    try:
        recorded: dict[str, str] = json.loads(_STAMP.read_text(encoding="utf-8"))["sources"]
    except (OSError, ValueError, KeyError):
        return False, "not compiled at install (no C compiler, or JANTAKU_PURE was set)"
    for rel, digest in sorted(recorded.items()):
        try:
            current = hashlib.sha256((_ROOT / rel).read_bytes()).hexdigest()
        except OSError:
            current = ""
        if current != digest:
            return False, f"{rel} changed since it was compiled (run `make install` to compile again)"
    return True, ""


class _PureSources(importlib.abc.MetaPathFinder):
    """Imports every ``server`` module that has an extension module beside its ``.py`` file from the
    ``.py`` file (the import system would try the extension first). Every one, not only
    ``COMPILED_MODULES``: a compiled module initialises the others of its build directly, so one
    extension left from an earlier build would bring its whole build back."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("server."):
            return None
        base = _ROOT / fullname.replace(".", "/")
        source = base.with_suffix(".py")
        if not source.is_file():
            return None
        if not any(
            base.with_name(base.name + ext).exists() for ext in importlib.machinery.EXTENSION_SUFFIXES
        ):
            return None
        return importlib.util.spec_from_file_location(fullname, source)


USE_COMPILED, PURE_REASON = _choose()
if not USE_COMPILED:
    if not pure_forced() and _STAMP.exists():
        sys.stderr.write(f"jantaku: using the pure Python engine: {PURE_REASON}\n")
    if not any(isinstance(f, _PureSources) for f in sys.meta_path):
        sys.meta_path.insert(0, _PureSources())


def engine_build() -> str:
    """``"compiled"`` when the engine running in this process is the mypyc build, else ``"pure"``."""
    from server.engine import match

    return "pure" if (match.__file__ or "").endswith(".py") else "compiled"


def describe() -> str:
    """One line for ``jantaku --version`` and the startup log."""
    if engine_build() == "compiled":
        return "engine: compiled (mypyc)"
    return f"engine: pure Python ({PURE_REASON})"
