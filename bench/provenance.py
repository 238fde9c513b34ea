"""When and at which commit a benchmark ran: the line a script writes beside its figures in
docs/benchmarks.md, so that a section written by ``--write-docs`` says what it measured."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=True
    ).stdout.strip()


def measured_line() -> str:
    """``Measured 2026-12-04 18:30 UTC at commit `3ce0e62`.``: the commit of this checkout, marked
    when its code has uncommitted changes (the figures are then of no commit), or said to be
    unknown outside a git checkout."""
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    try:
        commit = _git("rev-parse", "--short", "HEAD")
        # The docs are what --write-docs changes; they do not change what was measured.
        changed = _git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)docs")
    except (OSError, subprocess.SubprocessError):
        return f"Measured {when}, commit unknown (not a git checkout)."
    return f"Measured {when} at commit `{commit}`{' with uncommitted changes' if changed else ''}."
