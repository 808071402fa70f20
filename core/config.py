"""Application settings: one pydantic-settings class, env prefix FABULA_.

Per-call parameters live in small dataclasses next to the code that uses them; this class only holds what
configures the whole app (where data lives, which LLM, budgets). API keys are deliberately not fields here:
they are read from the environment or Streamlit secrets at the moment a provider is built (core.llm.keys),
so no code path can serialise a Settings object and leak one.
"""
from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FABULA_", extra="ignore")

    data_dir: Path = Field(default=PROJECT_ROOT / "data", description="Where the SQLite file and model caches live")
    db_url: str | None = Field(default=None, description="SQLAlchemy URL; default sqlite file in data_dir")
    llm: str = Field(default="local:gemma3-270m", description="PROVIDER:MODEL for every role unless overridden")
    llm_extraction: str | None = None
    llm_answering: str | None = None
    llm_summarizing: str | None = None
    llm_writing: str | None = None
    openai_base_url: str | None = None
    anthropic_base_url: str | None = None
    # local model servers looked for on the Settings page and served as ollama:MODEL / lmstudio:MODEL; "" turns off
    ollama_url: str | None = "http://localhost:11434"
    lmstudio_url: str | None = "http://localhost:1234"
    model_cache: Path | None = Field(default=None, description="Where dequantized local models are cached "
                                     "(default: data_dir/cache); tests share one so models dequantize once")
    max_upload_mb: int = Field(default=25, description="Largest file accepted by import")
    prompt_budget_tokens: int = Field(default=1000, description="Prompt budget for QA (the Andrus paper used 1,000)")
    llm_timeout_s: float = 60.0
    llm_max_retries: int = 3
    # sign-in (README "Sign-in"): on when a Streamlit secrets file has an [auth] section
    admin: str | None = Field(default=None, description="With sign-in: the user (email) who owns the works made "
                              "before sign-in was configured and may change the app's settings")
    user: str | None = Field(default=None, description="With sign-in: the user the CLI acts as (--user overrides)")
    secrets_file: Path | None = Field(default=None, description="The secrets file whose [auth] section turns sign-in "
                                      "on for the CLI (default: the ones Streamlit reads)")

    @property
    def database_url(self) -> str:
        if self.db_url:
            return self.db_url
        return f"sqlite:///{(self.data_dir / 'fabula.db').as_posix()}"

    @property
    def cache_dir(self) -> Path:
        return self.model_cache or self.data_dir / "cache"

    def llm_for(self, role: str) -> str:
        """The PROVIDER:MODEL for a role (extraction, answering, summarizing, writing)."""
        return getattr(self, f"llm_{role}", None) or self.llm


    def sign_in_configured(self) -> bool:
        """Whether an [auth] section is in the secrets file(s) Streamlit reads (the CLI's view; pages ask
        st.secrets, which is the same files unless the server was started with --secrets.files)."""
        files = [self.secrets_file] if self.secrets_file else [
            Path.home() / ".streamlit" / "secrets.toml", Path.cwd() / ".streamlit" / "secrets.toml",
            PROJECT_ROOT / ".streamlit" / "secrets.toml"]
        for path in files:
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
                continue
            if isinstance(data.get("auth"), dict) and data["auth"]:
                return True
        return False


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
