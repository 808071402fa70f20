"""The native-runtime probe (core/llm/runtime_probe.py) with stand-in runtimes in its child process: a crash, a
failure or a hang there becomes a verdict with a reason, never a crash here; verdicts are kept per machine and build
and run once; the runtime choice passes over a runtime that failed its probe and says why."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.llm import runtime_probe, runtimes
from tests.support.stand_in_runtime import COUNT_ENV

STAND_IN = "tests.support.stand_in_runtime:"


@pytest.fixture
def probes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Verdicts in a folder of the test's own, none in memory."""
    monkeypatch.setenv("FABULA_PROBE_DIR", str(tmp_path / "probes"))
    monkeypatch.setattr(runtime_probe, "_verdicts", {})
    monkeypatch.setenv(COUNT_ENV, str(tmp_path / "count.txt"))
    return monkeypatch


def stand_in(monkeypatch: pytest.MonkeyPatch, runtime: str, behaviour: str) -> None:
    monkeypatch.setitem(runtime_probe.PROBES, runtime, STAND_IN + behaviour)


def test_a_probe_that_segfaults_is_a_verdict_not_a_crash(probes: pytest.MonkeyPatch, tmp_path: Path) -> None:
    stand_in(probes, "llama.cpp", "segfault")
    found = runtime_probe.verdict("llama.cpp", "smollm2", tmp_path)
    assert not found.ok and "SIGSEGV" in found.reason and "segmentation fault" in found.reason
    assert "llama.cpp" in found.note() and "is not used for smollm2" in found.note() and found.cpu in found.note()


def test_a_failing_or_hanging_probe_says_why(probes: pytest.MonkeyPatch, tmp_path: Path) -> None:
    stand_in(probes, "llama.cpp", "fails")
    found = runtime_probe.verdict("llama.cpp", "smollm2", tmp_path)
    assert not found.ok and "exit status 1" in found.reason and "no kernels for this CPU" in found.reason
    stand_in(probes, "openvino", "hangs")
    slow = runtime_probe.probe("openvino", "smollm2", tmp_path, timeout=3)
    assert not slow.ok and "did not finish within 3 s" in slow.reason


def test_a_verdict_is_kept_on_disk_and_probed_once_per_machine_and_build(probes: pytest.MonkeyPatch,
                                                                         tmp_path: Path) -> None:
    stand_in(probes, "llama.cpp", "passes")
    assert runtime_probe.known("llama.cpp", "smollm2") is None
    assert runtime_probe.verdict("llama.cpp", "smollm2", tmp_path).ok
    probes.setattr(runtime_probe, "_verdicts", {})  # as in a new process: read from disk, not probed again
    again = runtime_probe.known("llama.cpp", "smollm2")
    assert again is not None and again.ok
    runtime_probe.verdict("llama.cpp", "smollm2", tmp_path)
    assert (tmp_path / "count.txt").read_text().count("probed") == 1
    # another CPU, or the runtime rebuilt with other options (other files): probed again
    probes.setattr(runtime_probe, "cpu_flags", lambda: "fpu sse2 avx2 amx_tile amx_int8 amx_bf16")
    assert runtime_probe.known("llama.cpp", "smollm2") is None
    runtime_probe.verdict("llama.cpp", "smollm2", tmp_path)
    probes.setattr(runtime_probe, "runtime_identity", lambda runtime: ("0.3.36", "rebuilt"))
    assert runtime_probe.known("llama.cpp", "smollm2") is None
    runtime_probe.verdict("llama.cpp", "smollm2", tmp_path)
    assert (tmp_path / "count.txt").read_text().count("probed") == 3


def test_a_stand_in_never_overwrites_the_real_runtimes_verdict(probes: pytest.MonkeyPatch) -> None:
    real = runtime_probe.key("llama.cpp", "smollm2")
    stand_in(probes, "llama.cpp", "segfault")
    assert runtime_probe.key("llama.cpp", "smollm2") != real


def test_the_choice_passes_over_a_runtime_that_failed_its_probe(probes: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if runtimes.installed_default() != "openvino":
        pytest.fail("the set-up command installs OpenVINO and llama-cpp-python")
    probes.delenv(runtimes.RUNTIME_ENV, raising=False)
    stand_in(probes, "openvino", "segfault")
    stand_in(probes, "llama.cpp", "passes")
    assert runtimes.serving("smollm2").runtime == "openvino"  # nothing known yet: nothing is probed to answer
    runtime_probe.verdict("openvino", "smollm2", tmp_path)
    chosen = runtimes.serving("smollm2")
    assert chosen.runtime == "llama.cpp" and any("SIGSEGV" in note for note in chosen.notes)
    stand_in(probes, "llama.cpp", "segfault")
    runtime_probe.verdict("llama.cpp", "smollm2", tmp_path)
    chosen = runtimes.serving("smollm2")
    assert chosen.runtime == "transformers" and len(chosen.notes) == 2
    assert runtimes.serving("gemma3-270m").runtime == "openvino"  # verdicts are per model


def test_an_inexact_prefix_is_noted_but_openvino_still_serves(probes: pytest.MonkeyPatch, tmp_path: Path) -> None:
    probes.delenv(runtimes.RUNTIME_ENV, raising=False)
    stand_in(probes, "openvino", "inexact")
    found = runtime_probe.verdict("openvino", "smollm2", tmp_path)
    assert found.ok and found.prefix_exact is False
    chosen = runtimes.serving("smollm2")
    assert chosen.runtime == "openvino" and "reads every prompt of smollm2 afresh" in chosen.notes[0]
