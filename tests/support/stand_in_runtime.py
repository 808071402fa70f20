"""Stand-in runtime probes for `core.llm.runtime_probe` (run in its child process, as `module:function`): each
behaves as a native runtime might on a CPU it does not suit, without loading any model."""
from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

COUNT_ENV = "FABULA_TEST_PROBE_COUNT"  # a file each counted probe appends one line to


def _count() -> None:
    if path := os.environ.get(COUNT_ENV):
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("probed\n")


def segfault(model: str, cache_dir: Path) -> dict[str, Any]:
    """Dies as llama.cpp's AMX backend does on Sapphire Rapids: a segmentation fault, no Python error."""
    _count()
    os.kill(os.getpid(), signal.SIGSEGV)
    time.sleep(10)
    return {}


def fails(model: str, cache_dir: Path) -> dict[str, Any]:
    print("loading the kernels", file=sys.stderr)
    raise RuntimeError("no kernels for this CPU")


def hangs(model: str, cache_dir: Path) -> dict[str, Any]:
    time.sleep(60)
    return {}


def passes(model: str, cache_dir: Path) -> dict[str, Any]:
    _count()
    return {"tokens": 12}


def inexact(model: str, cache_dir: Path) -> dict[str, Any]:
    """Runs, but a prompt read onto a kept prefix does not give a fresh read's logits (as reported with AMX)."""
    return {"tokens": 12, "prefix_exact": False}


def float32(model: str, cache_dir: Path) -> dict[str, Any]:
    """Runs, exact, and chose float32 arithmetic here."""
    return {"tokens": 12, "prefix_exact": True, "precision": "f32", "precision_seconds": {"bf16": 0.5, "f32": 0.4}}
