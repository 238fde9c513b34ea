"""README.md's commands work as written: the command table's ``jantaku`` commands exist (run from
``.venv/bin`` or after the activation line the README gives), and ``make serve ARGS=...`` passes
its options on (serving on another port)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from server.app.cli import main

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _table_commands() -> list[list[str]]:
    section = README.split("## Command line", 1)[1].split("\n## ", 1)[0]
    commands = []
    for cell in re.findall(r"^\| `(jantaku [^`]*)` \|", section, flags=re.M):
        words = []
        for word in cell.split()[1:]:
            if not re.fullmatch(r"[a-z][a-z-]*", word):  # an option, a placeholder, "..." or a|b
                break
            words.append(word)
        commands.append(words)
    return commands


def test_the_readme_says_where_the_command_is() -> None:
    section = README.split("## Command line", 1)[1].split("\n## ", 1)[0]
    assert "`.venv/bin/jantaku ...`" in section and "`. .venv/bin/activate`" in section
    assert (ROOT / "pyproject.toml").read_text().count('jantaku = "server.app.cli:main"') == 1
    # every other command line of the README names the installed script, not a bare `jantaku`
    for line in re.findall(r"```sh\n(.*?)```", README, flags=re.S):
        for command in line.splitlines():
            assert not command.startswith("jantaku "), command


@pytest.mark.parametrize("words", _table_commands(), ids=" ".join)
def test_every_command_of_the_table_exists(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([*words, "--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("usage: jantaku " + " ".join(words))


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_serve_passes_its_args_on() -> None:
    """README.md#serving: `make serve ARGS="--port 9000"` serves on another port."""
    assert 'make serve ARGS="--port 9000"' in README
    # run as a make of its own even under `make test` (a sub-make would print its directory)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    plan = subprocess.run(
        ["make", "--no-print-directory", "-n", "serve", "ARGS=--port 9000"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    assert plan.splitlines()[-1] == ".venv/bin/jantaku serve --port 9000"
