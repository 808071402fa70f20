"""The first set-up prints no wall of library output (issue 37, rough edge 9: about 300 lines of llama.cpp's
quantizer, transformers' progress bar and deprecation warnings, and the tracer's warnings reached the terminal)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

SCRIPT = """
import logging, sys
from pathlib import Path
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
from core.llm import local_models, openvino_export
cache = Path(sys.argv[1])
local_models.prepare("smollm2", cache, llama_cpp=True)    # the tokenizer, and llama.cpp's Q8_0 copy: its quantizer
local_models.load_local_model("smollm2", cache)           # the float32 model: transformers dequantizes the GGUF
openvino_export.model_xml("smollm2", cache)               # the OpenVINO export: traced
print("done")
"""


def test_preparing_a_model_prints_only_fabulas_own_log_lines(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "done"
    assert (tmp_path / "gguf" / "smollm2.q8_0.gguf").is_file()
    lines = [line for line in done.stderr.replace("\r", "\n").splitlines() if line.strip()]
    foreign = [line for line in lines if not line.startswith("core.")]  # anything but Fabula's own log records
    assert foreign == [], foreign[:20]
    assert len(lines) <= 10, lines
