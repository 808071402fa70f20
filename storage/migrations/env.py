"""Alembic environment: runs against a connection handed in by storage.db.migrate, or a URL from the config."""
from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from storage.models import Base
import storage.models_continuity  # noqa: F401
import storage.models_desk  # noqa: F401
import storage.models_kg  # noqa: F401
import storage.models_narco  # noqa: F401
import storage.models_position  # noqa: F401
import storage.models_summary  # noqa: F401
import storage.models_tasks  # noqa: F401

config = context.config
target_metadata = Base.metadata


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = config.get_main_option("sqlalchemy.url")
    if url is None:
        raise RuntimeError("alembic: set sqlalchemy.url or pass a connection")
    engine = create_engine(url)
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


run()
