"""Helpers every benchmark shares: paths, machine description, table printing, result files."""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "bench" / "results"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


# The instruction sets that decide which kernels native code picks (and so speed and, in the last bits, results).
TELLING_FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_tile", "amx_int8",
                 "amx_bf16")


def cpu() -> dict[str, Any]:
    """The CPU as bench/README.md names it beside a figure: model name, family/model and the telling flags."""
    info: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "cpu family", "model", "flags") and key not in info:
                info[key] = value.strip()
    except OSError:
        pass
    flags = set(info.get("flags", "").split())
    return {"cpu": info.get("model name") or platform.processor() or platform.machine(),
            "cpu_family_model": f"{info.get('cpu family', '?')}/{info.get('model', '?')}",
            "cpu_flags": [f for f in TELLING_FLAGS if f in flags]}


def machine() -> dict[str, Any]:
    return {**cpu(), "cores": os.cpu_count(), "python": platform.python_version(),
            "load_avg_at_start": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
            "date": time.strftime("%Y-%m-%d %H:%M")}


def table(rows: list[dict[str, Any]], columns: list[str] | None = None) -> str:
    """A Markdown table (pasted as is into bench/README.md)."""
    if not rows:
        return "(no rows)"
    columns = columns or list(rows[0].keys())

    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:,.3f}" if abs(v) < 10 else f"{v:,.1f}"
        if isinstance(v, int):
            return f"{v:,}"
        return str(v)

    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(fmt(r.get(c, "")) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def write_results(name: str, payload: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps({"machine": machine(), **payload}, indent=2, ensure_ascii=False, default=str))
    return path
