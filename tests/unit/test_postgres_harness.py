"""The test PostgreSQL server's guard: without the binaries a PostgreSQL test is skipped, or fails where
FABULA_REQUIRE_POSTGRES=1 (the README test command) says the PostgreSQL tests must run."""
from __future__ import annotations

import pytest

from tests.support import postgres


def test_missing_binaries_are_reported_with_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres, "find_bin_dir", lambda: None)
    with pytest.raises(FileNotFoundError, match="initdb.*'postgresql' package"):
        postgres.start_server()


def test_without_the_server_a_test_skips_unless_postgres_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(postgres.REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="set FABULA_REQUIRE_POSTGRES=1"):
        postgres.unavailable("no initdb")
    monkeypatch.setenv(postgres.REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="no initdb; FABULA_REQUIRE_POSTGRES=1 requires"):
        postgres.unavailable("no initdb")
