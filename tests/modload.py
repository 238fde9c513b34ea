"""Load a script that is not a package module (a bench script, an example) under a name of its own."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def load_module(name: str, path: Path) -> ModuleType:
    """The module in ``path``, registered as ``name`` (so that its dataclasses can find it)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
