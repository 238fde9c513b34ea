"""Serve the browser client's static files: ``/`` is the page, ``/static/...`` its assets.

The game port's routes ``/``, ``/index.html`` and ``/static/{path}`` (:mod:`server.web.api.files`)
call :func:`static_response`; ``None`` means "not one of ours" (a 404). The files are plain HTML,
CSS and ES modules shipped inside the package (no build step, nothing fetched from elsewhere at
run time), served with a strict Content-Security-Policy: scripts, styles and images from this
origin only; websocket connections to any host (``?ws=`` may point the page at another hub), and
HTTP requests to another origin (the ranked-play API is served on the admin port, another origin:
docs/ranking.md).

>>> status, headers, body = static_response("/")
>>> status, dict(headers)["Content-Type"]
(200, 'text/html; charset=utf-8')
>>> static_response("/static/../static.py") is None
True
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

STATIC_DIR = Path(__file__).resolve().parent / "static"
"""The directory of the page and its assets (``index.html``, ``style.css``, ``js/*.js``, ...)."""

INDEX = "index.html"
STATIC_PREFIX = "/static/"

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self' ws: wss: http: https:",
        "manifest-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
"""Self only: no inline scripts or styles, no other origin, except websocket connections and the
HTTP API (the ranked-play routes, on another port)."""

CONTENT_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
    ".png": "image/png",
    ".ico": "image/x-icon",
}
"""The only file types served; anything else under ``static/`` is not."""

Response = tuple[int, list[tuple[str, str]], bytes]


def _resolve(path: str) -> Path | None:
    """The file under STATIC_DIR that a request path names, or None."""
    path = path.split("?", 1)[0].split("#", 1)[0]
    if path in ("/", "/" + INDEX):
        relative = INDEX
    elif path.startswith(STATIC_PREFIX):
        relative = unquote(path[len(STATIC_PREFIX) :], errors="strict")
    else:
        return None
    if not relative or "\\" in relative or "\x00" in relative or relative.startswith("/"):
        return None
    parts = PurePosixPath(relative).parts
    if any(part in ("", ".", "..") or part.startswith(".") for part in parts):
        return None
    if len(parts) != len(relative.split("/")):  # "a//b", "a/" and the like
        return None
    if PurePosixPath(relative).suffix not in CONTENT_TYPES:
        return None
    root = STATIC_DIR.resolve()
    candidate = root.joinpath(*parts).resolve()
    if not candidate.is_relative_to(root) or not candidate.is_file():
        return None
    return candidate


def static_response(path: str) -> Response | None:
    """``(status, headers, body)`` for a GET of ``path``, or None when it names none of our files.

    ``path`` is the request target's path (a query string is ignored). ``/`` and ``/index.html`` are
    the page; ``/static/<file>`` are the assets. Paths that leave the static directory, hidden
    files, directories and unknown file types are refused (None).
    """
    try:
        file = _resolve(path)
    except (UnicodeDecodeError, ValueError, OSError):
        return None
    if file is None:
        return None
    try:
        body = file.read_bytes()
    except OSError:
        return None
    headers = [
        ("Content-Type", CONTENT_TYPES[file.suffix]),
        ("Content-Length", str(len(body))),
        # No build step means no content hashes in the file names: let browsers keep a copy but
        # revalidate it each time, so an upgraded server is never paired with a stale script.
        ("Cache-Control", "no-cache"),
        ("ETag", '"' + hashlib.sha256(body).hexdigest()[:32] + '"'),
        ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
    ]
    return 200, headers, body
