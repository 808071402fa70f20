"""Persistence: SQLAlchemy ORM, engine set-up, Alembic migrations and the Store implementation."""
