"""`cli.py ... | head`: when the reader of its output stops early, the CLI ends quietly, as Unix tools do, instead of
printing a BrokenPipeError traceback (seen with `cli.py kg show 1 --entity Harry | head`)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_closed_pipe_ends_the_cli_without_a_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "FABULA_DATA_DIR": str(tmp_path / "data")}
    env.pop("FABULA_DB_URL", None)
    book = tmp_path / "book.txt"
    paragraph = "The lamp burned low in the long room, and the rain went on against the windows all night. "
    book.write_text("Chapter 1\n\n" + (paragraph * 8 + "\n\n") * 250, encoding="utf-8")  # 190 KB: over a pipe
    subprocess.run([sys.executable, str(ROOT / "cli.py"), "ingest", str(book)], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=300)
    child = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "chapter", "1", "1"], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.read(100)
    child.stdout.close()                 # the reader has what it wanted ("| head -c 100")
    err = child.stderr.read().decode("utf-8", "replace")
    child.wait(timeout=120)
    assert "Traceback" not in err and "Broken pipe" not in err and "Exception ignored" not in err, err
