"""`python cli.py seed-sample` (the set-up step of `bash scripts/dev.sh app`): the sample book is imported once and its
passages are embedded then, so the first question about it does not wait for MiniLM; a second run does nothing."""
from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow


def test_seed_sample_imports_and_embeds_once(db_url: str, fresh_settings: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import cli
    import cli_commands
    from core.services.qa_corpus import EMBED_MODEL
    fresh_settings.setenv("FABULA_DB_URL", db_url)
    fresh_settings.setattr(cli_commands, "_store", None)
    assert cli.main(["seed-sample", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    store = cli_commands.open_store()
    chunks = store.list_chunks(first["work_id"])
    assert first["seeded"] and first["embedded"] == len(chunks) > 50
    assert set(store.chunk_vectors(first["work_id"], EMBED_MODEL)) == {c.id for c in chunks}
    assert cli.main(["seed-sample", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"seeded": False, "work_id": None, "embedded": 0}
