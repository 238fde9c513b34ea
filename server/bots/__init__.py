"""Built-in bots (:mod:`server.bots.builtin`), matches of them in-process (:mod:`server.bots.selfplay`)
and bots that play on a hub (:mod:`server.bots.connect`).

The bots themselves live in ``builtin`` so that they are compiled with the engine (mypyc compiles
modules, and a compiled package ``__init__`` would lose its submodules: server/buildinfo.py).
"""

from server.bots.builtin import BOTS, Bot, get_bot, greedy_bot, random_bot, tsumogiri_bot

__all__ = ["BOTS", "Bot", "get_bot", "greedy_bot", "random_bot", "tsumogiri_bot"]
