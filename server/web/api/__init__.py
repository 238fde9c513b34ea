"""The review HTTP API and the admin pages (``docs/admin.md``).

* :func:`create_app` (:mod:`server.web.api.app`): the FastAPI application on a store
  (:class:`server.domain.ports.Store`: it reads through the read model and runs no SQL).
* :func:`serve_http` (:mod:`server.web.api.http`): serve it with uvicorn in the running loop.
* :mod:`server.web.api.review`: finding, replaying, verifying and exporting games (no HTTP), shared
  with ``jantaku admin games`` and ``jantaku export`` (:mod:`server.app.admin`).
"""

from __future__ import annotations

from server.web.api.app import create_app
from server.web.api.http import serve_http
from server.web.api.settings import DEFAULT_HTTP_PORT, ApiSettings

__all__ = ["DEFAULT_HTTP_PORT", "ApiSettings", "create_app", "serve_http"]
