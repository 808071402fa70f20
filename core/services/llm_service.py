"""LLM use cases: which model serves which role, a connection test, where keys come from, prices and estimates.

Role resolution, first match wins (the Settings page is the user's latest word, so it beats the environment):
  1. an explicit override (`--llm` on the command line)
  2. the saved per-role choice (Settings page, `cli.py llm use --role`; store meta "llm_roles" -> "roles")
  3. the saved "one for everything" choice                          (store meta "llm_roles" -> "default")
  4. FABULA_LLM_<ROLE>, then FABULA_LLM         (core.config.Settings)
  5. the built-in default (the best local model by bench/llm.py)
Keys are never read here except through core.llm.keys, and never returned.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.config import Settings, get_settings
from core.llm import LLM, LLMUsage, MeteredLLM, UsageSink, check_llm_name, get_llm, list_providers
from core.llm.base import local_access
from core.llm.keys import KEYED_PROVIDERS, base_url, key_source
from core.llm.pricing import (
    DEFAULT_PRICES,
    CostEstimate,
    PriceTable,
    estimate_job_cost,
    format_usd,
    price_for,
    price_rows,
    price_table_from_json,
    price_table_to_json,
    prices_from_rows,
)
from core.llm.registry import is_embedded
from core.store import Store

log = logging.getLogger(__name__)

ROLES = ("extraction", "answering", "summarizing", "writing")
ROLES_META_KEY = "llm_roles"
PRICES_META_KEY = "price_table"
PING_PROMPT = "Say hello in one short sentence."


@dataclass
class RoleAssignment:
    """What the Settings page stored: one LLM for everything and/or one per role (None / absent = not set)."""

    default: str | None = None
    roles: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> str:
        return json.dumps({"default": self.default, "roles": self.roles})


def _check_role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; roles are {', '.join(ROLES)}")
    return role


def load_role_assignment(store: Store) -> RoleAssignment:
    raw = store.get_meta(ROLES_META_KEY)
    if not raw:
        return RoleAssignment()
    try:
        data = json.loads(raw)
        roles = {r: str(v) for r, v in (data.get("roles") or {}).items() if r in ROLES and v}
        return RoleAssignment(data.get("default") or None, roles)
    except (json.JSONDecodeError, AttributeError, TypeError):
        log.warning("stored LLM role assignment is unreadable; using the environment's settings")
        return RoleAssignment()


def save_role_assignment(store: Store, default: str | None, roles: Mapping[str, str | None] | None = None) -> \
        RoleAssignment:
    """Validate and store. Every name must parse and name a known provider (and, for local, a known model)."""
    clean_roles = {_check_role(r): check_llm_name(v) for r, v in (roles or {}).items() if v}
    assignment = RoleAssignment(check_llm_name(default) if default else None, clean_roles)
    store.set_meta(ROLES_META_KEY, assignment.as_json())
    return assignment


def clear_role_assignment(store: Store) -> None:
    store.set_meta(ROLES_META_KEY, RoleAssignment().as_json())


# Measured exceptions to the built-in default (only when FABULA_LLM is not set): Gemma 3 270M is a base model
# that wins the QA probe (bench/llm.py) but cannot follow the writer's chapter prompt (it answers with
# "Answer: ..." lines; bench/retention_writing.py), so writing defaults to the instruction-tuned SmolLM2.
BUILTIN_ROLE_DEFAULTS: dict[str, str] = {"writing": "local:smollm2"}


def resolve_llm_name(store: Store | None, role: str, cli_override: str | None = None,
                     settings: Settings | None = None) -> str:
    """The PROVIDER:MODEL that serves `role` (see the module docstring for the order)."""
    return resolve_with_source(store, role, cli_override, settings)[0]


def resolve_with_source(store: Store | None, role: str, cli_override: str | None = None,
                        settings: Settings | None = None) -> tuple[str, str]:
    _check_role(role)
    if cli_override:
        return check_llm_name(cli_override), "--llm"
    if store is not None:
        stored = load_role_assignment(store)
        if role in stored.roles:
            return stored.roles[role], "saved choice (this role)"
        if stored.default:
            return stored.default, "saved choice"
    settings = settings or get_settings()
    set_fields = settings.model_fields_set
    if f"llm_{role}" in set_fields and getattr(settings, f"llm_{role}"):
        return settings.llm_for(role), f"FABULA_LLM_{role.upper()}"
    if "llm" not in set_fields and role in BUILTIN_ROLE_DEFAULTS:
        return BUILTIN_ROLE_DEFAULTS[role], "built-in default for this role"
    return settings.llm, ("FABULA_LLM" if "llm" in set_fields else "built-in default")


def effective_roles(store: Store | None, settings: Settings | None = None) -> list[dict[str, str]]:
    return [dict(zip(("role", "llm", "source"), (r, *resolve_with_source(store, r, None, settings))))
            for r in ROLES]


def usage_sink(store: Store) -> UsageSink:
    """A sink for MeteredLLM that records each call in the store (tokens and seconds only; never text or keys)."""
    def sink(usage: LLMUsage) -> None:
        store.record_llm_usage(**usage.as_record())
    return sink


def build_llm(store: Store, role: str, cli_override: str | None = None, *, work_id: int | None = None,
              job_id: int | None = None, settings: Settings | None = None) -> MeteredLLM:
    """The LLM for `role`, metered into the store under work/job: what every feature's service should call."""
    name = resolve_llm_name(store, role, cli_override, settings)
    return metered(store, get_llm(name, settings=settings), role, work_id=work_id, job_id=job_id)


def endpoint_llm(provider: str, model: str, *, key: str | None, url: str, timeout: float,
                 settings: Settings | None = None) -> LLM:
    """A model on an endpoint the user is typing in Settings (its key and URL not saved yet), for one test request:
    no retries, and for OpenAI exactly the key typed, never the configured one. Not metered: nothing is asked of it
    but the ping."""
    return get_llm(f"{provider}:{model}", settings=settings, key=key, base_url_override=url, timeout=timeout,
                   max_retries=0, **({"configured_key": False} if provider == "openai" else {}))


def llm_without_store(role: str, cli_override: str | None = None, settings: Settings | None = None) -> LLM:
    """The LLM for `role` where there is no store to meter into (scoring texts outside a library, a fake's
    context window): the same name resolution as build_llm, without usage records."""
    return get_llm(resolve_llm_name(None, role, cli_override, settings), settings=settings)


def metered(store: Store, llm: LLM, role: str, *, work_id: int | None = None, job_id: int | None = None) -> MeteredLLM:
    """`llm` metered into the store: build_llm's last step, and the door for a model a caller injects (a fake)."""
    return MeteredLLM(llm, usage_sink(store), role=role, work_id=work_id, job_id=job_id)


# -- warm-up at server start -----------------------------------------------------------------------------------

WARM_UP_ENV = "FABULA_WARM_UP"  # "0" turns it off (the app tests do: they never generate)


def warm_up(store: Store, settings: Settings | None = None) -> list[str]:
    """Load now what the first question or chapter would otherwise wait for: each embedded model a role uses (its
    generation runtime and tokenizer) and the MiniLM embedder. Returns what was loaded; failures are logged and
    skipped (a page then reports them when it really needs the model)."""
    from core.nlp import load_embedder
    loaded = []
    names = dict.fromkeys(resolve_llm_name(store, role, None, settings) for role in ROLES)
    for name in names:
        if not is_embedded(name):  # a remote model has nothing to load (and building it may need a key)
            continue
        try:
            llm = get_llm(name, settings=settings)
            if llm.abilities.warm_up:
                info = local_access(llm).warm()
                log.info("warm-up: %s ready (%s, %.1f s)", name, info.source, info.seconds)
                loaded.append(name)
        except Exception as exc:  # noqa: BLE001 - a warm-up never breaks the app
            log.warning("warm-up: %s could not be loaded (%s)", name, exc)
    try:
        load_embedder()
        loaded.append("embedder")
    except Exception as exc:  # noqa: BLE001
        log.warning("warm-up: the embedder could not be loaded (%s)", exc)
    return loaded


def local_runtime() -> dict[str, Any]:
    """Which runtime each embedded model generates with here, as far as is known (no model is loaded and no probe
    run): {"runtime": the one most models use, "models": {name: runtime}, "notes": why a runtime was passed over
    or how it runs on this CPU}."""
    from core.llm import runtimes
    from core.llm.local_models import LOCAL_MODELS
    serving = {name: runtimes.serving(name) for name in LOCAL_MODELS}
    used = [s.runtime for s in serving.values()]
    notes = list(dict.fromkeys(note for s in serving.values() for note in s.notes))
    return {"runtime": max(set(used), key=used.count) if used else runtimes.installed_default(),
            "models": {name: s.runtime for name, s in serving.items()}, "notes": notes}


def prepare_local_models(settings: Settings | None = None) -> list[dict[str, Any]]:
    """The set-up step for the embedded models (`cli.py llm prepare`): files written once into the model cache so
    the first page visit loads in seconds. No float32 copy is kept on disk (an earlier version's is removed); with
    the OpenVINO runtime the models are exported for it (from the float32 model, dequantized in memory), and
    llama.cpp's requantized copy is made only where llama.cpp is installed (it is built only when needed).
    Each native runtime that may serve is then tried on this machine in a child process (`runtime_probe`, once per
    CPU and build), so the server never loads one that crashes here."""
    from core.llm import llamacpp, openvino_export, runtime_probe, runtimes
    from core.llm.local_models import LOCAL_MODELS, prepare
    cache = (settings or get_settings()).cache_dir
    runtime = runtimes.installed_default()
    done = []
    for name in LOCAL_MODELS:
        native = runtime != "transformers" and llamacpp.available(warn=runtime != "openvino")
        row = {**prepare(name, cache, llama_cpp=native), "runtime": runtime}
        probed = []
        if runtime == "openvino":
            row["openvino"] = str(openvino_export.model_xml(name, cache))
            probed.append("openvino")
        if native:
            probed.append("llama.cpp")  # the fallback: tried now too, so a failing OpenVINO never meets a crash
        row["probes"] = {r: runtime_probe.verdict(r, name, cache).note() for r in probed}
        row["runtime"] = runtimes.serving(name).runtime
        done.append(row)
    return done


def start_warm_up(store: Store, settings: Settings | None = None) -> threading.Thread | None:
    """warm_up() in a background thread (None when FABULA_WARM_UP=0), so the server answers at once."""
    if os.environ.get(WARM_UP_ENV, "1").strip() == "0":
        return None
    thread = threading.Thread(target=warm_up, args=(store, settings), name="fabula-warm-up", daemon=True)
    thread.start()
    return thread


# -- connection test and environment ---------------------------------------------------------------------------

def ping(llm: LLM, prompt: str = PING_PROMPT, max_tokens: int = 8) -> dict[str, Any]:
    """One short real request. `seconds` is the wall time, including loading a local model the first time."""
    start = time.perf_counter()
    result = llm.complete([{"role": "user", "content": prompt}], max_tokens=max_tokens)
    provider, model = llm.name.split(":", 1)
    return {"provider": provider, "model": model, "reply": result.text.strip(), "input_tokens": result.input_tokens,
            "output_tokens": result.output_tokens, "seconds": round(time.perf_counter() - start, 3)}


def test_connection(llm_name: str, settings: Settings | None = None) -> dict[str, Any]:
    """ping() for a PROVIDER:MODEL name; raises LLMError with a message that says what to check."""
    return ping(get_llm(check_llm_name(llm_name), settings=settings))


def endpoints(settings: Settings | None = None) -> list[dict[str, str]]:
    """Base URL, where it came from, and the key source, per keyed provider (for display)."""
    rows = []
    for p in KEYED_PROVIDERS:
        url, source = base_url(p, settings)
        rows.append({"provider": p, "base_url": url, "base_url_from": source, "key": key_source(p)})
    return rows


def list_models() -> list[dict[str, Any]]:
    """Every provider; "listed" is False for the ones never offered to users (the scripted fake of the tests)."""
    return [{"provider": p.name, "models": list(p.models), "any_model": p.open_models, "description": p.description,
             "examples": list(p.examples), "listed": p.listed} for p in list_providers()]


# -- prices and estimates --------------------------------------------------------------------------------------

def load_price_table(store: Store) -> PriceTable:
    raw = store.get_meta(PRICES_META_KEY)
    if not raw:
        return dict(DEFAULT_PRICES)
    try:
        return price_table_from_json(raw)
    except ValueError as exc:
        log.warning("stored price table is unreadable (%s); using the defaults", exc)
        return dict(DEFAULT_PRICES)


def save_price_table(store: Store, rows: list[Mapping[str, Any]]) -> PriceTable:
    """Validate edited rows (ValueError names the bad row) and store them; nothing is stored when invalid."""
    table = prices_from_rows(rows)
    store.set_meta(PRICES_META_KEY, price_table_to_json(table))
    return table


def reset_price_table(store: Store) -> PriceTable:
    store.set_meta(PRICES_META_KEY, price_table_to_json(DEFAULT_PRICES))
    return dict(DEFAULT_PRICES)


def price_table_rows(store: Store) -> list[dict[str, Any]]:
    return price_rows(load_price_table(store))


def estimate_cost(store: Store, llm_name: str, *, units: int, calls: int, input_tokens: int, output_tokens: int,
                  detail: dict[str, Any] | None = None) -> CostEstimate:
    """The pre-job estimate with the stored (edited) price table."""
    return estimate_job_cost(llm_name, units=units, calls=calls, input_tokens=input_tokens,
                             output_tokens=output_tokens, prices=load_price_table(store), detail=detail)


def usage_tally(store: Store, llm_name: str, work_id: int | None = None, job_id: int | None = None) -> dict[str, Any]:
    """The after-job tally: calls and tokens recorded for the work/job, priced as `llm_name`."""
    usage = store.llm_usage(work_id=work_id, job_id=job_id)
    price = price_for(llm_name, load_price_table(store))
    usd = None if price is None else round(price.cost(usage["input_tokens"], usage["output_tokens"]), 6)
    return {**usage, "model": llm_name, "usd": usd, "label": format_usd(usd, llm_name)}
