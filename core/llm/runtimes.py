"""Which runtime generates for each embedded model here, and why: the one place that chooses.

`FABULA_LOCAL_RUNTIME` says what is wanted: `auto` (the default: OpenVINO, else llama.cpp, else transformers),
`openvino`, `llama.cpp` or `transformers`. What serves also depends on what is installed, on whether OpenVINO could
export or compile the model in this process (`openvino_rt.failed`), and on each native runtime's test run on this
machine (`runtime_probe`): a runtime whose child-process probe crashed is never loaded into a Fabula process.
`serving` answers from what is known without probing (for the Settings page); `fast_model` asks the probes before
it loads a native runtime, and is what `LocalLLM` generates with (`decoding.FastModel`, or None: transformers).
"""
from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.llm import llamacpp, openvino_export, openvino_rt, runtime_probe
from core.llm.decoding import FastModel
from core.llm.errors import LLMError
from core.llm.local_models import fast_gguf_file

log = logging.getLogger(__name__)

RUNTIME_ENV = "FABULA_LOCAL_RUNTIME"
RUNTIMES = ("auto", "llama.cpp", "openvino", "transformers")


def setting() -> str:
    """The runtime asked for (FABULA_LOCAL_RUNTIME), "auto" when unset or not one of RUNTIMES."""
    value = os.environ.get(RUNTIME_ENV, "auto").strip().lower() or "auto"
    if value not in RUNTIMES:
        log.warning("%s=%r is not one of %s; using auto", RUNTIME_ENV, value, ", ".join(RUNTIMES))
        return "auto"
    return value


def installed_default() -> str:
    """The runtime the setting and the installed packages give, before any model's probe: "openvino" (the
    default, where installed), "llama.cpp" (asked for, or OpenVINO missing) or "transformers"."""
    wanted = setting()
    if wanted == "transformers":
        return "transformers"
    if wanted in ("auto", "openvino") and openvino_rt.available():
        return "openvino"
    return "llama.cpp" if llamacpp.available() else "transformers"


@dataclass(frozen=True)
class Serving:
    runtime: str  # "openvino", "llama.cpp" or "transformers"
    notes: tuple[str, ...] = ()  # why not the runtime before it, and how it runs here (for logs and Settings)


def serving(model: str) -> Serving:
    """The runtime that generates for `model` here as far as is known now (probe verdicts already made; none is
    run), with notes saying why a runtime before it in the order was passed over."""
    notes: list[str] = []
    runtime = installed_default()
    if runtime == "openvino":
        found = runtime_probe.known("openvino", model)
        if openvino_rt.failed(model):
            notes.append(f"OpenVINO could not load {model} in this process (see the log)")
        elif found is not None and not found.ok:
            notes.append(found.note())
        else:
            if found is not None and found.prefix_exact is False:
                notes.append(found.note())
            return Serving("openvino", tuple(notes))
        runtime = "llama.cpp" if llamacpp.available() else "transformers"
    if runtime == "llama.cpp":
        found = runtime_probe.known("llama.cpp", model)
        if found is None or found.ok:
            return Serving("llama.cpp", tuple(notes))
        notes.append(found.note())
    return Serving("transformers", tuple(notes))


def fast_model(name: str, cache_dir: Path, context_window: int, tokenizer: Callable[[], Any]) -> FastModel | None:
    """The fast runtime's loaded model for `name`, or None where transformers serves. OpenVINO's export is made at
    set-up, else on this first use. A native runtime is loaded only after its probe in a child process passed on
    this machine (`runtime_probe`); one that failed it is passed over with a log line, as a failed OpenVINO export
    is (unless FABULA_LOCAL_RUNTIME names it: then its failure is the answer)."""
    wanted = serving(name).runtime
    if wanted == "openvino":
        if (loaded := openvino_rt.loaded(name)) is not None:
            return loaded
        try:
            xml = openvino_export.model_xml(name, cache_dir)
            found = runtime_probe.verdict("openvino", name, cache_dir)
            if not found.ok:
                raise LLMError(f"local: {found.note()}", provider="local")
            return openvino_rt.load(name, lambda: xml, tokenizer, keep_prefix=found.prefix_exact is not False,
                                    precision=found.precision or None)
        except Exception as exc:
            if setting() == "openvino":
                raise
            openvino_rt.mark_failed(name, exc)  # the default: llama.cpp serves, with a log line
        wanted = serving(name).runtime
    if wanted != "llama.cpp":
        return None
    gguf = fast_gguf_file(name, cache_dir)
    found = runtime_probe.verdict("llama.cpp", name, cache_dir)
    if not found.ok:
        llamacpp.mark_unsafe(name, found.note())  # one log line; `serving` now says transformers
        return None
    return llamacpp.load_fast(name, gguf, context_window)
