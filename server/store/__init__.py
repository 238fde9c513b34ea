"""Persistence: SQLAlchemy 2.x models, alembic migrations, and both ports of the store on SQL and in
memory (``docs/store.md``).

* :mod:`server.store.models`: the schema; :mod:`server.store.types`: portable column types.
* :mod:`server.store.db`: engines (embedded SQLite file by default, PostgreSQL by URL), pragmas.
* :mod:`server.store.migrate`: alembic, programmatically (``prepare_database``).
* :mod:`server.store.repository`: :class:`SqlRepository`, the hub's ``Repository`` on SQL, and
  through :mod:`server.store.reads` the admin review's ``ReadModel``.
* :mod:`server.store.memory`: ``InMemoryRepository``, both ports in memory.
* :mod:`server.store.writer`: the group-commit writer of the step log.
* :mod:`server.store.projection`: per-hand results derived from the step log.
* :mod:`server.store.errors`: the error tree.

The stored events are encoded and decoded by :mod:`server.eventlog`, never read here by hand.
"""
