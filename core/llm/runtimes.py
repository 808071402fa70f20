"""Which runtime generates for each embedded model here, and why: the one place that chooses.

`FABULA_LOCAL_RUNTIME` says what is wanted: `auto` (the default: OpenVINO, else llama.cpp, else transformers),
`openvino`, `llama.cpp` or `transformers`. What serves also depends on what is installed, on whether OpenVINO could
export or compile the model in this process (`openvino_rt.failed`), and on each native runtime's test run on this
machine (`runtime_probe`): a runtime whose child-process probe crashed is never loaded into a Fabula process.
`serving` answers from what is known without probing (for the Settings page); `LocalLLM` asks the probes before it
loads a native runtime.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from core.llm import llamacpp, openvino_rt, runtime_probe

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
