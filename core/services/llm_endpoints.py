"""A capable model in one step: keys and servers typed into the Settings page, and the local servers found running.

    llm_endpoints.connect(store, "compatible", key="", base_url="http://gpu-box:8000/v1", model="qwen3:8b",
                          roles=["answering"])   # one short request first; saved and assigned only if it answers
    llm_endpoints.remove(store, "openai")         # the environment's key and URL apply again
    llm_endpoints.use_local_model(store, "ollama:llama3.2:latest", ROLES)

What is typed goes to the data directory's secrets file (core.llm.secrets_file), never to the store; a failing
test saves nothing. With sign-in configured only the admin (FABULA_ADMIN) may change any of this, as for the other
app-wide settings; the check is made here, before anything is written, whatever page or caller asks.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.config import Settings, get_settings
from core.llm import LLMError, check_llm_name, local_servers, secrets_file
from core.llm.errors import LLMAuthError, LLMBadRequest, LLMRateLimited, LLMTimeout, redact
from core.llm.keys import DEFAULT_BASE_URL, display_url
from core.services import llm_service
from core.services.access import ReadOnly
from core.services.guarded_store import can_change_settings
from core.store import Store

KINDS = {"openai": "OpenAI key", "anthropic": "Anthropic key", "compatible": "OpenAI-compatible server"}
PROVIDER_OF = {"openai": "openai", "anthropic": "anthropic", "compatible": "openai"}
DEFAULT_MODEL = {"openai": "gpt-4o-mini", "anthropic": "claude-haiku-4-5", "compatible": ""}
TEST_TIMEOUT_S = 20.0  # the connection test waits at most this (or FABULA_LLM_TIMEOUT_S when shorter), no retries
PRECEDENCE = ("A key or server saved here is used for its provider instead of the environment (OPENAI_API_KEY, "
              "OPENAI_BASE_URL, FABULA_OPENAI_BASE_URL, ANTHROPIC_…) and .streamlit/secrets.toml, key and base URL "
              "together, so a key typed here goes only to the server typed with it. Remove it to use the "
              "environment's again. OpenAI and an OpenAI-compatible server share the openai: models: saving one "
              "replaces the other.")


def require_admin(store: Store) -> None:
    if not can_change_settings(store):
        raise ReadOnly("Only the admin (FABULA_ADMIN) can change the keys and servers of a shared Fabula.")


def _roles(roles: Sequence[str]) -> list[str]:
    unknown = [r for r in roles if r not in llm_service.ROLES]
    if unknown:
        raise ValueError(f"unknown role {unknown[0]!r}; roles are {', '.join(llm_service.ROLES)}")
    return list(dict.fromkeys(roles))


def assign_roles(store: Store, llm_name: str, roles: Sequence[str]) -> llm_service.RoleAssignment:
    """Give `roles` to `llm_name`, keeping the others' saved choices; all four roles make it the one model."""
    roles = _roles(roles)
    if set(roles) == set(llm_service.ROLES):
        return llm_service.save_role_assignment(store, llm_name, {})
    saved = llm_service.load_role_assignment(store)
    return llm_service.save_role_assignment(store, saved.default, {**saved.roles, **{r: llm_name for r in roles}})


def try_endpoint(provider: str, model: str, key: str | None, url: str,
                 settings: Settings | None = None) -> dict[str, Any]:
    """One short request to `url` with exactly this key (or none): the ping's result, or an LLMError that says what
    to fix, worded for what was typed (not for the environment's key)."""
    settings = settings or get_settings()
    timeout = min(TEST_TIMEOUT_S, settings.llm_timeout_s)
    where = display_url(url)
    secrets = (key,) if key else ()
    try:
        llm = llm_service.endpoint_llm(provider, model, key=key, url=url, timeout=timeout, settings=settings)
        return llm_service.ping(llm)
    except LLMAuthError as exc:
        raise LLMAuthError(f"{where} rejected {'this key' if key else 'the request without a key'} (HTTP 401/403): "
                           f"check the key, and that it may use model {model!r}. Nothing was saved.",
                           provider=provider, secrets=secrets) from exc
    except LLMTimeout as exc:
        raise LLMTimeout(f"No reply from {where} within {timeout:g} s: check that the server runs and is not busy "
                         "(a local server loads a model on its first request: try again in a minute). Nothing was "
                         "saved.", provider=provider, secrets=secrets) from exc
    except LLMRateLimited as exc:
        raise LLMRateLimited(f"{exc} Nothing was saved.", provider=provider, secrets=secrets) from exc
    except LLMBadRequest as exc:
        hint = (" OpenAI-compatible servers usually answer under /v1, e.g. " + where.rstrip("/") + "/v1."
                if provider == "openai" and not where.rstrip("/").endswith("/v1") else "")
        raise LLMBadRequest(f"{exc}.{hint} Nothing was saved.", provider=provider, secrets=secrets) from exc
    except LLMError as exc:
        raise type(exc)(f"{exc}. Nothing was saved.", provider=provider, secrets=secrets) from exc


def connect(store: Store, kind: str, *, key: str | None, base_url: str | None, model: str,
            roles: Sequence[str], settings: Settings | None = None) -> dict[str, Any]:
    """Test, then save and assign: `kind` is "openai" or "anthropic" (a key for the provider's own endpoint) or
    "compatible" (a base URL, with a key only if the server wants one). Raises ValueError / LLMError / ReadOnly with
    the message to show; then nothing was saved or assigned."""
    require_admin(store)
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    provider = PROVIDER_OF[kind]
    secret = secrets_file.clean_key(key)
    url = secrets_file.clean_base_url(base_url) if kind == "compatible" else None
    if kind == "compatible" and not url:
        raise ValueError("Give the server's base URL, e.g. http://localhost:11434/v1 for Ollama or "
                         "http://localhost:8000/v1 for vLLM.")
    if kind != "compatible" and not secret:
        raise ValueError(f"Paste the {KINDS[kind]} (it starts with {'sk-ant-' if kind == 'anthropic' else 'sk-'}).")
    model = (model or "").strip()
    if not model or any(c.isspace() for c in model):
        raise ValueError("Name the model to use, without spaces, e.g. "
                         f"{DEFAULT_MODEL[kind] or 'llama3.1:8b'}.")
    name = check_llm_name(f"{provider}:{model}")
    roles = _roles(roles)
    result = try_endpoint(provider, model, secret, url or DEFAULT_BASE_URL[provider], settings)
    result["reply"] = redact(result["reply"], (secret,) if secret else ())  # a server that echoes the key back
    secrets_file.save(provider, secret, url, settings)
    if roles:
        assign_roles(store, name, roles)
    return {**result, "llm": name, "roles": roles}


def remove(store: Store, provider: str, settings: Settings | None = None) -> list[str]:
    """Forget the saved key/server of `provider`; the roles that still name its models (they now use the
    environment's key and URL, or say that none is set)."""
    require_admin(store)
    secrets_file.remove(provider, settings)
    return [row["role"] for row in llm_service.effective_roles(store, settings)
            if row["llm"].split(":", 1)[0] == provider]


def saved_rows(settings: Settings | None = None) -> list[dict[str, str]]:
    """What the page saved, for display: provider, base URL and whether a key is kept (never the key)."""
    return [{"provider": p, "base_url": display_url(e.base_url or DEFAULT_BASE_URL[p]),
             "key": "saved" if e.api_key else "none (the server wants none)"}
            for p, e in secrets_file.load(settings).items()]


def where_saved(settings: Settings | None = None) -> str:
    return str(secrets_file.path(settings))


def file_problems(settings: Settings | None = None) -> list[str]:
    return secrets_file.problems(settings)


def detected_servers(refresh: bool = False, settings: Settings | None = None) -> list[local_servers.Detected]:
    """The Ollama / LM Studio servers running on this machine now (cached for a few seconds)."""
    return local_servers.detect(settings, refresh=refresh)


def looked_for(settings: Settings | None = None) -> list[tuple[str, str]]:
    """Where detection looks (("Ollama", "http://localhost:11434"), ...), for the page's 'none found' line."""
    return [(k.label, url) for k in local_servers.KINDS if (url := local_servers.server_url(k.provider, settings))]


def use_local_model(store: Store, llm_name: str, roles: Sequence[str]) -> llm_service.RoleAssignment:
    """One click: a detected server's model for `roles` (no key, nothing saved in the secrets file)."""
    require_admin(store)
    return assign_roles(store, check_llm_name(llm_name), roles)
