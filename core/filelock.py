"""An exclusive lock shared by processes: `with file_lock(path): ...`.

Work that two processes of one machine may start at once and that only one should do (the OpenVINO export of a
model, a runtime's probe, a write of the secrets file) waits on an flock of a lock file (or folder): the second
process blocks, without using the CPU, until the first is done, then finds the result. flock is held per open file,
so two threads of one process that each open it wait for each other too. Where flock does not exist (not Linux or
macOS), or where the lock file cannot be made (a read-only folder), the block runs unlocked, as it did before there was
a lock.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive flock on `path` (a folder, or a file made empty if missing) for the block."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not Linux/macOS: no cross-process lock
        yield
        return
    path = Path(path)
    try:
        if path.is_dir():
            fd = os.open(path, os.O_RDONLY)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:  # a read-only cache: the work runs unlocked (what it writes fails or is skipped on its own)
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
