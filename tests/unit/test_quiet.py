"""core.quiet: library output during model preparation goes to the log, never to the terminal, and the process's
streams are always given back, also when two threads prepare at once."""
from __future__ import annotations

import logging
import os
import sys
import threading
import time
import warnings

import pytest

from core.quiet import native_output, python_output


def test_python_output_hides_prints_and_warnings_and_gives_the_streams_back(
        capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    before = (sys.stdout, sys.stderr)
    with caplog.at_level(logging.DEBUG, logger="core.quiet"), python_output("a noisy load"):
        print("progress bar 50%")
        print("a warning line", file=sys.stderr)
        warnings.warn("deprecated name", FutureWarning, stacklevel=1)
    assert (sys.stdout, sys.stderr) == before
    out = capsys.readouterr()
    assert "progress" not in out.out and "warning line" not in out.err and "deprecated" not in out.err
    assert any("a noisy load printed 3 lines" in r.getMessage() for r in caplog.records)


def test_a_failure_shows_the_tail_of_what_was_hidden(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="core.quiet"), pytest.raises(RuntimeError):
        with python_output("the export"):
            print("step 1 of 2")
            raise RuntimeError("broken")
    assert any("the export failed" in r.getMessage() and "step 1 of 2" in r.getMessage() for r in caplog.records)


def test_native_output_hides_what_c_code_writes_to_the_descriptors(capfd: pytest.CaptureFixture[str]) -> None:
    with native_output("a quantizer"):
        os.write(2, b"[ 1/272] blk.0.attn_q.weight converting to q8_0\n")
        os.write(1, b"llama_model_quantize_impl: done\n")
    os.write(2, b"after\n")
    out = capfd.readouterr()
    assert "converting" not in out.err and "quantize_impl" not in out.out and "after" in out.err


def test_two_threads_at_once_leave_the_streams_as_they_were() -> None:
    before = sys.stderr
    started = threading.Barrier(2)

    def load(pause: float) -> None:
        started.wait()
        with python_output("a load"):
            print("noise", file=sys.stderr)
            time.sleep(pause)

    threads = [threading.Thread(target=load, args=(p,)) for p in (0.05, 0.15)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sys.stderr is before
