"""A throwaway PostgreSQL server for the tests, started from Debian's binaries (the `postgresql` package).

`initdb` makes a cluster in a temporary directory; `pg_ctl` serves it on a free port with its unix socket in that
directory and no TCP listener, trusting local connections; the session ends with `pg_ctl stop`. Each test that
wants a clean slate gets a fresh database from `PostgresServer.fresh_database()`.

initdb refuses to run as root, so as root the cluster belongs to the `postgres` user (made by the Debian package)
or else `nobody`, and the server commands run through `runuser`; the tests still connect as root over the socket.

Without the binaries the `postgres_server` fixture skips, unless FABULA_REQUIRE_POSTGRES=1 (the README test
command sets it), when it fails: CI must not pass by skipping every PostgreSQL test.
"""
from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import pytest

REQUIRE_ENV = "FABULA_REQUIRE_POSTGRES"
SUPERUSER = "fabula"
# A scratch server: durability off (the tests never survive a power cut), enough connections for the concurrency tests.
SERVER_SETTINGS = ("fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=60",
                   "shared_buffers=32MB")


def find_bin_dir() -> Path | None:
    """The folder holding initdb and pg_ctl: from PATH, else the newest /usr/lib/postgresql/*/bin."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).resolve().parent
    def version(folder: str) -> int:
        name = Path(folder).parent.name
        return int(name) if name.isdigit() else 0

    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_user() -> str | None:
    """The user that runs initdb and the server: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root and neither a 'postgres' nor a 'nobody' user exists to run initdb as")


@dataclass
class PostgresServer:
    bin_dir: Path
    base: Path
    port: int
    user: str | None
    _names: Iterator[int] = field(default_factory=itertools.count)

    @property
    def data_dir(self) -> Path:
        return self.base / "data"

    @property
    def socket_dir(self) -> Path:
        return self.base

    def url(self, dbname: str) -> str:
        """SQLAlchemy URL of one database on this server (psycopg 3 over the unix socket)."""
        return f"postgresql+psycopg://{SUPERUSER}@/{dbname}?host={self.socket_dir}&port={self.port}"

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bin_dir / args[0]), *args[1:]]
        if self.user is not None:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        out = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({out.returncode}): {out.stderr.strip() or out.stdout.strip()}")
        return out

    def start(self) -> None:
        if self.user is not None:
            shutil.chown(self.base, self.user)
        self._run("initdb", "-D", str(self.data_dir), "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8",
                  "--locale=C", "--no-sync")
        options = " ".join([f"-p {self.port}", "-c listen_addresses=''", f"-c unix_socket_directories={self.base}",
                            *(f"-c {setting}" for setting in SERVER_SETTINGS)])
        self._run("pg_ctl", "-D", str(self.data_dir), "-l", str(self.base / "server.log"), "-o", options,
                  "-w", "-t", "60", "start")

    def stop(self) -> None:
        if (self.data_dir / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data_dir), "-m", "immediate", "-w", "stop")

    def fresh_database(self, prefix: str = "t", template_url: str | None = None) -> str:
        """Create a database and return its URL: empty, or a copy of the database at `template_url` on this server
        (PostgreSQL's CREATE DATABASE ... TEMPLATE; nobody may be connected to the template meanwhile)."""
        import psycopg
        from psycopg import sql
        name = f"{prefix}_{next(self._names)}"
        query = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template_url is not None:
            template = template_url.split("://", 1)[1].split("/", 1)[1].split("?", 1)[0]
            query = sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template))
        with psycopg.connect(dbname="postgres", user=SUPERUSER, host=str(self.socket_dir), port=self.port,
                             autocommit=True) as conn:
            conn.execute(query)
        return self.url(name)


def start_server() -> PostgresServer:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL's initdb/pg_ctl not found on PATH or in /usr/lib/postgresql/*/bin "
                                "(install Debian's 'postgresql' package; bash scripts/dev.sh test does)")
    base = Path(tempfile.mkdtemp(prefix="fabula-pg-"))
    server = PostgresServer(bin_dir=bin_dir, base=base, port=_free_port(), user=_server_user())
    try:
        server.start()
    except BaseException:
        log = base / "server.log"
        if log.exists():
            print(log.read_text(errors="replace")[-4000:])
        shutil.rmtree(base, ignore_errors=True)
        raise
    return server


def unavailable(reason: str) -> NoReturn:
    """Skip a test that needs the server, or fail it where FABULA_REQUIRE_POSTGRES=1 says it must run."""
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason}; {REQUIRE_ENV}=1 requires the PostgreSQL tests to run", pytrace=False)
    pytest.skip(f"{reason}; set {REQUIRE_ENV}=1 to make this a failure")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    missing = None
    try:
        server = start_server()
    except FileNotFoundError as exc:
        missing = str(exc)
    if missing is not None:
        unavailable(missing)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.base, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database of each kind: a new SQLite file, or a new database on the session's server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'fabula.db'}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.fresh_database()
