"""The writer's desk (issue 34) on a real SQLite store, with the writing model behind the local OpenAI-compatible fake
server (tests/support/llm_server.py) so the tests read the very prompts the model is sent: an edited beat and a pinned
fact reach the writer's prompt (a pin of a character not in the chapter does not), a selected passage and its
instruction reach the rewrite prompt, a kept rewrite is a new revision and the earlier one restores, a failing or
useless reply stores nothing, and a story exported as .docx imports back to the same chapters and words."""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from core.llm import FakeLLM, LLMError
from core.services import bible_service, llm_service, manuscript_service, plan_service, rewrite_service
from core.services import write_service as ws
from core.services.library import import_book
from core.write import WriteParams
from tests.support.llm_server import LLMServer, Reply

CHAPTER_1 = ("Mara Quill found the black egg under the mill wheel. It was warm, and it hummed.\n\n"
             "She carried it home through the rain, past the chapel and the silent forge. Tomas Voss watched her "
             "from the granary door and said nothing.\n\n"
             "That night the egg rocked in its basket by the fire.")
CHAPTER_2 = ("The egg cracked at dawn. Mara Quill struck it once more with the silver hammer, and a small grey dragon "
             "crawled out into the ashes.\n\nTomas Voss hid in the granary until noon.")
BEAT = "Mara cracks the obsidian egg with a silver hammer"


@pytest.fixture
def server(fresh_settings: pytest.MonkeyPatch) -> Iterator[LLMServer]:
    for var in ("FABULA_LLM", "FABULA_LLM_WRITING", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        fresh_settings.delenv(var, raising=False)
    with LLMServer() as s:
        fresh_settings.setenv("FABULA_OPENAI_BASE_URL", s.openai_url)
        yield s


def _story(store, chapters: tuple[str, ...] = (CHAPTER_1,)) -> int:  # noqa: ANN001
    work_id = ws.start_story(store, "The Egg", WriteParams("5", "Icarus", max_chapters=4, use_kg=False)).id
    for k, text in enumerate(chapters, 1):
        ws.accept_chapter(store, work_id, text, title=f"Part {k}")
    return work_id


def _prompt(request: Any) -> str:
    return "\n".join(m["content"] for m in request.body["messages"])


def test_an_edited_beat_and_a_planned_characters_pin_reach_the_writers_prompt(store, server) -> None:  # noqa: ANN001
    work_id = _story(store)
    llm = llm_service.build_llm(store, "writing", "openai:tiny", work_id=work_id)
    plan_service.edit_plan(store, work_id, 2, beats=f"- {BEAT}\nTomas hides in the granary", characters="Mara Quill")
    bible_service.pin(store, work_id, "Mara Quill", "Mara Quill has green eyes.")
    bible_service.pin(store, work_id, "Orla Finch", "Orla Finch keeps the lighthouse on Gull Rock.")
    server.script(Reply(CHAPTER_2), Reply("CONTINUE"))
    draft = ws.draft_chapter(store, work_id, llm)
    assert "grey dragon" in draft.text
    writer = _prompt(server.requests[0])
    assert BEAT in writer and "Tomas hides in the granary" in writer        # the plan as the writer edited it
    assert "Mara Quill has green eyes." in writer                           # canon of a character in the chapter
    assert "lighthouse" not in writer and "Orla Finch" not in writer        # a pin of a character not in it: out
    plan_service.edit_plan(store, work_id, 2, beats="Mara buries the shell by the chapel")
    assert "buries the shell" in "\n".join(m["content"] for m in ws.chapter_messages(store, work_id, 2, llm))


def test_a_rewrite_carries_passage_and_instruction_is_kept_and_restores(store, server) -> None:  # noqa: ANN001
    work_id = _story(store)
    llm = llm_service.build_llm(store, "writing", "openai:tiny", work_id=work_id)
    passage = "She carried it home through the rain, past the chapel and the silent forge."
    start = CHAPTER_1.index(passage)
    assert rewrite_service.find_passage(CHAPTER_1, " She carried it home through\nthe rain, past the chapel and the "
                                                   "silent forge. ") == (start, start + len(passage))
    server.script(Reply('Here is the rewritten passage:\n"She bore it home through the cold rain, past the dark '
                        'chapel and the dead forge."'))
    r = rewrite_service.rewrite_passage(store, work_id, 1, start, start + len(passage), "tone",
                                        "make it darker and colder", llm)
    prompt = _prompt(server.requests[-1])
    assert passage in prompt and "make it darker and colder" in prompt and "tone" in prompt
    assert "Mara Quill found the black egg" in prompt                       # the text before, for context
    assert r.new == "She bore it home through the cold rain, past the dark chapel and the dead forge."
    assert (r.old, r.revision) == (passage, 1)
    assert store.get_chapter(work_id, 1).text == CHAPTER_1                  # nothing stored before keeping

    kept = rewrite_service.keep_rewrite(store, work_id, r)
    assert kept.revision == 2 and "the dead forge. Tomas Voss watched" in kept.text
    assert kept.text.startswith("Mara Quill found the black egg") and passage not in kept.text
    assert [v.revision for v in manuscript_service.revisions(store, work_id, 1)] == [2, 1]
    restored = manuscript_service.restore_revision(store, work_id, 1, 1, expected_revision=2)
    assert restored.text == CHAPTER_1 and restored.revision == 3

    stale = rewrite_service.Rewrite(1, start, start + len(passage), passage, "Something else entirely.", 1)
    with pytest.raises(rewrite_service.RewriteError, match="was saved since"):
        rewrite_service.keep_rewrite(store, work_id, stale)                 # the chapter is at revision 3 now
    assert store.get_chapter(work_id, 1).revision == 3


def test_bad_selections_and_bad_replies_store_nothing(store) -> None:  # noqa: ANN001
    work_id = _story(store)
    bad = [((0, 0, "rewrite", ""), "empty"), ((5, 99_999, "rewrite", ""), "outside"),
           ((-1, 5, "shorten", ""), "outside"),
           ((0, 20, "tone", " "), "which tone"), ((0, 20, "poem", ""), "Unknown kind"),
           ((CHAPTER_1.index("\n\n"), CHAPTER_1.index("\n\n") + 2, "rewrite", ""), "white space")]
    for (start, end, kind, instruction), message in bad:
        with pytest.raises(rewrite_service.RewriteError, match=message):
            rewrite_service.rewrite_passage(store, work_id, 1, start, end, kind, instruction, FakeLLM(["x y z"]))
    for reply, message in [("", "held no passage"), ('Sure! Here is the new version: ""', "held no passage"),
                           (CHAPTER_1[:40], "unchanged"), ("PASSAGE TO REVISE:\n<<<\nMara\n>>>", "repeated"),
                           (LLMError("endpoint down"), "could not rewrite")]:
        with pytest.raises(rewrite_service.RewriteError, match=message):
            rewrite_service.rewrite_passage(store, work_id, 1, 0, 40, "rewrite", "", FakeLLM([reply]))
    assert store.get_chapter(work_id, 1).revision == 1
    r = rewrite_service.Rewrite(1, 0, 40, CHAPTER_1[:40], "New words.", 1)
    with pytest.raises(rewrite_service.RewriteError, match="empty"):
        rewrite_service.keep_rewrite(store, work_id, r, "   ")
    assert store.get_chapter(work_id, 1).revision == 1


def test_clean_reply_strips_what_models_wrap_around_a_passage() -> None:
    clean = rewrite_service.clean_reply
    assert clean("Certainly! Here's a darker version of the passage:\n\nThe rain fell.") == "The rain fell."
    assert clean("```\nThe rain fell.\n```") == "The rain fell."
    assert clean("“The rain fell.”") == "The rain fell."
    assert clean("Rewritten passage: The rain fell.\n\nLet me know if you want more changes.") == "The rain fell."
    assert clean("“Go,” she said. “Now.”") == "“Go,” she said. “Now.”"   # dialogue keeps its quotes
    assert clean("The rain fell.\n>>>>\n********\n\nIt stopped.") == "The rain fell.\n\nIt stopped."   # echoed marks
    assert clean("The rain fell.\n\n* * *\n\nIt stopped.") == "The rain fell.\n\n* * *\n\nIt stopped."   # a break
    assert "embedded model" in (rewrite_service.quality_note("local:smollm2") or "")   # said beside its rewrite
    assert rewrite_service.quality_note("openai:gpt-4o-mini") is None


def test_a_story_exported_as_docx_imports_back_to_the_same_chapters_and_words(store) -> None:  # noqa: ANN001
    work_id = _story(store, (CHAPTER_1, CHAPTER_2 + "\n\nShe named the dragon *Ember*, and it slept."))
    data, name, mime = manuscript_service.export_work(store, work_id, "docx")
    assert name.endswith(".docx") and data[:2] == b"PK" and "wordprocessingml" in mime
    back = import_book(store, name, data)
    original = [store.get_chapter(work_id, c.index).text for c in store.list_chapters(work_id)]
    imported = [store.get_chapter(back.id, c.index).text for c in store.list_chapters(back.id)]
    assert len(imported) == len(original) == 2
    assert [t.split() for t in imported] == [t.split() for t in original]
    assert [c.word_count for c in store.list_chapters(back.id)] == [c.word_count for c in store.list_chapters(work_id)]


def test_cli_rewrite_and_docx_export(store, server, db_url: str, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
                                     capsys, tmp_path) -> None:  # noqa: ANN001
    import cli
    import cli_commands
    from core.config import get_settings
    monkeypatch.setenv("FABULA_DB_URL", db_url)
    monkeypatch.setattr(cli_commands, "_store", None)
    get_settings.cache_clear()
    work_id = _story(store)
    try:
        server.script(Reply("It hummed like a hive."))
        args = ["story", "rewrite", str(work_id), "--chapter", "1", "--start", str(CHAPTER_1.index("It was warm")),
                "--end", str(CHAPTER_1.index("\n\n")), "--kind", "rewrite", "--instruction", "stranger",
                "--llm", "openai:tiny", "--keep", "--json"]
        assert cli.main(args) == 0
        out = json.loads(capsys.readouterr().out)
        assert (out["old"], out["new"], out["kept"], out["new_revision"]) == (
            "It was warm, and it hummed.", "It hummed like a hive.", True, 2)
        assert cli.main([*args[:-4], "--llm", "fake:echo", "--json"]) == 1     # the model echoes the request
        assert "repeated the request" in capsys.readouterr().err
        assert store.get_chapter(work_id, 1).revision == 2
        assert cli.main(["story", "export", str(work_id), "--format", "docx", "--out", str(tmp_path / "s.docx"),
                         "--json"]) == 0
        assert (tmp_path / "s.docx").read_bytes()[:2] == b"PK"
    finally:
        cli_commands._store = None
        get_settings.cache_clear()


@pytest.mark.slow
def test_adherence_of_a_written_chapter(store) -> None:  # noqa: ANN001
    work_id = _story(store, (CHAPTER_1, CHAPTER_2))
    plan_service.edit_plan(store, work_id, 2, beats=f"{BEAT}\nThe dragon flies to the sea and fights a kraken",
                           characters="Mara Quill, Tomas Voss, Orla Finch")
    report = plan_service.adherence(store, work_id, 2)
    assert [b.found for b in report.beats] == [True, False]
    assert "silver hammer" in report.beats[0].passage
    assert [(c.name, c.present) for c in report.characters] == [("Mara Quill", True), ("Tomas Voss", True),
                                                                 ("Orla Finch", False)]
    with pytest.raises(plan_service.PlanError, match="no plan"):
        plan_service.adherence(store, work_id, 1)


def test_the_lorebook_export_carries_the_bibles_notes_and_pins(store) -> None:  # noqa: ANN001
    from core.services import kg_service, kg_views
    work_id = _story(store, (CHAPTER_1, CHAPTER_2))
    kg_service.build_graph(store, work_id)
    bible_service.set_note(store, work_id, "Mara Quill", "Keep her hands burned from the forge.")
    bible_service.pin(store, work_id, "Mara Quill", "Mara Quill has green eyes.")
    payload, name, _ = kg_views.export_work(store, work_id, "lorebook")
    entries = json.loads(payload)["entries"].values()
    mara = [e for e in entries if "Mara Quill" in e["key"]]
    assert name.endswith(".lorebook.json") and len(mara) == 1, [e["key"] for e in entries]
    content = mara[0]["content"]
    assert "Writer's note: Keep her hands burned from the forge." in content
    assert "- Canon: Mara Quill has green eyes." in content
    assert not any("Canon" in e["content"] for e in entries if e is not mara[0])   # only on her entry
    plain, _, _ = kg_views.export_work(store, work_id, "json")
    assert b"green eyes" not in plain   # the graph's own export is the graph's
