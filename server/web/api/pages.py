"""The admin pages' static files (``server/web/admin/``): plain HTML, CSS and ES modules, no build
step, nothing loaded from another origin, under a strict Content-Security-Policy.

>>> status, headers, body = admin_page_response("")
>>> status, dict(headers)["Content-Type"]
(200, 'text/html; charset=utf-8')
>>> admin_page_response("../api/app.py") is None
True
"""

from __future__ import annotations

from functools import cache
from pathlib import Path, PurePosixPath

ADMIN_DIR = Path(__file__).resolve().parent.parent / "admin"
INDEX = "index.html"

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
    target = ADMIN_DIR.joinpath(*rel.parts)
    content_type = CONTENT_TYPES.get(target.suffix)
    if content_type is None or not target.is_file():
        return None
    headers = [
        ("Content-Type", content_type),
        ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
        ("Cache-Control", "no-cache"),
        ("X-Frame-Options", "DENY"),
    ]
    return 200, headers, _read(target)
