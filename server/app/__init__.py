"""The composition root: the only package that knows every other one (``docs/architecture.md``).

* :mod:`server.app.cli`         the ``jantaku`` command line: builds the parser from each package's commands
* :mod:`server.app.compose`     builds the server from its parts: settings, repository, hub, admin API
* :mod:`server.app.serve`       ``jantaku serve``
* :mod:`server.app.admin`       ``jantaku admin ...`` (accounts, games, audit) and ``jantaku export``
* :mod:`server.app.review_api`  the admin review API beside the hub in ``jantaku serve``
* :mod:`server.app.simulate`    ``jantaku simulate`` (built-in bots write records)
"""
