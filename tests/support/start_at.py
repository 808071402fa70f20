"""Run `cli.py ARGS...` together with other processes: `python -m tests.support.start_at BARRIER_DIR NAME ARGS...`.

Importing the CLI takes seconds, unevenly, so processes merely started together do not reach the database
together. Each of these imports the CLI, the store and the database driver first, writes BARRIER_DIR/NAME.ready,
then waits for BARRIER_DIR/go (the test writes it once every process is ready) and only then runs the command:
their first database work, the start-up migrations, begins within a few milliseconds in all of them.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

WAIT_LIMIT_S = 120


def main() -> int:
    barrier, name, argv = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    import cli
    import storage.repository  # noqa: F401 - imported by the first store opened; load it before the barrier
    from core.config import get_settings
    if get_settings().database_url.startswith("postgresql"):
        import psycopg  # noqa: F401
    (barrier / f"{name}.ready").touch()
    deadline = time.monotonic() + WAIT_LIMIT_S
    while not (barrier / "go").exists():
        if time.monotonic() > deadline:
            print(f"start_at: no {barrier / 'go'} within {WAIT_LIMIT_S} s", file=sys.stderr)
            return 97
        time.sleep(0.001)
    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main())
