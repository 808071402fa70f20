"""The data directory's secrets file (core.llm.secrets_file) and the key precedence built on it (core.llm.keys):
owner-only permissions whatever the umask, atomic replacement, a broken or hand-edited file never lost, concurrent
writers serialised, and a key saved with a server going only to that server."""
from __future__ import annotations

import os
import stat
import threading
import time
import tomllib
from pathlib import Path

import pytest

from core.llm import keys, secrets_file
from core.llm.secrets_file import SecretsFileError

KEY = "sk-test-saved-0123456789abcdef"


@pytest.fixture
def data_dir(tmp_path: Path, fresh_settings: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    fresh_settings.setenv("FABULA_DATA_DIR", str(folder))
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "FABULA_OPENAI_BASE_URL",
                "ANTHROPIC_BASE_URL", "FABULA_ANTHROPIC_BASE_URL"):
        fresh_settings.delenv(var, raising=False)
    fresh_settings.chdir(tmp_path)  # no .streamlit/secrets.toml of the working directory
    fresh_settings.setattr(keys, "secrets_paths", lambda: [])  # nor of the project
    return folder


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_saved_owner_only_whatever_the_umask(data_dir: Path) -> None:
    old = os.umask(0)  # the loosest umask: a plain open() would make the file world-readable
    try:
        secrets_file.save("openai", KEY)
    finally:
        os.umask(old)
    file = data_dir / "secrets.toml"
    assert _mode(file) == 0o600
    assert tomllib.loads(file.read_text())["openai"] == {"api_key": KEY}
    assert secrets_file.saved("openai") == secrets_file.SavedEndpoint("openai", KEY, None)
    assert KEY not in repr(secrets_file.saved("openai"))
    assert [p.name for p in data_dir.iterdir()] == ["secrets.toml"], "a temporary file was left behind"


def test_a_loose_file_is_reported_and_rewritten_owner_only(data_dir: Path) -> None:
    data_dir.mkdir()
    file = data_dir / "secrets.toml"
    file.write_text('[anthropic]\napi_key = "sk-ant-by-hand-123456"\n')
    file.chmod(0o644)
    assert "can be read by other users" in " ".join(secrets_file.problems())
    secrets_file.save("openai", KEY)
    assert _mode(file) == 0o600 and secrets_file.problems() == []
    assert secrets_file.saved("anthropic").api_key == "sk-ant-by-hand-123456", "the other entry was lost"


def test_the_write_is_atomic(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure between writing the new file and renaming it leaves the old file whole and no stray file."""
    secrets_file.save("openai", KEY)
    before = (data_dir / "secrets.toml").read_bytes()

    def crash(*_args: object) -> None:
        raise OSError("disk full")
    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        secrets_file.save("openai", "sk-test-other-key-999999")
    assert (data_dir / "secrets.toml").read_bytes() == before
    assert [p.name for p in data_dir.iterdir()] == ["secrets.toml"]


def test_a_broken_file_is_never_overwritten(data_dir: Path) -> None:
    data_dir.mkdir()
    file = data_dir / "secrets.toml"
    file.write_text('[openai\napi_key = "sk-typed-by-hand-555555"\n')
    with pytest.raises(SecretsFileError, match="not valid TOML") as failed:
        secrets_file.save("anthropic", KEY)
    assert "sk-typed-by-hand" not in str(failed.value)
    assert file.read_text().startswith("[openai\n"), "what the user wrote was lost"
    assert secrets_file.load() == {}  # a key lookup does not crash on it...
    assert "not valid TOML" in " ".join(secrets_file.problems())  # ...and the page says what is wrong


def test_a_hand_added_table_is_kept(data_dir: Path) -> None:
    data_dir.mkdir()
    (data_dir / "secrets.toml").write_text('note = "mine"\n[proxy]\nport = 8080\nuse = true\n')
    secrets_file.save("openai", None, "http://gpu-box:8000/v1/")
    data = tomllib.loads((data_dir / "secrets.toml").read_text())
    assert data == {"note": "mine", "proxy": {"port": 8080, "use": True},
                    "openai": {"base_url": "http://gpu-box:8000/v1"}}


def test_remove_keeps_the_others_and_deletes_an_empty_file(data_dir: Path) -> None:
    secrets_file.save("openai", KEY)
    secrets_file.save("anthropic", "sk-ant-test-abcdef123456")
    assert secrets_file.remove("openai") is True
    assert set(secrets_file.load()) == {"anthropic"}
    assert secrets_file.remove("openai") is False
    secrets_file.remove("anthropic")
    assert not (data_dir / "secrets.toml").exists()


def test_concurrent_writers_lose_nothing(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    errors: list[BaseException] = []
    read = secrets_file._read

    def slow_read(file: Path) -> dict:
        data = read(file)
        time.sleep(0.01)  # widen the read-modify-write window: without the lock, entries are lost here
        return data
    monkeypatch.setattr(secrets_file, "_read", slow_read)

    def write(i: int) -> None:
        try:
            provider = "openai" if i % 2 else "anthropic"
            secrets_file.save(provider, f"sk-test-writer-{i:04d}-abcdef")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
    threads = [threading.Thread(target=write, args=(i,)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert set(secrets_file.load()) == {"openai", "anthropic"}, "a read-modify-write lost an entry"


@pytest.mark.parametrize("bad", ["sk-with space-123", "sk-two\nlines", "sk-ünïcode-12345", "x" * 600])
def test_a_key_that_cannot_be_one_is_refused_without_quoting_it(data_dir: Path, bad: str) -> None:
    with pytest.raises(ValueError) as refused:
        secrets_file.save("openai", bad)
    assert bad not in str(refused.value)
    assert not (data_dir / "secrets.toml").exists()


@pytest.mark.parametrize(("url", "said"), [("localhost:11434", "http://"), ("ftp://host/v1", "http://"),
                                           ("http://user:pw@host/v1", "key field"), ("http://host/v1?x=1", "query"),
                                           ("http://host:99999/v1", "cannot be read"), ("http://a b/v1", "one line")])
def test_a_bad_base_url_is_refused(data_dir: Path, url: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        secrets_file.save("openai", None, url)


def test_a_saved_entry_wins_over_the_environment_as_a_whole(data_dir: Path,
                                                             fresh_settings: pytest.MonkeyPatch) -> None:
    fresh_settings.setenv("OPENAI_API_KEY", "sk-test-from-environment-1234")
    fresh_settings.setenv("OPENAI_BASE_URL", "http://env-server:9000/v1")
    assert keys.key_source("openai") == "environment"
    assert keys.base_url("openai") == ("http://env-server:9000/v1", "OPENAI_BASE_URL")
    # a server saved without a key: the environment's OpenAI key must not be sent to it
    secrets_file.save("openai", None, "http://gpu-box:8000/v1")
    assert keys.base_url("openai") == ("http://gpu-box:8000/v1", "Settings page")
    assert keys.api_key("openai") is None and keys.key_source("openai") == "not set"
    # a key saved alone goes to OpenAI's own endpoint, not to the environment's server
    secrets_file.save("openai", KEY)
    assert keys.api_key("openai") == KEY and keys.key_source("openai") == "Settings page"
    assert keys.base_url("openai") == ("https://api.openai.com/v1", "Settings page")
    # both keys stay redacted from messages, the overridden one too
    assert set(keys.configured_keys()) >= {KEY, "sk-test-from-environment-1234"}
    secrets_file.remove("openai")
    assert keys.key_source("openai") == "environment"
