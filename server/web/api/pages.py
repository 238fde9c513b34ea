"""The admin pages' static files (``server/web/admin/``): plain HTML, CSS and ES modules, no build
step, nothing loaded from another origin, under a strict Content-Security-Policy.

The same pages, in the players' mode (``games.html``: a player's own finished games and their
replays, through ``/api/me/...``), are served on the game port under ``/games/``
(:func:`games_page_response`). ``client/NAME.js`` is the browser client's module of that name
(``server/web/static/js/``: the tiles drawn as tiles, the yaku in words), so both share one drawing;
``client/style.css`` its stylesheet (``table.html``, the replay viewer on the table, uses both).

>>> status, headers, body = admin_page_response("")
>>> status, dict(headers)["Content-Type"]
(200, 'text/html; charset=utf-8')
>>> admin_page_response("../api/app.py") is None
True
>>> b"replayview.js" in games_page_response("/games/m-1a2b")[2], games_page_response("/games/m-1a.js")
(True, None)
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path, PurePosixPath

ADMIN_DIR = Path(__file__).resolve().parent.parent / "admin"
CLIENT_JS_DIR = Path(__file__).resolve().parent.parent / "static" / "js"
INDEX = "index.html"
GAMES_INDEX = "games.html"
GAMES_PREFIX = "/games/"
REPLAY_PAGE = CLIENT_JS_DIR.parent / "replay.html"
MATCH_ID = re.compile(r"m-[0-9A-Za-z_-]{1,60}")  # a match id (never a file name: no dot)

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}

PageResponse = tuple[int, list[tuple[str, str]], bytes]


@cache
def _read(path: Path) -> bytes:
    return path.read_bytes()


def admin_page_response(path: str) -> PageResponse | None:
    """The file for ``/admin/<path>`` (``""`` is the page itself), or None if there is none."""
    rel = PurePosixPath(path or INDEX)
    if rel.is_absolute() or any(part in ("", ".", "..") or part.startswith(".") for part in rel.parts):
        return None
    if rel.parts[0] == "client" and len(rel.parts) == 2:
        # the table's stylesheet too: admin/table.html draws the replay with the table's renderer
        name = rel.parts[1]
        target = CLIENT_JS_DIR.parent / name if name == "style.css" else CLIENT_JS_DIR / name
    else:
        target = ADMIN_DIR.joinpath(*rel.parts)
    content_type = CONTENT_TYPES.get(target.suffix)
    if content_type is None or not target.is_file():
        return None
    return 200, _headers(target), _read(target)


def _headers(target: Path) -> list[tuple[str, str]]:
    return [
        ("Content-Type", CONTENT_TYPES[target.suffix]),
        ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
        ("Cache-Control", "no-cache"),
        ("X-Frame-Options", "DENY"),
    ]


def games_page_response(path: str) -> PageResponse | None:
    """The players' game pages on the game port: ``/games/`` is ``games.html``, ``/games/<file>``
    the admin pages' files, ``/games/<match id>`` the visual replay of that game (the browser
    client's ``replay.html``: ``/games/m-1a2b#h3s42`` opens hand 3 at its step 42); None for any
    other path."""
    if path == GAMES_PREFIX.rstrip("/"):
        path = GAMES_PREFIX
    if not path.startswith(GAMES_PREFIX):
        return None
    rest = path.removeprefix(GAMES_PREFIX)
    if MATCH_ID.fullmatch(rest):
        return 200, _headers(REPLAY_PAGE), _read(REPLAY_PAGE)
    return admin_page_response(rest or GAMES_INDEX)
