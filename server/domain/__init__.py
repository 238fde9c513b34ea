"""The neutral layer: the records Jantaku persists, the errors and the ports that move them.

It imports nothing of the hub, the store or the web layer, so all three can depend on it:

* :mod:`server.domain.records`  accounts, sessions, matches, the step log, results
* :mod:`server.domain.errors`   ``RepositoryError`` and its subclasses
* :mod:`server.domain.ports`    ``Repository``: the persistence port the hub writes through
"""
