"""Where each ``jantaku serve`` setting comes from: flags > environment > ``--config`` file > defaults.

Every option ``--some-option`` of ``jantaku serve`` can also be set by the environment variable
``JANTAKU_SOME_OPTION`` (the database URL keeps its usual ``DATABASE_URL``) and by the key
``some_option`` of a TOML file given with ``--config FILE`` (or ``JANTAKU_CONFIG``).
``docs/operations.md`` lists them all.

>>> env_name("action_ms"), env_name("database_url")
('JANTAKU_ACTION_MS', 'DATABASE_URL')
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ENV_PREFIX = "JANTAKU_"
ENV_OVERRIDES = {"database_url": "DATABASE_URL"}
NOT_IN_FILE = frozenset({"config"})
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


class ConfigError(ValueError):
    """A setting that cannot be used (the message names it and where it came from)."""


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


UNSET: Any = _Unset()
"""The parser's default for every layered option: "not given on the command line"."""


def env_name(dest: str) -> str:
    return ENV_OVERRIDES.get(dest, ENV_PREFIX + dest.upper())


def _layered(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.dest not in ("help",)]


def make_layered(parser: argparse.ArgumentParser) -> dict[str, Any]:
    """Turn every option of ``parser`` into a layered one: its help gains the default and the
    environment variable, its parser default becomes :data:`UNSET`. Returns the real defaults."""
    defaults: dict[str, Any] = {}
    for action in _layered(parser):
        default = action.default
        defaults[action.dest] = default
        shown = "off" if default is False else ("none" if default in (None, []) else str(default))
        extra = f"env {env_name(action.dest)}"
        if action.dest not in NOT_IN_FILE:
            extra = f"default: {shown}; {extra}; file key {action.dest}"
        action.help = f"{action.help}. [{extra}]" if action.help else f"[{extra}]"
        action.default = UNSET
    return defaults


def _convert(action: argparse.Action, raw: Any, where: str) -> Any:
    name = action.dest
    try:
        if isinstance(action, argparse._StoreTrueAction):
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in _TRUE or text in _FALSE:
                return text in _TRUE
            raise ValueError("expected true or false")
        if isinstance(action, argparse._AppendAction):
            items = raw if isinstance(raw, list) else [s for s in str(raw).split(",") if s.strip()]
            return [str(s).strip() for s in items]
        if isinstance(raw, bool | list | dict):
            raise ValueError("expected a single value")
        convert = action.type if callable(action.type) else str
        value = convert(raw if isinstance(raw, str) or convert in (float, str) else str(raw))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{name} from {where}: bad value {raw!r} ({exc})") from exc
    if action.choices is not None and value not in action.choices:
        choices = ", ".join(map(str, action.choices))
        raise ConfigError(f"{name} from {where}: {value!r} is not one of {choices}")
    return value


def load_file(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except OSError as exc:
        raise ConfigError(f"config file {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path}: not valid TOML: {exc}") from exc


def resolve(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    defaults: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
) -> argparse.Namespace:
    """Fill every option left :data:`UNSET` by the command line from the environment, then the
    config file, then the default. Raises ConfigError (unknown file keys, bad values)."""
    env = os.environ if environ is None else environ
    actions = {a.dest: a for a in _layered(parser)}
    config = args.config if getattr(args, "config", UNSET) is not UNSET else env.get(env_name("config"))
    from_file: dict[str, Any] = {}
    if config:
        from_file = load_file(Path(config))
        unknown = sorted(set(from_file) - set(actions) | (set(from_file) & NOT_IN_FILE))
        if unknown:
            known = ", ".join(sorted(set(actions) - NOT_IN_FILE))
            raise ConfigError(f"config file {config}: unknown key(s) {', '.join(unknown)} (known: {known})")
    out = argparse.Namespace(**vars(args))
    for dest, action in actions.items():
        if getattr(args, dest, UNSET) is not UNSET:
            continue
        name = env_name(dest)
        if name in env:
            value = _convert(action, env[name], f"environment {name}")
        elif dest in from_file:
            value = _convert(action, from_file[dest], f"config file {config}")
        else:
            value = defaults[dest]
        setattr(out, dest, value)
    out.config = config or None
    return out
