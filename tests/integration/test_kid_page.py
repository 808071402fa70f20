"""The Write page's KID mode with the real local model: its parameters, a run in the background worker, the escaped
overlay that highlights the tokens KID raised (the fact in the title), and the run's one usage record."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from tests.app.conftest import app_db, finish_jobs, page  # noqa: F401 - the fixture

pytestmark = pytest.mark.slow
TEXT = ("Marley was dead, to begin with. Scrooge signed the register of his burial.\n\n"
        "The ghost of Marley came through the <heavy> door and looked at Scrooge.")


def test_kid_mode_on_the_write_page(app_db: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from core.config import get_settings
    from core.services.kg_service import build_graph
    from storage.repository import SqlStore
    monkeypatch.setenv("FABULA_LLM", "local:smollm2")
    get_settings.cache_clear()
    store = SqlStore.from_url(app_db)
    work = store.create_work("Carol", None, WorkKind.BOOK, {}, [NewChapter("One", TEXT, TEXT.split("\n\n"))])
    build_graph(store, work.id)
    at = AppTest.from_file(page("write.py"), default_timeout=120)
    at.session_state["work_id"] = work.id
    at.run()
    assert not at.exception, at.exception
    at.number_input(key="write_tokens").set_value(16)
    at.radio(key="cont_mode").set_value("kid").run()
    assert {w.key for w in at.number_input} >= {"kid_hops", "kid_steps", "kid_strength", "kid_seed"}
    assert at.selectbox(key="kid_variant").options == ["Word choices (fast)", "Model memory (much slower)"]
    at.button(key="cont_go").click().run()
    finish_jobs(at, timeout=300)                 # KID runs in the background worker
    assert not at.exception, at.exception
    html = "".join(e.proto.body for e in at.get("html"))
    assert 'class="kid-overlay"' in html and "<script" not in html
    usage = store.llm_usage(work_id=work.id)   # KID drives the model itself, past stream(): metered once all the same
    assert usage["calls"] == 1 and usage["output_tokens"] == 16
    store.engine.dispose()
