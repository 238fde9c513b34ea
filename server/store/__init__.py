"""Persistence: SQLAlchemy 2.x models, alembic migrations and the hub's repository on SQL.

* :mod:`server.store.models`: the schema; :mod:`server.store.types`: portable column types.
* :mod:`server.store.db`: engines (embedded SQLite file by default, PostgreSQL by URL), pragmas.
* :mod:`server.store.migrate`: alembic, programmatically (``prepare_database``).
* :mod:`server.store.repository`: :class:`SqlRepository`, the hub's ``Repository`` on SQL.
* :mod:`server.store.writer`: the group-commit writer of the step log.
* :mod:`server.store.projection`: per-hand results derived from the step log.
* :mod:`server.store.errors`: the error tree.

``docs/store.md`` describes the schema, configuration and durability guarantees.
"""
