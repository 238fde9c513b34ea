"""Run a module's doctests whichever build of it is imported.

``doctest.testmod`` finds examples through the module's Python function and class objects; a
mypyc-compiled module has native ones it does not look into, so it would find nothing. This reads
the docstrings from the module's source file instead and runs their examples in the namespace of
the module as imported (compiled or pure: server/buildinfo.py).
"""

from __future__ import annotations

import ast
import doctest
from pathlib import Path
from types import ModuleType


def run_doctests(module: ModuleType) -> doctest.TestResults:
    origin = Path(module.__file__ or "")
    source = origin.with_name(origin.name.split(".")[0] + ".py")
    tree = ast.parse(source.read_text(encoding="utf-8"))
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(verbose=False)
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef))]
    for node in nodes:
        docstring = ast.get_docstring(node, clean=True)
        if not docstring or ">>>" not in docstring:
            continue
        name = f"{module.__name__}.{getattr(node, 'name', '')}".rstrip(".")
        test = parser.get_doctest(
            docstring, dict(vars(module)), name, str(source), getattr(node, "lineno", 0)
        )
        runner.run(test)
    return runner.summarize(verbose=False)
