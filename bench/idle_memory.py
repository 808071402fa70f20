"""Resident memory of the idle app with one tab open (issue 37: at most 2.5 GB; a new user once saw 3.2 GB).

The real server (`streamlit run app.py`, the default warm-up on: both embedded models and MiniLM load in the
background) on a fresh SQLite file and the set-up's model cache, one headless chromium tab on the Home page, then
the Ask page once (what a reader opens first), then left alone. The server's resident set (VmRSS, and its peak
VmHWM; with any child processes) is sampled every 2 s until it has not grown by more than 10 MB for 30 s (the
warm-up done), then for `--idle` more seconds.

    .venv/bin/python bench/idle_memory.py                 # writes bench/results/idle_memory.json
"""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from _common import ROOT, machine, table, write_results

GOAL_MB = 2_560
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"]


def _tree(pid: int) -> list[int]:
    out = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return out
    for child in children:
        out.extend(_tree(int(child)))
    return out


def _status_mb(pid: int, key: str) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def rss(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) in MB, summed over the server and its children."""
    pids = _tree(pid)
    return (round(sum(_status_mb(p, "VmRSS") for p in pids), 1), round(sum(_status_mb(p, "VmHWM") for p in pids), 1))


def mapped_models(pid: int) -> list[str]:
    """The model files the server has mapped (OpenVINO exports, GGUF files, MiniLM's weights): what the warm-up
    loaded."""
    found: set[str] = set()
    for p in _tree(pid):
        try:
            maps = Path(f"/proc/{p}/maps").read_text()
        except OSError:
            continue
        for line in maps.splitlines():
            path = line.split(maxsplit=5)[-1] if len(line.split()) >= 6 else ""
            if path.endswith((".bin", ".gguf", ".safetensors", ".onnx")) and "/site-packages/torch/" not in path:
                found.add(str(Path(path).relative_to(ROOT)) if path.startswith(str(ROOT)) else path)
    return sorted(found)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--idle", type=int, default=60, help="seconds sampled after the warm-up settled")
    parser.add_argument("--limit", type=int, default=300, help="seconds to wait for the warm-up at most")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    info = machine()
    tmp = Path(tempfile.mkdtemp(prefix="idle-memory-"))
    port = _free_port()
    env = {**os.environ, "FABULA_DB_URL": f"sqlite:///{tmp / 'app.db'}", "FABULA_WARM_UP": "1"}
    env.setdefault("FABULA_MODEL_CACHE", str(ROOT / "data" / "cache"))
    log = (tmp / "streamlit.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port",
                               str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
                               "--server.fileWatcherType", "none"], cwd=ROOT, env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    samples: list[dict[str, Any]] = []
    models: list[str] = []
    started = time.perf_counter()
    try:
        for _ in range(120):
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page()
            page.goto(url, timeout=120_000)
            page.wait_for_timeout(5_000)
            page.goto(f"{url}/ask", timeout=120_000)
            page.wait_for_timeout(5_000)
            page.goto(url, timeout=120_000)     # back Home, the one tab left open
            settled_at = None
            last_growth = time.perf_counter()
            high = 0.0
            while time.perf_counter() - started < args.limit + args.idle:
                now, peak = rss(server.pid)
                t = time.perf_counter() - started
                samples.append({"s": round(t, 1), "rss_mb": now, "peak_mb": peak})
                if now > high + 10:
                    high, last_growth = now, time.perf_counter()
                if settled_at is None and time.perf_counter() - last_growth >= 30:
                    settled_at = t
                    print(f"  settled at {t:.0f} s: {now:,.0f} MB", flush=True)
                if settled_at is not None and t - settled_at >= args.idle:
                    break
                time.sleep(2)
            models = mapped_models(server.pid)
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
    idle = [s for s in samples if settled_at is not None and s["s"] >= settled_at]
    row = {"settled_after_s": settled_at, "idle_rss_mb": max((s["rss_mb"] for s in idle), default=None),
           "peak_rss_mb": max((s["peak_mb"] for s in samples), default=None), "goal_mb": GOAL_MB,
           "met": bool(idle) and max(s["rss_mb"] for s in idle) <= GOAL_MB, "load_end": round(os.getloadavg()[0], 2)}
    print(table([row]))
    print("model files mapped:", *models, sep="\n  ")
    path = write_results("idle_memory", {"machine": info, "result": row, "models_mapped": models, "samples": samples})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
