"""The application services: what the adapters (the hub's connections, the web package's HTTP
views, the ``jantaku`` commands) ask of the domain (``docs/architecture.md``).

* :mod:`server.services.auth`      guests, players, bots: API tokens and session tokens
* :mod:`server.services.accounts`  accounts players make (argon2id), sign-in rate limit
* :mod:`server.services.admins`    admin accounts (``jantaku admin create-admin``)
* :mod:`server.services.ranked`    ranked rooms: their queues and who may enter
* :mod:`server.services.review`    game review and players' history (its results: ``reviewtypes``)
* :mod:`server.services.tables`    the table factory: ``TableSpec``, ``TableFactory``, ``LiveTable``
  (implemented on one node by ``server.hub.tables.LocalTables``; ``Hub.tables``)

A service returns its own result types (dataclasses), never an adapter's: the web package turns them
into its pydantic models, the command line into text or JSON. Services import no hub, web or
command-line module (``tests/test_purity.py``).
"""
