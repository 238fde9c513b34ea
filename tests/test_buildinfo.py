"""The compiled/pure engine switch (server/buildinfo.py, hatch_build.py; docs/operations.md, "The
compiled engine"): which build runs, and that a stale or unwanted extension never does."""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from server import buildinfo
from server.app.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent


def test_version_names_the_engine_build(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--version"])
    out = capsys.readouterr().out
    assert out.startswith("jantaku ")
    assert f"engine: {'compiled' if buildinfo.engine_build() == 'compiled' else 'pure'}" in out


def test_pure_env_forces_the_python_sources() -> None:
    env = {**os.environ, buildinfo.PURE_ENV: "1"}
    out = subprocess.run(
        [sys.executable, "-m", "server.app", "--version"], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert "engine: pure Python (JANTAKU_PURE is set)" in out


@pytest.mark.parametrize(("value", "forced"), [("1", True), ("yes", True), ("0", False), ("", False)])
def test_pure_env_values(value: str, forced: bool) -> None:
    assert buildinfo.pure_forced({buildinfo.PURE_ENV: value}) is forced


def _fake_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, digest: str | None) -> Path:
    source = tmp_path / "server" / "engine" / "tiles.py"
    source.parent.mkdir(parents=True)
    source.write_text("X = 1\n")
    monkeypatch.setattr(buildinfo, "_ROOT", tmp_path)
    stamp = tmp_path / "server" / "_compiled.json"
    monkeypatch.setattr(buildinfo, "_STAMP", stamp)
    monkeypatch.delenv(buildinfo.PURE_ENV, raising=False)
    if digest is not None:
        stamp.write_text(json.dumps({"sources": {"server/engine/tiles.py": digest}}))
    return source


def test_compiled_only_while_every_source_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_tree(tmp_path, monkeypatch, hashlib.sha256(b"X = 1\n").hexdigest())
    assert buildinfo._choose() == (True, "")


def test_an_edited_source_means_pure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_tree(tmp_path, monkeypatch, hashlib.sha256(b"X = 0\n").hexdigest())
    use, why = buildinfo._choose()
    assert not use and "server/engine/tiles.py changed since it was compiled" in why


def test_no_stamp_means_pure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_tree(tmp_path, monkeypatch, None)
    use, why = buildinfo._choose()
    assert not use and "not compiled" in why


def test_the_finder_prefers_the_source_over_an_extension(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _fake_tree(tmp_path, monkeypatch, None)
    finder = buildinfo._PureSources()
    assert finder.find_spec("server.engine.tiles", None) is None  # no extension: the usual import
    ext = source.with_name("tiles" + importlib.machinery.EXTENSION_SUFFIXES[0])
    ext.write_bytes(b"")
    spec = finder.find_spec("server.engine.tiles", None)
    assert spec is not None and spec.origin == str(source)
    assert finder.find_spec("json", None) is None


def test_the_build_is_wired_into_packaging() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(r.startswith("hatch-mypyc") for r in project["build-system"]["requires"])
    hook = project["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]
    assert hook["path"] == "hatch_build.py"
    build_lock = (ROOT / "requirements" / "build.txt").read_text()
    dev_lock = (ROOT / "requirements" / "dev.txt").read_text()
    for name in ("hatch-mypyc", "mypy", "setuptools"):
        assert re.search(rf"^{name}==", build_lock, re.MULTILINE), name
    mypy_pin = re.compile(r"^mypy==(\S+)", re.MULTILINE)
    assert mypy_pin.findall(build_lock) == mypy_pin.findall(dev_lock)
    docker = (ROOT / "Dockerfile").read_text()
    build_stage = docker.split("FROM ")[1]
    assert "gcc" in build_stage and "hatch_build.py" in build_stage and "pip wheel" in build_stage
    for module in buildinfo.COMPILED_MODULES:
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), module
