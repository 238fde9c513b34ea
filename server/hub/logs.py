"""Logging of ``jantaku serve``: ``--log-format text`` (readable lines) or ``json`` (one JSON object
per line: time, level, logger, message and any context fields such as ``match_id`` or ``seat``
passed with ``extra=``). The default is text on a terminal, JSON otherwise.

Secrets never reach the output: the websockets library's frame dumps (which would hold ``hello``
messages and their tokens) are kept out even at DEBUG, and every message is scrubbed of token
values (``"token": "..."``, ``Bearer ...``, ``jt_...`` style strings) as a second line of defence.

Every library's lines go through the one handler in the one format: uvicorn's (the admin port)
too, whatever logging setup ran before (:func:`configure` takes its handlers away). The websockets
library writes two INFO lines for every request it answers ("HTTP response sent", "connection
closed"), as if each were a websocket connection: for plain HTTP requests (the probes, the browser
client's files; everything but a websocket upgrade) they are dropped (:class:`PlainHttpFilter`);
for websocket connections the connection object's repr becomes the request's path and peer.

>>> scrub('hello {"type": "token", "token": "s3cret"} Authorization: Bearer abc.def')
'hello {"type": "token", "token": "***"} Authorization: Bearer ***'
"""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}
_SECRETS = (
    (re.compile(r'("(?:[a-z_]*token|password|secret)"\s*:\s*")[^"]*(")', re.I), r"\1***\2"),
    (re.compile(r"((?:[a-z_]*token|password|secret)=)[^&\s]+", re.I), r"\1***"),
    (re.compile(r"(Bearer\s+)\S+", re.I), r"\1***"),
)


def scrub(text: str) -> str:
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


def context(record: logging.LogRecord) -> dict[str, Any]:
    """The fields given with ``extra=`` (match_id, seat, account, ...)."""
    return {k: v for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": scrub(record.getMessage()),
        }
        for key, value in context(record).items():
            out[key] = value if isinstance(value, str | int | float | bool | None) else scrub(str(value))
        if record.exc_info:
            out["exception"] = scrub(self.formatException(record.exc_info))
        return json.dumps(out, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = context(record)
        if fields:
            line += " " + " ".join(f"{k}={v}" for k, v in fields.items())
        return scrub(line)


class PlainHttpFilter(logging.Filter):
    """On the ``websockets.server`` logger: drop its INFO lines about plain HTTP requests (not a
    websocket upgrade: those are HTTP exchanges, not connections); give the others the request's
    path and peer instead of an object repr."""

    def filter(self, record: logging.LogRecord) -> bool:
        connection = record.__dict__.get("websocket")
        if connection is None or isinstance(connection, str):
            return True
        try:  # a weak proxy: the connection may be gone already
            request = connection.request
            path = str(request.path if request is not None else "").split("?", 1)[0]
            upgrade = request is not None and "websocket" in request.headers.get("Upgrade", "").lower()
            peer = connection.remote_address
        except Exception:
            path, peer, upgrade = "", None, True
        if record.levelno <= logging.INFO and not upgrade:
            return False
        record.websocket = f"{path or '?'} from {peer[0] if peer else '?'}"
        return True


_PLAIN_HTTP_FILTER = PlainHttpFilter()
UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")


def default_format(stream: TextIO) -> str:
    return "text" if stream.isatty() else "json"


def configure(level: str, fmt: str | None = None, stream: TextIO | None = None) -> None:
    """Set up the root logger for ``jantaku serve`` (replacing earlier handlers)."""
    out = stream if stream is not None else sys.stderr
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter() if (fmt or default_format(out)) == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # websockets logs every frame at DEBUG (hello messages carry tokens): never below INFO.
    logging.getLogger("websockets").setLevel(max(logging.INFO, logging.getLevelName(level)))
    logging.getLogger("websockets.server").addFilter(_PLAIN_HTTP_FILTER)  # once: the same filter object
    for name in UVICORN_LOGGERS:  # no handler of their own (uvicorn's dictConfig may have run)
        logger = logging.getLogger(name)
        for old in list(logger.handlers):
            logger.removeHandler(old)
        logger.propagate = name != "uvicorn.access"  # no access log (serve_http turns it off)
