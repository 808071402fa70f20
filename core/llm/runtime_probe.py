"""Each native runtime is tried once per machine in a child process before a Fabula process loads it.

llama.cpp and OpenVINO run native code picked for the CPU they find (AMX, AVX-512, bfloat16 kernels). A fault in it
is not an exception: llama.cpp's AMX backend segfaults on Sapphire-Rapids-class Intel CPUs (llama.cpp issue 20824)
and would take down the server with every page and job in it, or the whole test run. So before the first load, a
child process (`python -m core.llm.runtime_probe TARGET RUNTIME MODEL CACHE_DIR`) loads the model through the very
functions the app uses, reads a prompt longer than one evaluation batch and generates a few tokens. For OpenVINO it
also measures whether a prompt read onto a kept prefix gives the very logits of reading it afresh (`openvino_rt.
prefix_exact`): on the AMD EPYC it does, on an Intel CPU with AMX it did not, and kept prefixes are used only where
it does, so greedy text never depends on what was asked before.

The verdict is a fact about the machine and the build, not about a data directory: it is kept in
`~/.cache/fabula/probes/` (`FABULA_PROBE_DIR`) under a key of the CPU's flags, the runtime's installed files (a wheel
rebuilt with other options has other files), the model, the OpenVINO export's version, the probe function and
PROBE_VERSION. A machine probes each runtime and model once (the set-up command does it, `cli.py llm prepare`); a
changed CPU or build probes again.
A runtime whose probe dies, fails or hangs is not used in this process: `runtimes.serving` picks the next one, with
one log line and a note for the Settings page.
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.metadata
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from core.filelock import file_lock

log = logging.getLogger(__name__)

PROBE_VERSION = 3  # 2: OpenVINO's probe also chooses the arithmetic (bf16 or f32); 3: a tie goes to exact prefixes
TIMEOUT_S = 600.0  # a first OpenVINO probe may export the model (about a minute per model on 2 cores)
# What the child runs for each runtime: "module:function", called with (model, cache_dir) and returning a dict of
# findings. Tests put a stand-in here (one that kills itself, say); the target is part of the verdict's key.
PROBES: dict[str, str] = {"llama.cpp": "core.llm.runtime_probe:probe_llamacpp",
                          "openvino": "core.llm.runtime_probe:probe_openvino"}
DISTRIBUTIONS = {"llama.cpp": "llama_cpp_python", "openvino": "openvino"}
# The probe's prompt: plain narrative English, repeated to about 700 tokens (more than one 512-token batch).
PROBE_TEXT = ("The old lighthouse keeper climbed the stairs each evening, counting the steps as his father had "
              "taught him, and when he reached the lamp room he wiped the glass, trimmed the wick and watched the "
              "grey water roll in from the north. His daughter Mary kept the accounts of the oil and the weather, "
              "and on Sundays they walked to the village to hear the news from the mainland. ") * 9
ROOT = Path(__file__).resolve().parents[2]

_verdicts: dict[str, Verdict] = {}
_lock = threading.Lock()  # one probe at a time per process: two would compete for the same two cores


@dataclass(frozen=True)
class Verdict:
    runtime: str
    model: str
    ok: bool
    reason: str = ""  # why not, in words ("killed by signal SIGSEGV (a segmentation fault)"); "" when ok
    prefix_exact: bool | None = None  # OpenVINO: a prompt read onto a kept prefix gives a fresh read's logits
    cpu: str = ""
    version: str = ""
    seconds: float = 0.0
    precision: str = ""  # OpenVINO: the arithmetic that served the model faster here, "bf16" or "f32"

    def note(self) -> str:
        """One sentence for a log line or the Settings page."""
        where = f" on this CPU ({self.cpu})" if self.cpu else " here"
        if not self.ok:
            return (f"{self.runtime} {self.version} is not used for {self.model}: its test run{where} "
                    f"{self.reason}")
        if self.prefix_exact is False:
            return (f"{self.runtime} {self.version} reads every prompt of {self.model} afresh{where}: a prompt read "
                    "onto a kept prefix did not give the very logits of a fresh read, so no prefix is kept and the "
                    "same question always gets the same answer")
        arithmetic = {"bf16": " (bfloat16 arithmetic, chosen by its test run here)",
                      "f32": " (float32 arithmetic, chosen by its test run here)"}.get(self.precision, "")
        return f"{self.runtime} {self.version} passed its test run for {self.model}{where}{arithmetic}"


@functools.cache
def cpu_flags() -> str:
    """The CPU's feature flags (Linux's /proc/cpuinfo), which decide the kernels native code picks."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith(("flags", "Features")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return f"{platform.machine()} {platform.processor()}"


def cpu_name() -> str:
    """The CPU's model name and whether it has AMX, for messages."""
    name = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import platform
    name = name or platform.processor() or platform.machine()
    amx = sorted(f for f in cpu_flags().split() if f.startswith("amx"))
    return f"{name}, {' '.join(amx)}" if amx else f"{name}, no AMX"


@functools.cache
def runtime_identity(runtime: str) -> tuple[str, str]:
    """(version, digest of the installed files): a rebuilt wheel of the same version has other files."""
    dist = DISTRIBUTIONS.get(runtime)
    if dist is None:
        return "", ""
    try:
        found = importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        return "", ""
    record = found.read_text("RECORD") or ""
    return found.version, hashlib.sha256(record.encode()).hexdigest()[:16]


def key(runtime: str, model: str) -> str:
    from core.llm.openvino_export import EXPORT_VERSION
    version, files = runtime_identity(runtime)
    export = str(EXPORT_VERSION) if runtime == "openvino" else ""
    parts = [cpu_flags(), runtime, version, files, model, export, PROBES.get(runtime, ""), str(PROBE_VERSION)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]


def probe_dir() -> Path:
    """Where verdicts are kept: FABULA_PROBE_DIR, else the user's cache folder."""
    if custom := os.environ.get("FABULA_PROBE_DIR", "").strip():
        return Path(custom)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fabula" / "probes"


def _path(runtime: str, model: str, digest: str) -> Path:
    return probe_dir() / f"{runtime.replace('.', '')}-{model}-{digest}.json"


def known(runtime: str, model: str) -> Verdict | None:
    """The verdict for `runtime` and `model` on this machine if a probe gave one already; never probes."""
    digest = key(runtime, model)
    if digest in _verdicts:
        return _verdicts[digest]
    path = _path(runtime, model, digest)
    try:
        found = Verdict(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None
    _verdicts[digest] = found
    return found


def verdict(runtime: str, model: str, cache_dir: Path) -> Verdict:
    """The verdict for `runtime` and `model` on this machine: the kept one, or a probe's in a child process now
    (which reads the model's files from `cache_dir`)."""
    found = known(runtime, model)
    if found is not None:
        return found
    # One probe at a time in this process, and of this runtime and model on this machine: a second process waits for
    # the first's verdict instead of testing again beside it.
    with _lock, file_lock(probe_dir() / f".{runtime.replace('.', '')}-{model}.lock"):
        found = known(runtime, model)
        if found is None:
            digest = key(runtime, model)
            found = probe(runtime, model, cache_dir)
            _verdicts[digest] = found
            _save(_path(runtime, model, digest), found)
    return found


def _save(path: Path, found: Verdict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_suffix(f".{os.getpid()}.tmp")
        staging.write_text(json.dumps(asdict(found), indent=1), encoding="utf-8")
        staging.replace(path)
    except OSError as exc:  # a read-only cache only costs a probe per process
        log.warning("the verdict of %s's test run could not be kept (%s)", found.runtime, exc)


def probe(runtime: str, model: str, cache_dir: Path, timeout: float = TIMEOUT_S) -> Verdict:
    """Run the runtime's probe for `model` in a child process and judge it by how the child ended."""
    target = PROBES[runtime]
    version, _ = runtime_identity(runtime)
    cpu = cpu_name()
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "core.llm.runtime_probe", target, runtime, model, str(cache_dir)]
    log.info("testing %s with %s in a child process (once per machine and build)", runtime, model)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=str(ROOT), env=env,
                              check=False)
    except subprocess.TimeoutExpired:
        return Verdict(runtime, model, False, f"did not finish within {timeout:.0f} s", None, cpu, version,
                       round(time.perf_counter() - start, 1))
    seconds = round(time.perf_counter() - start, 1)
    if done.returncode < 0:
        return Verdict(runtime, model, False, f"was killed by {_signal_words(-done.returncode)}", None, cpu,
                       version, seconds)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    try:
        findings = json.loads(lines[-1]) if lines else None
    except ValueError:
        findings = None
    if done.returncode != 0 or not isinstance(findings, dict):
        tail = next((line.strip() for line in reversed(done.stderr.splitlines()) if line.strip()), "no message")
        return Verdict(runtime, model, False, f"failed (exit status {done.returncode}: {tail[:300]})", None, cpu,
                       version, seconds)
    exact, precision = findings.get("prefix_exact"), findings.get("precision")
    return Verdict(runtime, model, True, "", exact if isinstance(exact, bool) else None, cpu, version, seconds,
                   precision if precision in ("bf16", "f32") else "")


def _signal_words(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    what = {"SIGSEGV": " (a segmentation fault)", "SIGILL": " (an instruction this CPU lacks)",
            "SIGBUS": " (a bus error)", "SIGABRT": " (an abort)", "SIGKILL": " (out of memory?)"}.get(name, "")
    return f"signal {name}{what}"


# -- the probes, run in the child ------------------------------------------------------------------------------

def _prompt_ids(model: str, cache_dir: Path) -> tuple[Any, list[int]]:
    from core.llm.local_models import load_local_tokenizer
    tokenizer = load_local_tokenizer(model, cache_dir)
    return tokenizer, list(tokenizer(PROBE_TEXT)["input_ids"])


def _generate(fast: Any, ids: list[int], tokenizer: Any, n: int = 12) -> list[int]:
    from core.llm.base import StopScanner
    from core.llm.decoding import Decode, FastRun
    run = FastRun(StopScanner(()))
    for _ in fast.text_pieces(ids, Decode(run, lambda t: tokenizer.decode(t), n)):
        pass
    return run.new_ids


def probe_llamacpp(model: str, cache_dir: Path) -> dict[str, Any]:
    """Load the model as the app does, read the prompt (two batches) and generate, twice (the second keeps the
    first's cache)."""
    from core.llm import llamacpp
    from core.llm.local_models import fast_gguf_file, spec_for
    tokenizer, ids = _prompt_ids(model, cache_dir)
    fast = llamacpp.load_fast(model, fast_gguf_file(model, cache_dir), spec_for(model).context_window)
    first = _generate(fast, ids, tokenizer)
    again = _generate(fast, ids[:-3] + ids[-2:], tokenizer)
    llamacpp.unload()
    return {"tokens": len(first) + len(again), "prompt": len(ids)}


# How much slower (in the probe's timing) the other arithmetic may be and still be taken for a kept prefix: a prompt
# sharing three quarters with the one before then reads 3-4x as fast as a fresh one (bench/README.md, bench/llm.py's
# prefix column), which outweighs a tie's few percent. On an Intel Xeon with AMX SmolLM2's two timed within 0.1-5%
# in three runs (Gemma's 8-13%, float32 the faster), and only float32 kept its prefixes exact
# (bench/openvino_precision.py).
PRECISION_TIE = 0.10


def tied_alternative(chosen: str, seconds: dict[str, float]) -> str | None:
    """The other arithmetic, where the probe timed it within PRECISION_TIE of the chosen one; else None."""
    others = [p for p in seconds if p != chosen]
    if chosen not in seconds or len(others) != 1:
        return None
    return others[0] if seconds[others[0]] <= seconds[chosen] * (1 + PRECISION_TIE) else None


def probe_openvino(model: str, cache_dir: Path) -> dict[str, Any]:
    """Choose the faster arithmetic here (`openvino_rt.faster_precision`), compile the export with it as the app
    does, measure whether kept prefixes are exact here, and generate. Where they are not and the other arithmetic
    timed within PRECISION_TIE, the other is taken if its prefixes are exact."""
    from core.llm import openvino_export, openvino_rt
    tokenizer, ids = _prompt_ids(model, cache_dir)
    xml = openvino_export.model_xml(model, cache_dir)
    precision, timings = openvino_rt.faster_precision(model, xml, ids)
    fast = openvino_rt.load(model, lambda: xml, lambda: tokenizer, keep_prefix=False, precision=precision)
    exact = openvino_rt.prefix_exact(fast, ids)
    other = None if exact else tied_alternative(precision, timings)
    if other:
        openvino_rt.unload(model)
        fast = openvino_rt.load(model, lambda: xml, lambda: tokenizer, keep_prefix=False, precision=other)
        if openvino_rt.prefix_exact(fast, ids):
            precision, exact = other, True
        else:
            openvino_rt.unload(model)
            fast = openvino_rt.load(model, lambda: xml, lambda: tokenizer, keep_prefix=False, precision=precision)
    new = _generate(fast, ids, tokenizer)
    return {"tokens": len(new), "prompt": len(ids), "prefix_exact": exact, "precision": precision,
            "precision_seconds": timings}


def main(argv: list[str]) -> int:
    target, runtime, model, cache_dir = argv
    module, _, function = target.partition(":")
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    findings = getattr(importlib.import_module(module), function)(model, Path(cache_dir))
    print(json.dumps({"runtime": runtime, "model": model, **findings}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
