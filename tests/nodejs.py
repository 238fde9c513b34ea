"""Node for the JavaScript suites (the browser client's and the admin pages'): where it is, the
skip mark when it is missing or older than 18, and one run of a folder's ``*.test.mjs`` files."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

NODE = shutil.which("node")


def _node_major() -> int:
    assert NODE is not None
    out = subprocess.run([NODE, "--version"], capture_output=True, text=True, check=True).stdout
    return int(out.strip().lstrip("v").split(".")[0])


def needs_node(what: str) -> pytest.MarkDecorator:
    """Skip, with the reason, where node 18+ is not installed."""
    return pytest.mark.skipif(
        NODE is None or _node_major() < 18,
        reason=f"node 18+ is not installed: {what} need it (apt-get install nodejs)",
    )


def run_node_suite(folder: Path, env: dict[str, str]) -> tuple[list[str], str]:
    """``node --test`` over ``folder/*.test.mjs`` with ``env`` added; asserts it passed with no
    failure and returns (the files run, its output)."""
    assert NODE is not None
    files = sorted(str(p) for p in folder.glob("*.test.mjs"))
    result = subprocess.run(
        [NODE, "--test", *files],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, **env},
    )
    summary = [line for line in result.stdout.splitlines() if line.startswith(("# pass", "# fail", "# skip"))]
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-4000:]
    assert "# fail 0" in summary, summary
    return files, result.stdout
