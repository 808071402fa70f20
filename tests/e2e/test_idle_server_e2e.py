"""An idle server stays idle: started as `scripts/dev.sh app` starts it (the project's .streamlit/config.toml, no
file-watcher flag), with a browser tab open, it uses under 5% of a core over 60 s and its log grows under 1 KB while
files are created and deleted in bursts inside the project folder (as when packages are installed into .venv or a
book is imported into data/). Streamlit's default watcher watched that whole folder, .venv and data included."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, _free_port, patience, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
WINDOW_S = 60


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime, every thread


def _churn(folder: Path, until: float) -> int:
    """Bursts of 2,000 new files, then their deletion, until `until`; the number of files written."""
    written = 0
    while time.time() < until:
        burst = folder / uuid.uuid4().hex[:8]
        burst.mkdir()
        for i in range(2000):
            (burst / f"module_{i}.py").write_text("x = 1\n")
        written += 2000
        shutil.rmtree(burst)
        time.sleep(0.5)
    return written


def test_an_idle_server_uses_no_cpu_and_writes_no_log_while_its_folder_churns(tmp_path: Path, browser) -> None:  # noqa: ANN001
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc to read the server's CPU time")
    port = _free_port()
    log = tmp_path / "streamlit.log"
    env = {**os.environ, "FABULA_DB_URL": f"sqlite:///{tmp_path / 'idle.db'}", "FABULA_DATA_DIR": str(tmp_path / "d"),
           "FABULA_MODEL_CACHE": str(ROOT / "data" / "cache"), "FABULA_LLM": "fake:echo", "FABULA_WARM_UP": "0"}
    server = subprocess.Popen(  # the flags of `scripts/dev.sh app`, nothing more: the config file decides the rest
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address",
         "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    churn = ROOT / "data" / f"idle-churn-{uuid.uuid4().hex[:8]}"  # data/ is the default data directory (ignored)
    context = browser.new_context()
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).close()
                break
            except OSError:
                time.sleep(0.5)
        page = context.new_page()
        page.goto(url)  # a tab stays open: the session, its script's modules and any watcher are live
        page.get_by_role("heading", name="Fabula", level=1).wait_for(timeout=patience(60_000))
        wait_idle(page)
        time.sleep(3)
        churn.mkdir(parents=True)
        cpu, size, start = _cpu_seconds(server.pid), log.stat().st_size, time.time()
        written = _churn(churn, start + WINDOW_S)
        elapsed = time.time() - start
        used, grown = (_cpu_seconds(server.pid) - cpu) / elapsed, log.stat().st_size - size
        print(f"idle server: {used:.1%} of a core over {elapsed:.0f} s, log +{grown} bytes, "
              f"{written:,} files written and deleted in the project folder meanwhile")
        assert server.poll() is None, log.read_text()[-2000:]
        assert used < 0.05, f"the idle server used {used:.1%} of a core"
        assert grown < 1024, f"the log grew by {grown} bytes: {log.read_text()[-1500:]}"
    finally:
        context.close()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(churn, ignore_errors=True)
