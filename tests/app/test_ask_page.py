"""AppTest on the Ask page: ask, get the answer with citations linked to the reader (and never past the reader's
chapter), inspect the exact prompt and the scored facts/passages, jump to a highlighted passage, and the Recap."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text
from core.llm import FakeLLM, register_provider, unregister_provider
from tests.app.conftest import page

XSS = "<img src=x onerror=alert(1)>"
CHAPTERS = [
    "Marley was dead, to begin with. Scrooge signed the register of his burial.\n\n"
    "Scrooge never painted out old Marley's name. There it stood, years afterwards, above the warehouse door.",
    "The ghost of Marley came through the heavy door. Scrooge knew the face. " + XSS + "\n\n"
    "Marley's ghost wore the chain he forged in life, link by link and yard by yard.",
    "Tiny Tim did not die, and Scrooge became a second father to him.",
]


@pytest.fixture
def answering(app_db: str, monkeypatch: pytest.MonkeyPatch) -> list[FakeLLM]:
    """Every LLM the page builds answers "Marley's ghost"; the list keeps them, with their calls."""
    from core.config import get_settings
    built: list[FakeLLM] = []

    def factory(model: str, **kw) -> FakeLLM:  # noqa: ANN003
        built.append(FakeLLM(lambda messages, options: "Marley's ghost", model=model))
        return built[-1]
    register_provider("apptest", factory)
    monkeypatch.setenv("FABULA_LLM", "apptest:qa")
    get_settings.cache_clear()
    yield built
    unregister_provider("apptest")


def _work() -> int:
    from views._shared import get_store
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t, 25)) for i, t in enumerate(CHAPTERS, start=1)]
    return get_store().create_work("Carol", None, WorkKind.BOOK, {}, chapters).id


def _ask(question: str, mode: str, upto: int, work_id: int) -> AppTest:
    at = AppTest.from_file(page("ask.py"), default_timeout=90)
    at.session_state["work_id"] = work_id
    at.run()
    assert not at.exception, at.exception
    at.text_input(key="ask_question").input(question)
    at.radio(key="ask_mode").set_value(mode)
    at.number_input(key=f"ask_upto_{work_id}").set_value(upto)
    at.button(key="ask_submit").click().run()
    assert not at.exception, at.exception
    return at


def _ask_extractive(question: str, work_id: int) -> AppTest:
    """Ask in rag mode with the extractive answer path (the book's own sentence, no model asked)."""
    at = AppTest.from_file(page("ask.py"), default_timeout=90)
    at.session_state["work_id"] = work_id
    at.run()
    at.text_input(key="ask_question").input(question)
    at.radio(key="ask_mode").set_value("rag")
    at.radio(key="ask_answer_path").set_value("extractive")
    at.button(key="ask_submit").click().run()
    assert not at.exception, at.exception
    return at


def _markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_ask_answer_citations_and_inspector(answering: list[FakeLLM]) -> None:
    work_id = _work()
    at = _ask("Who came through the door?", "traditional", 2, work_id)
    text = _markdown(at)
    assert "Marley's ghost" in text
    assert "came through the heavy door" in text and "Tiny Tim" not in text  # cited, and nothing after chapter 2
    assert XSS not in text and "\\<img src=x onerror=alert\\(1\\)\\>" in text  # book text stays text
    assert f"read?work={work_id}&chapter=2" in text  # the link to the reading view (page_link under app.py)
    captions = " ".join(c.value for c in at.caption)
    assert "ending text of chapter 2, passage" in captions and "chapter 3" not in captions
    (code,) = at.code
    assert code.value == answering[-1].calls[-1].prompt  # the inspector shows exactly what was sent
    assert code.value.endswith("Question: Who came through the door?\nAnswer:")
    assert "prompt tokens" in captions and "1000-token budget" in captions
    # "Show in reader" opens the reader at the chapter with the passage highlighted
    at.button(key="ask_cite_0").click().run()
    assert at.session_state["read_chapter"] in (1, 2)
    highlight = at.session_state["read_highlight"]
    assert highlight and highlight in CHAPTERS[at.session_state["read_chapter"] - 1]


def test_rag_lists_scored_passages_and_a_prompt_only_run_asks_nothing(answering: list[FakeLLM]) -> None:
    work_id = _work()
    at = AppTest.from_file(page("ask.py"), default_timeout=120)
    at.session_state["work_id"] = work_id
    at.run()
    at.text_input(key="ask_question").input("What chain did the ghost wear?")
    at.radio(key="ask_mode").set_value("rag")
    at.checkbox(key="ask_dry_run").check()
    at.button(key="ask_submit").click().run()
    assert not at.exception, at.exception
    assert any("Prompt only" in i.value for i in at.info)
    assert all(not llm.calls for llm in answering)
    (table,) = at.dataframe
    rows = table.value
    assert {"chapter", "chunk", "score", "similarity", "in_prompt"} <= set(rows.columns)
    assert rows["score"].is_monotonic_decreasing and rows["in_prompt"].any()
    assert "chain he forged" in _markdown(at)
    assert "Estimate with apptest:qa" in " ".join(c.value for c in at.caption)  # the NARCO section's estimate


def test_an_empty_question_does_nothing(answering: list[FakeLLM]) -> None:
    _work()
    at = AppTest.from_file(page("ask.py"), default_timeout=60).run()
    at.button(key="ask_submit").click().run()
    assert not at.exception and not at.code and not answering


def test_recap_on_the_reading_view(answering: list[FakeLLM]) -> None:
    from core.narco import NewQuestionEdge
    from views._shared import get_store
    store = get_store()
    work_id = _work()
    chunks = store.list_chunks(work_id)
    first, second = chunks[0], next(c for c in chunks if c.chapter_index == 2)
    store.narco_replace_edges(work_id, [second.id], [NewQuestionEdge(first.id, second.id, "Why is Marley a ghost?",
                                                                     "Marley was dead, to begin with.", "")],
                              window=3, model="test")
    at = AppTest.from_file(page("read.py"), default_timeout=60)
    at.session_state["work_id"] = work_id
    at.session_state["read_chapter"] = 2
    at.run()
    at.button(key="read_recap").click().run()
    assert not at.exception, at.exception
    text = _markdown(at)
    assert "Chapter 1, passage 1" in text and "Why is Marley a ghost?" in text
    at.session_state["read_chapter"] = 3
    at.run()
    at.button(key="read_recap").click().run()
    assert any("No retrospective questions" in i.value for i in at.info)


@pytest.fixture
def reply_with(app_db: str, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201 - a function registering the reply
    """reply_with("...") makes every LLM the page builds answer that text."""
    from core.config import get_settings

    def use(reply: str) -> None:
        register_provider("apptest", lambda model, **kw: FakeLLM(lambda messages, options: reply, model=model))
        monkeypatch.setenv("FABULA_LLM", "apptest:qa")
        get_settings.cache_clear()
    yield use
    unregister_provider("apptest")


def _shown_as_answer(at: AppTest, text: str) -> bool:
    """Whether `text` is on the page outside the expander that holds an unsupported answer's words."""
    inside = {c.value for e in at.expander for c in e.caption}
    return (any(text in m.value for m in at.markdown)
            or any(text in c.value for c in at.caption if c.value not in inside))


def test_an_answer_the_cited_passages_do_not_support_is_not_shown_as_one(reply_with) -> None:  # noqa: ANN001
    reply_with("The Yeehats stole Buck in the Klondike.")
    work_id = _work()
    at = _ask("Who came through the door?", "traditional", 2, work_id)
    assert [w.value for w in at.warning] == ["**Not supported by the chapters you have read.** The answer names "
                                             "Yeehats, Buck, Klondike, which the cited passages do not contain\\."]
    assert not _shown_as_answer(at, "Yeehats")
    captions = " ".join(c.value for c in at.caption)
    assert "Source sentence" not in captions and not any(m.value.startswith("> ") for m in at.markdown)
    assert at.session_state["ask_result"].result.support.supported is False


def test_a_wrong_first_name_beside_a_right_surname_fails_the_check(reply_with) -> None:  # noqa: ANN001
    reply_with("Jacob Marley")  # the passages say only "Marley": the name is the model's invention
    work_id = _work()
    at = _ask("Who came through the door?", "traditional", 2, work_id)
    assert "The answer names Jacob" in at.warning[0].value
    assert not _shown_as_answer(at, "Jacob Marley") and not any(m.value.startswith("> ") for m in at.markdown)


def test_a_question_about_someone_the_chapters_read_never_mention(reply_with) -> None:  # noqa: ANN001
    reply_with("Marley's ghost killed him.")
    work_id = _work()
    at = _ask("How does Tiny Tim die?", "rag", 2, work_id)  # Tiny Tim appears only in chapter 3
    assert "do not mention Tiny Tim" in at.warning[0].value
    assert not _shown_as_answer(at, "killed him") and not any(m.value.startswith("> ") for m in at.markdown)


def test_a_supported_answer_shows_its_source_sentence(reply_with) -> None:  # noqa: ANN001
    reply_with("Marley's ghost wore the chain he forged in life.")
    work_id = _work()
    at = _ask("What did the ghost wear?", "traditional", 2, work_id)
    captions = " ".join(c.value for c in at.caption)
    assert not at.warning
    assert "not every wrong detail in an on-topic sentence" in captions   # "supported" is not "true"
    assert "Source sentence that backs it (chapter 2, passage" in captions
    assert "> Marley's ghost wore the chain he forged in life, link by link and yard by yard\\." in _markdown(at)


def test_a_true_sentence_that_answers_something_else_is_not_shown_as_the_answer(reply_with) -> None:  # noqa: ANN001
    reply_with("Marley was dead to begin with.")  # backed by chapter 1, but not what was asked
    work_id = _work()
    at = _ask("What did the ghost wear?", "traditional", 2, work_id)
    warning = at.warning[0].value
    assert warning.startswith("**Not supported by the chapters you have read.** The passages back its words, but "
                              "it does not answer what you asked"), warning
    assert "ghost" in warning and not _shown_as_answer(at, "Marley was dead to begin")  # (the passage has a comma)
    support = at.session_state["ask_result"].result.support
    assert support.off_question and support.relevance is not None and support.relevance.coverage < 1.0


def test_the_extractive_answer_quotes_the_book_with_its_chapter(reply_with) -> None:  # noqa: ANN001
    reply_with("The Yeehats.")
    at = _ask_extractive("What did Marley's ghost wear?", _work())
    assert not at.warning and not _shown_as_answer(at, "Yeehats")  # the model was not asked for the answer
    assert "> Marley's ghost wore the chain he forged in life, link by link and yard by yard\\." in _markdown(at)
    assert any(c.value.startswith("— chapter 2, passage") for c in at.caption)


def test_graph_mode_shows_its_walk_and_opens_it_on_the_graph_page(answering: list[FakeLLM]) -> None:
    from core.services import kg_service
    from views._shared import get_store
    work_id = _work()
    kg_service.build_graph(get_store(), work_id)
    at = AppTest.from_file(page("ask.py"), default_timeout=120)
    at.session_state["work_id"] = work_id
    at.run()
    at.text_input(key="ask_question").input("What did Marley's ghost wear?")
    at.radio(key="ask_mode").set_value("graph")
    at.number_input(key=f"ask_upto_{work_id}").set_value(2)
    at.checkbox(key="ask_dry_run").check()
    at.button(key="ask_submit").click().run()
    assert not at.exception, at.exception
    graph = at.session_state["ask_result"].result.as_dict()["graph"]
    assert any(s["label"].endswith("Marley") and s["how"] == "named" for s in graph["seeds"])
    assert "Graph walk" in _markdown(at) and "Subgraph used" in _markdown(at)
    seeds = at.dataframe[0].value
    assert {"label", "how", "weight"} <= set(seeds.columns)
    at.button(key="ask_show_graph").click().run()
    highlight = at.session_state["kg_highlight"]
    assert highlight.work_id == work_id and highlight.upto == 2 and highlight.fresh
    assert set(highlight.entity_ids) == {e["entity_id"] for e in graph["entities"]}
    # the Graph page draws only that subgraph, as of the reader's chapter, and can go back to the whole graph
    graph_page = AppTest.from_file(page("graph.py"), default_timeout=120)
    graph_page.session_state["work_id"] = work_id
    graph_page.session_state["kg_highlight"] = highlight
    graph_page.run()
    assert not graph_page.exception, graph_page.exception
    assert graph_page.session_state["kg_as_of"] == 2
    assert any("entities that graph mode walked" in i.value for i in graph_page.info)
    graph_page.button(key="kg_clear_highlight").click().run()
    assert "kg_highlight" not in graph_page.session_state and not graph_page.exception


def test_a_name_from_a_sentence_about_something_else_is_no_answer(reply_with) -> None:  # noqa: ANN001
    """Seen on Sleepy Hollow: "What is the name of Ichabod's horse?" answered in bold "Brom" from a sentence about
    Brom's dog. The page says plainly that the closest sentence does not mention the horse, and shows that sentence
    folded, as what it is."""
    reply_with("Scrooge.")
    at = _ask_extractive("Who was Marley's doctor?", _work())
    warning = at.warning[0].value
    assert warning.startswith("**Not supported by the chapters you have read.**") and "“doctor”" in warning, warning
    assert not any(m.value.startswith(("**Scrooge", "> ")) for m in at.markdown)   # no bold name, no quote as answer
    (closest,) = [e for e in at.expander if e.label == "The closest sentence found (it does not answer this)"]
    assert any("Scrooge" in c.value and "chapter 1" in c.value for c in closest.caption)


def test_the_example_question_is_about_this_book_and_no_one_past_the_reader_s_place(app_db: str) -> None:
    """Seen on Pride and Prejudice: the Question box suggested "Why does Scrooge fear the future?"."""
    from core.services import companion_service, kg_service
    from views._shared import get_store
    texts = ["Anna Marsh met Tom Reed at the harbour. Anna Marsh thanked Tom Reed.",
             "Mara Quill came. Mara Quill sang to Mara Quill's sister. Mara Quill laughed. Mara Quill slept."]
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t, 25)) for i, t in enumerate(texts, start=1)]
    work_id = get_store().create_work("Harbour", None, WorkKind.BOOK, {}, chapters).id

    def placeholder() -> str:
        at = AppTest.from_file(page("ask.py"), default_timeout=90)
        at.session_state["work_id"] = work_id
        at.run()
        assert not at.exception, at.exception
        return at.text_input(key="ask_question").placeholder

    assert "Scrooge" not in placeholder() and "main character" in placeholder()   # no graph yet
    kg_service.build_graph(get_store(), work_id)
    assert placeholder() == "e.g. What does Mara Quill want?"
    companion_service.set_position(get_store(), work_id, 1)
    assert placeholder() in ("e.g. What does Anna Marsh want?", "e.g. What does Tom Reed want?")


def test_the_graph_names_who_a_pronoun_means_and_the_page_says_so(reply_with) -> None:  # noqa: ANN001
    """A who-question answered from the graph's fact of the cited passages: "he married her" names no one, and the
    graph's coreference reads "he" as Thomas Reed; the page shows the name, the sentence, and how it was read."""
    from core.services import kg_service
    from views._shared import get_store
    reply_with("Nobody.")
    story = ["Anna Grey lived at the harbour with her father. Thomas Reed came to the harbour in a small boat.",
             "Anna Grey walked on the quay every morning, and Thomas Reed waited for her there. In the spring he "
             "married her at the old church, and the whole town came to see them."]
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(story, start=1)]
    work_id = get_store().create_work("Quay", None, WorkKind.STORY, {}, chapters).id
    kg_service.build_graph(get_store(), work_id)
    at = _ask_extractive("Whom did Anna Grey marry?", work_id)
    assert not at.warning
    assert "**Thomas Reed**" in _markdown(at)
    assert "> In the spring he married her at the old church" in _markdown(at)
    assert any(c.value.startswith("The sentence does not name Thomas Reed; the book") for c in at.caption), \
        [c.value for c in at.caption]


def test_who_is_someone_shows_what_the_graph_knows_beneath_the_answer(reply_with) -> None:  # noqa: ANN001
    """"Who is Thomas Reed?": the book's sentence, then the graph's card as of the chapter read (type, where first
    named, relationships with their chapters)."""
    from core.services import kg_service
    from views._shared import get_store
    reply_with("Nobody.")
    story = ["Anna Grey lived at the harbour with her father. Thomas Reed came to the harbour in a small boat.",
             "Anna Grey walked on the quay every morning, and Thomas Reed waited for her there."]
    chapters = [NewChapter(f"Chapter {i}", t, chunk_text(t)) for i, t in enumerate(story, start=1)]
    work_id = get_store().create_work("Quay", None, WorkKind.STORY, {}, chapters).id
    kg_service.build_graph(get_store(), work_id)
    at = _ask_extractive("Who is Thomas Reed?", work_id)
    shown = _markdown(at)
    assert "**What the graph knows of Thomas Reed by chapter 2**" in shown, shown
    assert "Thomas Reed waited for Anna Grey (since chapter" in shown and "- character, named in chapters 1–2" in shown


def test_a_sentence_that_does_not_say_why_is_the_closest_passage_not_the_answer(reply_with) -> None:  # noqa: ANN001
    """Seen on an unseen story through the CLI: "Why did the Skipper surrender?" answered "The skipper's color
    subsided." under Answer. A why-question's sentence that states no reason is the closest passage, said so, and
    the embedded model is not asked to reword it."""
    reply_with("Because he was a miser.")
    at = _ask_extractive("Why did Scrooge never paint out Marley's name?", _work())
    result = at.session_state["ask_result"].result
    assert result.extraction.question_type == "reason" and not result.extraction.confident
    assert result.answer_path == "extractive" and result.answer is not None
    assert any(i.value.startswith("**No sentence of the cited passages answers this plainly.**") for i in at.info)
    assert [h.value for h in at.subheader][:1] == ["Closest passage"]
    assert "> Scrooge never painted out old Marley's name\\." in _markdown(at)
    assert not [m.value for m in at.markdown if m.value.startswith("**")
                and not m.value.startswith(("**Sources**", "**Passages**"))]   # no name or clause in bold
    assert not _shown_as_answer(at, "miser")
