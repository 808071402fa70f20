"""Asking a real book (the first two staves of A Christmas Carol) on real SQLite, the real offline KG extractor and
the real MiniLM embedder, with a scripted FakeLLM: every mode answers, cites real passages and stays spoiler-safe."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.config import PROJECT_ROOT
from core.domain import NewChapter, WorkKind
from core.ingest import chunk_text, read_book
from core.llm import FakeLLM
from core.qa import MODES, QAParams
from core.qa.prompts import VERBALIZE_FEW_SHOT
from core.services import kg_service, qa_service

BOOK = PROJECT_ROOT / "assets" / "a_christmas_carol.txt"
FEW_SHOT_START = VERBALIZE_FEW_SHOT.split("\n", 1)[0]


def carol_chapters(n: int = 2) -> list[NewChapter]:
    book = read_book(BOOK.name, BOOK.read_bytes())
    return [NewChapter(ch.title, ch.text, chunk_text(ch.text)) for ch in book.chapters[:n]]


def answering_llm() -> FakeLLM:
    """Verbalizes facts sensibly (echoing the fact) and answers every question with the same name."""
    def reply(messages, options):  # noqa: ANN001, ANN202
        prompt = messages[-1].content
        if prompt.startswith(FEW_SHOT_START):
            head, relation, tail = prompt.rsplit("\n", 1)[1].rstrip(" :").split(", ", 2)
            return f"{head} {relation} {tail}."
        return "Answer: Jacob Marley\nQuestion: and then?"
    return FakeLLM(reply, context_window=8192)


@pytest.fixture(scope="module")
def carol(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201 - (store, work id), built once
    from storage.repository import SqlStore
    store = SqlStore.from_url(f"sqlite:///{Path(tmp_path_factory.mktemp('qa')) / 'carol.db'}")
    work = store.create_work("A Christmas Carol", "Dickens", WorkKind.BOOK, {}, carol_chapters())
    kg_service.build_graph(store, work.id)
    qa_service.ensure_vectors(store, work.id)
    yield store, work.id
    store.engine.dispose()


def _check_citations(store, work_id: int, result, upto: int) -> None:  # noqa: ANN001
    chunks = {(c.chapter_index, c.index): c for c in store.list_chunks(work_id)}
    assert result.citations, result.mode
    for c in result.citations:
        assert c.chapter <= upto
        chunk = chunks[(c.chapter, c.chunk)]
        assert c.chunk_id == chunk.id
        assert c.text.strip() and (c.text in chunk.text or c.kind == "fact")
        if c.kind == "fact":  # a fact cites its source sentence, which lies in that passage
            assert " ".join(c.text.split()[:4]) in " ".join(chunk.text.split())


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_answers_with_citations_within_budget(carol, mode: str) -> None:  # noqa: ANN001
    store, work_id = carol
    llm = answering_llm()
    result = qa_service.ask(store, work_id, "Who was dead to begin with?", QAParams(mode=mode, upto=1), llm=llm)
    assert result.answer == "Jacob Marley" and result.upto == 1
    assert llm.calls[-1].prompt == result.plan.prompt  # the inspector shows exactly what was sent
    assert result.plan.total_tokens <= 1000 and result.plan.prompt_tokens > 600  # the room is used
    _check_citations(store, work_id, result, upto=1)
    data = result.as_dict()
    assert {"answer", "citations", "prompt", "facts"} <= set(data)
    assert {"chapter", "chunk", "text"} <= set(data["citations"][0])
    if mode == "kg":
        assert len(result.plan.facts) == 3 and result.verbalized_by == "llm"
        assert all(f.sentence in result.plan.prompt for f in result.plan.facts)
    if mode in ("rag", "narco"):
        scores = [p.score for p in result.plan.passages]
        assert scores == sorted(scores, reverse=True) and any(p.in_prompt for p in result.plan.passages)


def test_spoiler_safety_nothing_after_the_readers_chapter(carol) -> None:  # noqa: ANN001
    store, work_id = carol
    second = store.get_chapter(work_id, 2).text
    for mode in MODES:
        result = qa_service.ask(store, work_id, "Who is the Ghost of Christmas Past?", QAParams(mode=mode, upto=1),
                                dry_run=True, llm=FakeLLM())
        assert all(c.chapter == 1 for c in result.citations)
        assert all(p.passage.chapter == 1 for p in result.plan.passages)
        assert all(f.fact.chapter == 1 for f in result.plan.facts)
        assert second[200:260] not in result.plan.prompt


def test_dry_run_calls_no_model_and_uses_the_template(carol) -> None:  # noqa: ANN001
    store, work_id = carol
    llm = FakeLLM([])  # any call would raise: nothing is scripted
    result = qa_service.ask(store, work_id, "What did Scrooge see on the knocker?", QAParams(mode="kg"), llm=llm,
                            dry_run=True)
    assert result.answer is None and llm.calls == [] and result.verbalized_by == "template"
    assert result.upto == 2 and result.plan.facts


def test_asking_past_the_last_chapter_is_an_error(carol) -> None:  # noqa: ANN001
    store, work_id = carol
    from core.store import NotFound
    with pytest.raises(NotFound):
        qa_service.ask(store, work_id, "Who?", QAParams(upto=9), llm=FakeLLM(), dry_run=True)
    with pytest.raises(ValueError):
        qa_service.ask(store, work_id, "   ", QAParams(), llm=FakeLLM(), dry_run=True)


def test_passage_vectors_are_cached_and_follow_chapter_edits(carol) -> None:  # noqa: ANN001
    store, work_id = carol
    assert qa_service.ensure_vectors(store, work_id) == 0  # nothing re-embedded
    corpus = qa_service.load_corpus(store, work_id)
    assert qa_service.load_corpus(store, work_id) is corpus  # unchanged work: the cached corpus
    anchor = qa_service.reader_anchor(store, work_id, 2, corpus.upto(None).passages[-1].text)
    assert anchor and any(anchor in p for p in store.get_chapter(work_id, 2).text.split("\n\n"))  # read.py's test
    short = "\n\n".join(f"Paragraph {i} of a short story about the fog in the city." for i in range(40))
    other = store.create_work("Short", None, WorkKind.BOOK, {}, [NewChapter("One", short, chunk_text(short, 120))])
    qa_service.ensure_vectors(store, other.id)
    chapter = store.get_chapter(other.id, 1)
    text = chapter.text + "\n\nA new last paragraph about the fog."
    store.update_chapter(other.id, 1, text, chunk_text(text, 120), chapter.revision)
    assert len(store.chunk_vectors(other.id, qa_service.EMBED_MODEL)) == 0  # old chunks and their vectors are gone
    assert qa_service.ensure_vectors(store, other.id) == len(store.list_chunks(other.id))


def test_graph_mode_walks_from_the_named_characters(carol) -> None:  # noqa: ANN001
    store, work_id = carol
    result = qa_service.ask(store, work_id, "What did Marley's ghost tell Scrooge?", QAParams(mode="graph", upto=1),
                            llm=FakeLLM(), dry_run=True)
    graph = result.as_dict()["graph"]
    named = {s["label"] for s in graph["seeds"] if s["how"] == "named"}
    assert {"Scrooge", "Marley"} <= {label.split()[-1] for label in named}
    assert graph["entities"] and graph["passage_seeds"] > 0
    entities = {e.id: e for e in store.kg_entities(work_id)}
    assert all(e["entity_id"] in entities and entities[e["entity_id"]].first_chapter <= 1 for e in graph["entities"])
    scores = [p.score for p in result.plan.passages]
    assert scores == sorted(scores, reverse=True) and all(p.passage.chapter == 1 for p in result.plan.passages)
    # "Show in graph": the Graph page draws exactly the walked entities, as of the reader's chapter
    from core.services import kg_views
    view = kg_views.build_view(kg_views.load_graph_data(store, work_id),
                               kg_views.ViewParams(as_of=1, highlight=tuple(graph["entities"][i]["entity_id"]
                                                                            for i in range(len(graph["entities"])))))
    shown = {int(n.lstrip("e").split(".")[0]) for n in [*view.relations.nodes, *view.isolated]}
    assert shown and shown <= {e["entity_id"] for e in graph["entities"]}


def test_kg_facts_by_meaning_and_vectors_stored_once(carol, monkeypatch) -> None:  # noqa: ANN001
    store, work_id = carol
    params = QAParams(mode="kg", fact_ranking="meaning", upto=2)
    first = qa_service.ask(store, work_id, "Who visits Scrooge at night?", params, llm=FakeLLM(), dry_run=True)
    assert len(first.plan.facts) == 3 and all(0 <= f.distance <= 2 for f in first.plan.facts)
    levenshtein = qa_service.ask(store, work_id, "Who visits Scrooge at night?",
                                 params.with_(fact_ranking="levenshtein"), llm=FakeLLM(), dry_run=True)
    assert [f.fact.text for f in levenshtein.plan.facts] != [f.fact.text for f in first.plan.facts]
    # a new process: no cached corpus; facts, names and passages come back from the store, only the question is embedded
    import core.nlp
    embedded: list[str] = []
    real = core.nlp.embed
    monkeypatch.setattr(core.nlp, "embed", lambda texts, **kw: (embedded.extend(texts), real(texts, **kw))[1])
    from core.services import qa_corpus
    qa_corpus._corpora.clear()
    for mode in ("graph", "rag"):
        qa_service.ask(store, work_id, "Who visits Scrooge at night?", QAParams(mode=mode), llm=FakeLLM(), dry_run=True)
    qa_service.ask(store, work_id, "Who visits Scrooge at night?", params, llm=FakeLLM(), dry_run=True)
    assert embedded.count("Who visits Scrooge at night?") == 3
    # passages, facts and names come from the store; only sentences the extractive reader scores are embedded besides
    stored = {c.text for c in store.list_chunks(work_id)}
    assert not set(embedded) & stored and all(len(t) < 600 for t in embedded)
    assert not qa_service.needs_meaning_vectors(store, work_id)


def _ask_an_embedded_model_that_replies(carol, reply: str, question: str) -> qa_service.QAResult:  # noqa: ANN001
    """Ask chapter 1 of the Carol in auto mode with an embedded answering model that always says `reply`."""
    from core.llm import register_provider, unregister_provider
    store, work_id = carol
    register_provider("embfake", lambda model, **kw: FakeLLM(lambda m, o: reply, model=model, context_window=8192),
                      embedded=True)
    try:
        return qa_service.Asker(store, llm_override="embfake:x").ask(work_id, question, QAParams(mode="rag", upto=1))
    finally:
        unregister_provider("embfake")


@pytest.mark.parametrize("reply, shown", [
    ("The clergyman, the clerk, the undertaker and the chief mourner", "rephrased"),
    ("Tiny Tim and the clerk", "extractive")])
def test_auto_with_an_embedded_model_quotes_the_book_and_keeps_a_backed_rephrasing(carol, reply: str,  # noqa: ANN001
                                                                                  shown: str) -> None:
    """With an embedded answering model the answer is the book's sentence; the model may rephrase it, and its words
    are shown only when the support check passes on the quoted sentence (a name it lacks fails it)."""
    result = _ask_an_embedded_model_that_replies(carol, reply, "Who signed the register of Marley's burial?")
    extraction = result.extraction
    assert result.answer_path == shown and extraction is not None and extraction.quotes
    assert any("register of his burial was signed by the clergyman" in q.text for q in extraction.quotes)
    assert result.answer == (reply if shown == "rephrased" else extraction.answer)
    assert result.answer_chapters == [1] and result.supported is True
    assert result.as_dict()["answer_path"] == shown


@pytest.mark.parametrize("reply, shown", [
    ("Marley was as dead as a door-nail.", "rephrased"),
    ("He was as dead as a door-nail.", "extractive")])
def test_a_rephrasing_that_drops_the_answer_the_reader_found_is_not_shown(carol, reply: str,  # noqa: ANN001
                                                                          shown: str) -> None:
    """The embedded model may rephrase the chosen sentence only if it keeps the span the reader found (the name
    asked for): a fluent reply without it is not an answer, however well the passages back its other words."""
    result = _ask_an_embedded_model_that_replies(carol, reply, "Who was as dead as a door-nail?")
    extraction = result.extraction
    assert extraction is not None and extraction.span is not None and "Marley" in extraction.span
    assert result.answer_path == shown
    assert result.answer == (reply if shown == "rephrased" else extraction.answer)


@pytest.mark.parametrize("max_added, shown", [(qa_service.MAX_ADDED_WORDS, "extractive"), (99, "rephrased")])
def test_a_rephrasing_that_adds_its_own_story_is_not_shown(carol, monkeypatch, max_added: int,  # noqa: ANN001
                                                          shown: str) -> None:
    """The embedded model's rephrasing may restate the quoted sentence, not add to it: a reply with more than
    MAX_ADDED_WORDS content words that neither the quote nor the question holds is the model's own story, and the
    page shows the quote instead (with the rule relaxed, the same reply would be shown: the other checks pass it)."""
    monkeypatch.setattr(qa_service, "MAX_ADDED_WORDS", max_added)
    reply = "Marley, his brother-in-law, was as dead as a door-nail."  # "brother", "law": in neither quote nor question
    result = _ask_an_embedded_model_that_replies(carol, reply, "Who was as dead as a door-nail?")
    assert result.extraction is not None and result.answer_path == shown
    assert result.answer == (reply if shown == "rephrased" else result.extraction.answer)


def test_keeps_span_matches_whole_words_in_any_case() -> None:
    assert qa_service.keeps_span("It was JACOB  Marley's ghost.", "Jacob Marley")
    assert not qa_service.keeps_span("Marleyville", "Marley") and not qa_service.keeps_span("the clerk", "Marley")
    assert qa_service.keeps_span("anything", None)


def test_a_name_from_a_sentence_that_does_not_say_what_was_asked_is_no_answer(carol) -> None:  # noqa: ANN001
    """"What is the name of Scrooge's dead partner?": the closest sentence, "Sometimes people new to the business
    called Scrooge Scrooge, and sometimes Marley ...", holds the right name by luck and says nothing of a partner or
    a death; no answer, and the reason says what the sentence leaves out. The model is not asked to rephrase."""
    result = _ask_an_embedded_model_that_replies(carol, "Marley.", "What is the name of Scrooge's dead partner?")
    extraction = result.extraction
    assert result.answer is None and extraction is not None and extraction.span is None
    assert extraction.unstated == ("dead", "partner") and extraction.quotes
    assert "does not mention “dead” or “partner”" in (extraction.reason or "")


def test_a_capable_models_prompt_is_led_only_by_sentences_that_mention_what_was_asked(carol) -> None:  # noqa: ANN001
    from core.llm import register_provider, unregister_provider
    from core.qa.prompts import LEAD_HEADER
    store, work_id = carol
    seen: list[str] = []
    register_provider("capfake", lambda model, **kw: FakeLLM(lambda m, o: seen.append(m[-1].content) or "Marley.",
                                                              model=model, context_window=8192))
    try:
        asker = qa_service.Asker(store, llm_override="capfake:x")
        asker.ask(work_id, "Who was as dead as a door-nail?", QAParams(mode="rag", upto=1))
        asker.ask(work_id, "What is the name of Scrooge's dead partner?", QAParams(mode="rag", upto=1))
    finally:
        unregister_provider("capfake")
    assert seen[0].startswith(LEAD_HEADER) and "dead as a door-nail" in seen[0].split("\n\n")[0]
    assert not seen[1].startswith(LEAD_HEADER)   # the closest sentence says nothing of a partner: no lead
