"""Where the shared game-record corpus lives, and parameter lists over its files.

The corpus sits next to the checkout (``../shared/corpus``); without it, corpus tests are skipped
with a reason on a developer's machine, but in CI (``CI=true``, where shared/ is always beside the
clone) a missing corpus fails the run instead of hiding the conformance tests.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

CORPUS = Path(__file__).parents[2].parent / "shared" / "corpus"
MJLOG_DIR = CORPUS / "tenhou_mjlog"
TENHOU6_DIR = CORPUS / "tenhou6_json"
SKIP_REASON = f"the game-record corpus is not at {CORPUS} (it lives next to the checkout)"

if os.environ.get("CI") == "true" and not CORPUS.is_dir():
    raise RuntimeError(f"CI=true but {SKIP_REASON}: the conformance tests must run in CI")

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=SKIP_REASON)

SANMA_CORPUS = CORPUS.parent / "corpus-sanma"  # three-player records, beside the four-player ones
needs_sanma_corpus = pytest.mark.skipif(
    not SANMA_CORPUS.is_dir(), reason=f"the three-player corpus is not at {SANMA_CORPUS}"
)


def _files(directory: Path, pattern: str) -> list[Any]:
    files = sorted(directory.glob(pattern)) if directory.is_dir() else []
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason=SKIP_REASON), id="no-corpus")]
    return [pytest.param(path, id=path.stem) for path in files]


def mjlog_files() -> list[Any]:
    return _files(MJLOG_DIR, "*.xml")


def tenhou6_files() -> list[Any]:
    return _files(TENHOU6_DIR, "*.json")


def paired_games() -> list[Any]:
    """Games present in both formats."""
    if not TENHOU6_DIR.is_dir():
        return _files(TENHOU6_DIR, "*.json")
    names = sorted(p.stem for p in TENHOU6_DIR.glob("*.json") if (MJLOG_DIR / f"{p.stem}.xml").is_file())
    return [pytest.param(name, id=name) for name in names] or _files(TENHOU6_DIR, "none")


def mjlog_bytes(name: str) -> bytes:
    return (MJLOG_DIR / f"{name}.xml").read_bytes()


def tenhou6_bytes(name: str) -> bytes:
    return (TENHOU6_DIR / f"{name}.json").read_bytes()


def reaches_game_end(path: Path) -> bool:
    """The mjlog file carries the final standings (``owari``) of its game."""
    return b"owari=" in path.read_bytes()
