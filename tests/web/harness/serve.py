"""A tiny HTTP server for looking at the browser client without a hub.

``/`` and ``/static/...`` are answered by :func:`server.web.static.static_response` (the same headers
as the hub's, so the page runs under the real Content-Security-Policy); ``/harness/<file>`` serves
this directory (the offline harness pages); ``/harness/scenarios/<name>.json`` is a canned match
situation made by :mod:`tests.web.scenarios`.

    python -m tests.web.harness.serve --port 8766
    # then open http://127.0.0.1:8766/harness/table.html?scenario=discard
"""

from __future__ import annotations

import argparse
import contextlib
import json
import threading
from collections.abc import Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from server.web.static import CONTENT_SECURITY_POLICY, CONTENT_TYPES, static_response

HARNESS_DIR = Path(__file__).resolve().parent
HARNESS_PREFIX = "/harness/"
SCENARIO_PREFIX = "/harness/scenarios/"
TABLE_PAGE = "/harness/table.html"


def _harness_file(path: str) -> Path | None:
    name = path[len(HARNESS_PREFIX) :]
    if "/" in name or name.startswith(".") or Path(name).suffix not in CONTENT_TYPES:
        return None
    file = HARNESS_DIR / name
    return file if file.is_file() else None


class _Handler(BaseHTTPRequestHandler):
    server_version = "jantaku-harness"

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path.startswith(SCENARIO_PREFIX):
            from tests.web.scenarios import scenario

            name = path[len(SCENARIO_PREFIX) :].removesuffix(".json")
            try:
                body = json.dumps(scenario(name)).encode()
            except KeyError:
                self._send(HTTPStatus.NOT_FOUND, [("Content-Type", "text/plain")], b"no such scenario\n")
                return
            self._send(HTTPStatus.OK, [("Content-Type", "application/json")], body)
            return
        if path == TABLE_PAGE:
            # The real page's markup, with the harness script instead of js/main.js.
            found = static_response("/")
            assert found is not None
            status, headers, body = found
            body = body.replace(b"/static/js/main.js", b"/harness/table.mjs")
            self._send(HTTPStatus(status), headers, body)
            return
        if path.startswith(HARNESS_PREFIX):
            file = _harness_file(path)
            if file is None:
                self._send(HTTPStatus.NOT_FOUND, [("Content-Type", "text/plain")], b"not found\n")
                return
            headers = [
                ("Content-Type", CONTENT_TYPES[file.suffix]),
                ("Cache-Control", "no-store"),
                ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
            ]
            self._send(HTTPStatus.OK, headers, file.read_bytes())
            return
        found = static_response(path)
        if found is None:
            self._send(HTTPStatus.NOT_FOUND, [("Content-Type", "text/plain")], b"not found\n")
            return
        status, headers, body = found
        self._send(HTTPStatus(status), headers, body)

    def _send(self, status: HTTPStatus, headers: list[tuple[str, str]], body: bytes) -> None:
        self.send_response(status)
        for name, value in headers:
            if name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextlib.contextmanager
def serving(port: int = 0) -> Iterator[str]:
    """Serve in a background thread; yields the base URL (``http://127.0.0.1:PORT``)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args()
    httpd = ThreadingHTTPServer(("127.0.0.1", args.port), _Handler)
    print(f"http://127.0.0.1:{args.port}/harness/table.html?scenario=discard", flush=True)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
