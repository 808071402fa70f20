"""core/filelock.py: a second process waits for the first's lock; a folder that cannot hold a lock file runs the
block unlocked instead of failing."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from core.filelock import file_lock

ROOT = Path(__file__).resolve().parents[2]
HOLDER = """
import sys, time
from pathlib import Path
from core.filelock import file_lock
lock, ready = Path(sys.argv[1]), Path(sys.argv[2])
with file_lock(lock):
    ready.write_text("held")
    time.sleep(1.5)
    ready.write_text("released")
"""


def test_a_second_process_waits_for_the_first(tmp_path: Path) -> None:
    lock, ready = tmp_path / "cache" / ".model.lock", tmp_path / "ready"
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock), str(ready)], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ready.read_text() == "held"
        with file_lock(lock):
            assert ready.read_text() == "released"  # the block ran only after the other process let go
    finally:
        child.wait(timeout=60)
    assert child.returncode == 0


def test_a_folder_is_locked_in_place_and_threads_of_one_process_take_turns(tmp_path: Path) -> None:
    import threading
    order: list[str] = []

    def second() -> None:
        with file_lock(tmp_path):
            order.append("second")

    with file_lock(tmp_path):
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.3)
        order.append("first")
    thread.join(timeout=10)
    assert order == ["first", "second"] and list(tmp_path.iterdir()) == []  # no lock file inside a locked folder


def test_a_place_that_cannot_hold_a_lock_file_runs_the_block_unlocked(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file where the lock's folder should be")
    ran = False
    with file_lock(tmp_path / "cache" / ".model.lock"):
        ran = True
    assert ran
