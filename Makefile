# Jantaku: the two Quick start commands live here so README, CI and developers run the same thing.
#
# Both install from the locked, hashed dependency sets in requirements/ (docs/operations.md,
# "Dependency locks"): `make serve` only what serving needs (requirements/serve.txt), `make test`
# everything (requirements/dev.txt: serving plus the test and lint tools). The project itself is
# installed editable on top, without dependencies, by the pinned build backend (requirements/build.txt),
# which compiles the rules engine with mypyc where a C compiler is present (hatch_build.py;
# docs/operations.md "The compiled engine"): editing an engine source re-runs that step here, and
# JANTAKU_PURE=1 make install builds pure Python.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --quiet
SERVE_STAMP := $(VENV)/.installed-serve
DEV_STAMP := $(VENV)/.installed-dev
LOCK_VENV := .venv-lock
UV_VERSION := 0.13.9
# What the mypyc build compiles (server/buildinfo.py lists the modules): a change recompiles.
COMPILED_SOURCES := $(wildcard server/engine/*.py) server/bots/builtin.py server/buildinfo.py hatch_build.py
COMPILE := $(LOCK_VENV)/bin/uv pip compile --universal --python-version 3.11 --generate-hashes --custom-compile-command "make lock"

.PHONY: install install-serve test serve lint typecheck pytest bench lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The project itself: editable, no dependencies (they come from the lock), built by the locked hatchling.
define install_project
	$(PIP) install --no-deps --no-build-isolation -e .
endef

$(SERVE_STAMP): requirements/serve.txt requirements/build.txt pyproject.toml $(COMPILED_SOURCES) | $(BIN)/python
	$(PIP) install --require-hashes -r requirements/build.txt -r requirements/serve.txt
	$(install_project)
	touch $@

$(DEV_STAMP): requirements/dev.txt requirements/build.txt pyproject.toml $(COMPILED_SOURCES) | $(BIN)/python
	$(PIP) install --require-hashes -r requirements/build.txt -r requirements/dev.txt
	$(install_project)
	touch $@

## make install: everything (serving, tests, linters) into .venv
install: $(DEV_STAMP)

## make install-serve: only what `jantaku serve` needs
install-serve: $(SERVE_STAMP)

## make test: install everything needed, then ruff, mypy --strict and the whole pytest suite, then
## tests/engine a second time on the pure Python engine (the first run uses the compiled one where
## `make install` could compile it; `jantaku --version` says which)
test: $(DEV_STAMP)
	@scripts/ensure-browser.sh
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -c "import server.buildinfo as b; print('pytest on the', b.describe())"
	$(BIN)/pytest -q -n auto
	JANTAKU_TEST_LOOP=uvloop $(BIN)/pytest -q -n auto tests/hub  # the hub on uvloop too (docs/operations.md)
	JANTAKU_PURE=1 $(BIN)/pytest -q -n auto tests/engine

## make serve: install what serving needs, then run the hub on ws://127.0.0.1:8765/ws (docs/hub.md);
## ARGS are passed on to `jantaku serve`, e.g. make serve ARGS="--port 9000"
serve: $(SERVE_STAMP)
	$(BIN)/jantaku serve $(ARGS)

## make bench: benchmark scripts (not part of CI)
bench: $(DEV_STAMP)
	$(BIN)/python bench/engine.py

## make lock: re-resolve requirements/*.txt from pyproject.toml (after changing a dependency there)
lock:
	test -x $(LOCK_VENV)/bin/uv || ($(PYTHON) -m venv $(LOCK_VENV) && $(LOCK_VENV)/bin/pip install --quiet uv==$(UV_VERSION))
	$(COMPILE) pyproject.toml -o requirements/serve.txt
	$(COMPILE) pyproject.toml --extra dev -c requirements/serve.txt -o requirements/dev.txt
	$(COMPILE) requirements/build.in -c requirements/dev.txt -o requirements/build.txt

clean:
	rm -rf $(VENV) $(LOCK_VENV) .mypy_cache .pytest_cache .ruff_cache
