"""Build hook: compile the rules engine and the greedy bot with mypyc where a C compiler is present.

hatchling runs this for every wheel it builds, the editable one ``make install`` makes included
(``[tool.hatch.build.targets.wheel.hooks.custom]`` in pyproject.toml). The compiling itself is
hatch-mypyc's (the hook black ships itself with); this wrapper only decides whether to use it:

* ``JANTAKU_PURE=1`` in the environment of the build, or no C compiler found: no compilation, and
  extension modules an earlier build left in the source tree are removed, so the pure Python
  sources are what runs (the reference implementation, identical behaviour).
* otherwise the modules listed in ``server/buildinfo.py`` (``COMPILED_MODULES``) are compiled in
  place next to their sources, and ``server/_compiled.json`` records the SHA-256 of each source it
  compiled. At run time ``server.buildinfo`` uses the compiled modules only while every source
  still has that hash: an edited engine file falls back to pure Python (with a warning) until the
  next ``make install`` rebuilds it, so a stale extension never shadows an edit.

docs/operations.md ("The compiled engine") documents the switch and the workflow.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import sysconfig
from glob import iglob
from pathlib import Path
from typing import Any

from hatch_mypyc.plugin import MypycBuildHook

STAMP = "server/_compiled.json"
PURE_ENV = "JANTAKU_PURE"


def _compiled_modules(root: str) -> list[str]:
    """``COMPILED_MODULES`` from server/buildinfo.py, read without importing the project."""
    tree = ast.parse(Path(root, "server", "buildinfo.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "COMPILED_MODULES" for t in node.targets
        ):
            return [str(m) for m in ast.literal_eval(node.value)]
    raise ValueError("server/buildinfo.py has no COMPILED_MODULES")


def _module_path(root: str, module: str) -> str:
    path = module.replace(".", "/")
    return f"{path}/__init__.py" if Path(root, path).is_dir() else f"{path}.py"


def _has_c_compiler() -> bool:
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shutil.which(cc.split()[0]) is not None


def _pure_forced() -> bool:
    return os.environ.get(PURE_ENV, "").strip().lower() not in ("", "0", "false", "no")


class CompiledEngineHook(MypycBuildHook):  # type: ignore[misc]  # hatch-mypyc has no type hints
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        files = [_module_path(self.root, m) for m in _compiled_modules(self.root)]
        self.config["include"] = files
        stamp = Path(self.root, STAMP)
        if _pure_forced() or not _has_c_compiler():
            reason = f"{PURE_ENV} is set" if _pure_forced() else "no C compiler found"
            self.app.display_info(f"jantaku: building the pure Python engine ({reason})")
            self._remove_extensions()
            stamp.unlink(missing_ok=True)
            return
        self.app.display_info(f"jantaku: compiling {len(files)} engine modules with mypyc")
        stamp.unlink(missing_ok=True)
        self._remove_extensions()
        super().initialize(version, build_data)
        hashes = {f: hashlib.sha256(Path(self.root, f).read_bytes()).hexdigest() for f in files}
        stamp.write_text(json.dumps({"sources": hashes}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        build_data["artifacts"].append(f"/{STAMP}")

    def _remove_extensions(self) -> None:
        """Every extension module an earlier build left (whatever modules it compiled)."""
        ext = self.compiled_extension
        for pattern in (f"server/**/*{ext}", f"*__mypyc.*{ext}"):
            for path in iglob(os.path.join(self.root, pattern), recursive=True):
                os.remove(path)

    def clean(self, versions: list[str]) -> None:
        self._remove_extensions()
        Path(self.root, STAMP).unlink(missing_ok=True)


def get_build_hook() -> type[CompiledEngineHook]:
    return CompiledEngineHook
