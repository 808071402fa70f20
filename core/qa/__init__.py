"""Question answering over a book in four modes within one token budget (Andrus et al.; NARCO study III).

    corpus = corpus_from_text(document)                  # or qa_service.load_corpus(store, work_id)
    plan = plan_prompt(question, corpus.upto(9), QAParams(mode="kg"), count=llm.count_tokens,
                       reserve=template_overhead(llm), verbalizer=LLMVerbalizer(llm))
    answer, raw = generate_answer(llm, plan.prompt)

Modes, params and prompts: params.py and prompts.py; budget fitting: budget.py; the pipeline: pipeline.py.

Papers: ../shared/seeds/andrus2022_dynamic_document_kg.txt (Algorithm 1: the prompt within a token budget) and
../shared/seeds/narco_retrospective_questions.txt (the narco mode).
"""
from core.qa.answer import clean_answer, generate_answer, score_options, template_overhead
from core.qa.corpus import Corpus, CorpusView, FactRecord, Passage, corpus_from_text
from core.qa.params import MODE_HELP, MODES, QAParams
from core.qa.pipeline import Citation, QAPlan, ScoredFact, ScoredPassage, plan_prompt
from core.qa.verbalize import LLMVerbalizer, template_verbalize

__all__ = ["QAParams", "MODES", "MODE_HELP", "Corpus", "CorpusView", "FactRecord", "Passage", "corpus_from_text",
           "plan_prompt", "QAPlan", "Citation", "ScoredFact", "ScoredPassage", "LLMVerbalizer", "template_verbalize",
           "clean_answer", "generate_answer", "score_options", "template_overhead"]
