"""Engine creation and automatic migrations.

SQLite gets WAL (readers never block the writer), foreign keys (cascading deletes) and a busy timeout
(a second writer waits instead of failing with "database is locked"). Other databases get none of this.
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event, func, select
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
BUSY_TIMEOUT_MS = 30_000
MIGRATION_LOCK_KEY = 0x46616275  # pg_advisory_xact_lock key held while migrating ("Fabu")
_lock = threading.Lock()


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        if str(path) not in ("", ":memory:"):
            path.parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:  # the DBAPI connection
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision (idempotent).

    Serialised within the process by a lock, and across processes (two app servers or CLI commands starting
    together on a fresh database) by the database: an upgrade first takes the migration lock, then reads the
    revision again, so the ones that waited find the schema at head and do nothing. On PostgreSQL the lock is a
    transaction-level advisory lock; on SQLite `BEGIN IMMEDIATE`, the file's write lock, held until the upgrade
    commits (Python's sqlite3 would otherwise run each CREATE TABLE in a transaction of its own). A database
    already at head, every start but the first, is only read: no lock is taken.
    """
    with _lock:
        heads = set(ScriptDirectory.from_config(_config(engine)).get_heads())
        with engine.connect() as conn:
            if _current_heads(conn) == heads:
                return
        with engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                _upgrade_sqlite(conn.execution_options(isolation_level="AUTOCOMMIT"), heads)
                return
            with conn.begin():
                if conn.dialect.name == "postgresql":
                    conn.execute(select(func.pg_advisory_xact_lock(MIGRATION_LOCK_KEY)))
                _upgrade(conn, heads)


def _config(engine: Engine) -> Config:
    return alembic_config(engine.url.render_as_string(hide_password=False))


def _current_heads(conn: Connection) -> set[str]:
    return set(MigrationContext.configure(conn).get_current_heads())


def _upgrade_sqlite(conn: Connection, heads: set[str]) -> None:
    """The upgrade inside one write transaction taken up front (the driver is in autocommit mode: no BEGIN of
    its own), waiting up to the busy timeout for another process's upgrade to commit."""
    conn.exec_driver_sql("BEGIN IMMEDIATE")
    try:
        _upgrade(conn, heads)
    except BaseException:
        conn.exec_driver_sql("ROLLBACK")
        raise
    conn.exec_driver_sql("COMMIT")
    conn.commit()  # ends SQLAlchemy's own record of the transaction; nothing left to commit in the driver


def _upgrade(conn: Connection, heads: set[str]) -> None:
    """Upgrade to head unless another process did while this one waited for the migration lock."""
    if _current_heads(conn) == heads:
        return
    cfg = _config(conn.engine)
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, "head")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
