# Jantaku: the two Quick start commands live here so README, CI and developers run the same thing.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test serve lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## make test: install everything needed, then ruff, mypy --strict and the whole pytest suite
test: $(STAMP)
	@scripts/ensure-browser.sh
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest -q

## make serve: install, then run the hub on ws://127.0.0.1:8765/ws (see docs/hub.md for options)
serve: $(STAMP)
	$(BIN)/jantaku serve

## make bench: benchmark scripts (not part of CI)
bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
