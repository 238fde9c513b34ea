"""Which port a plain HTTP request came in on: the ASGI scope key the hub sets for the game port's
requests it hands to the one HTTP application (``server/hub/asgi.py``), read by the application's
routes (``server/web/api/ports.py``). Shared here so that neither adapter imports the other."""

from __future__ import annotations

PORT_KEY = "jantaku.port"
GAME_PORT = "game"
ADMIN_PORT = "admin"
