"""Whether this test process shares the machine with other pytest-xdist workers (the test command runs two): time
limits written for a process that has the cores to itself are scaled by the callers (tests/e2e/conftest.py's
PATIENCE, tests/support/hostile.py's SHARED)."""
from __future__ import annotations

import os


def beside_other_workers() -> bool:
    return int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1
