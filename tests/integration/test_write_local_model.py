"""One short chapter written by the real local model (SmolLM2) through the whole loop, and a kg-prompt
continuation with it. Kept small (a ~100-token chapter) so it runs in well under a minute on two cores."""
from __future__ import annotations

import pytest

from core.llm.local import LocalLLM
from core.services import continuation_service as cs
from core.services import write_service as ws
from core.write import ContinueParams, DecodeParams, WriteParams

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> LocalLLM:
    from tests.conftest import MODEL_CACHE
    llm = LocalLLM("smollm2", cache_dir=MODEL_CACHE)
    llm.load()
    return llm


def test_one_short_chapter_with_the_local_model(store, smollm2: LocalLLM) -> None:  # noqa: ANN001
    params = WriteParams("5", "Cinderella", min_words=30, max_words=60, max_chapters=3,   # extractor "auto"
                         decode=DecodeParams(temperature=0.0, max_tokens=100))
    work_id = ws.start_story(store, "The Egg", params).id
    result = ws.next_chapter(store, work_id, smollm2)
    chapter = store.get_chapter(work_id, 1)
    assert result["chapter"] == 1 and not result["finished"] and len(chapter.text.split()) >= 10
    assert "STORY STATUS" not in chapter.text
    assert ws.story_state(store, work_id).next_chapter == 2
    # the grapher step ran on it, with the offline extractor: the embedded model's grapher JSON came out empty
    assert store.kg_extracted_chapters(work_id) == {1: (1, "offline")}

    out = cs.continue_work(store, work_id, ContinueParams(mode="kg-prompt", tokens=20), smollm2)
    assert out.text and out.mode == "kg-prompt" and smollm2.count_tokens(out.prompt) <= 1000


def test_a_chapter_has_at_least_the_lower_word_count(store, smollm2: LocalLLM) -> None:  # noqa: ANN001
    """Asked for 250-400 words, the chapter has them: max_tokens from the upper count, and an end-of-text before
    the lower count in tokens becomes a new paragraph (on the Write page a leftover 150-token cap once gave 120)."""
    params = WriteParams("5", "Cinderella", min_words=250, max_words=400, max_chapters=3, extractor="offline",
                         decode=DecodeParams(temperature=0.0))
    work_id = ws.start_story(store, "The Egg", params).id
    draft = ws.draft_chapter(store, work_id, smollm2)
    assert 250 <= len(draft.text.split()) <= 400 * 1.1, (len(draft.text.split()), draft.text[-300:])
