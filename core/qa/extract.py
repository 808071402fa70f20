"""Answers in the book's own words: the sentence (and, where the question asks for one, the name, place or time)
of the cited passages that answers the question, chosen without a generative model.

    found = extract_answer(question, plan.citations, view=view, query_vec=q)
    found.answer      -> the book's words shown as the answer (a clause, a sentence, or a few sentences), or None
    found.span        -> the short answer inside it when the question asks who / where / when / how many
    found.quotes      -> the chosen sentences with their chapter and passage (what the answer quotes)
    found.reason      -> why there is no answer, said plainly ("The chapters you have read do not mention Thornton.")
    found.confident   -> the answer states what was asked (core.qa.confidence); else it is the closest sentence

How a sentence is chosen (weights in SENTENCE_WEIGHTS, picked on the dev half of GraphRAG-Bench by bench/answers.py):
  - words: the IDF-weighted share of the question's content words (stemmed) in the sentence, a third of its
    neighbours' share added (an answer often sits one sentence after the words the question repeats);
  - meaning: MiniLM cosine of the sentence with the question;
  - rank: the retrieval rank of the passage it comes from;
  - type: whether it holds a candidate of the answer type the question asks for (who -> a character, where -> a
    place, when -> a time, how many -> a number) that the question itself does not name. Types come from the
    book's graph where it knows the name (a character of the graph is a person even where spaCy calls it a place),
    else from spaCy's entity labels.
What is shown (ANSWER_FORM, per answer type, chosen on the dev half): the clause holding the answer for who / where /
when / what questions, the sentence for why / how, the 3 best sentences in reading order for a whole-story question
and 7 for a retelling ("Rewrite ... as a diary entry"). Tried on the dev half and left out: a penalty on long
sentences (every strength lowered token F1), the span alone (below the clause on every type: gold answers restate
the question). A question that names someone the cited passages never mention gets no answer; nor does one whose
best sentence shares too little with it (MIN_SCORE), nor one that asks for a name ("What is the name of ...")
where the best sentences name nothing the question does not (NO_NAME), nor one whose name of the asked type sits in a
sentence that mentions none of the question's topic words (UNSTATED, core.qa.relevance.speaks_to: "Brom" for "What
is the name of Ichabod's horse?" from a sentence about Brom's dog; the closest sentence is kept as a quote, and the
page shows it as what it is, not as the answer). No maintained extractive reader or reranker
ships its weights inside a PyPI package (FlashRank, sentence-transformers cross-encoders and the Haystack readers
download them from a model hub at run time, which Fabula never does), so this reader uses the models Fabula already
ships: MiniLM, spaCy.
"""
from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import log
from typing import Any

import numpy as np

from core.ingest.sentences import split_sentences
from core.qa.confidence import answers
from core.qa.corpus import CorpusView
from core.qa.graph_answer import FactAnswer, fact_answer
from core.qa.identity import describes_pattern, first_naming, other_names
from core.qa.names import POSSESSIVE, missing_names, name_words, question_names
from core.qa.question_types import IDENTITY, NAME_OF, question_type
from core.qa.relevance import speaks_to, topic_words
from core.qa.roles import role_weights
from core.qa.words import FRAME_WORDS, irregular_bases, without_phrasal_frames

Embed = Callable[[Sequence[str]], np.ndarray]

# (words, meaning, rank, type) weights of a sentence's score, and the least score that still answers.
SENTENCE_WEIGHTS: tuple[float, float, float, float] = (0.5, 0.35, 0.05, 0.1)
MIN_SCORE = 0.2
NEIGHBOUR_SHARE = 0.33     # of the neighbouring sentences' word score added to a sentence's
SUMMARY_SENTENCES = 3      # sentences a whole-story question gets, shown in reading order
CREATIVE_SENTENCES = 7     # sentences a retelling ("Rewrite ... as a diary entry") gets: the events, in order
TOP_SENTENCES = 4          # sentences searched for a typed span
MAX_CANDIDATES = 40        # sentences scored by meaning at most (the best by words): bounds the embedding call
# the form shown as the answer per answer type: "span", "clause" or "sentence" (chosen on the dev half)
ANSWER_FORM: dict[str, str] = {"person": "clause", "place": "clause", "time": "clause", "number": "clause",
                               "name": "clause", "thing": "clause", "reason": "sentence", "manner": "sentence",
                               "yesno": "sentence", "identity": "sentence", "summary": "sentences",
                               "creative": "sentences"}

NO_PASSAGES = "No passages were cited, so there is nothing to answer from."
NOT_FOUND = "No sentence of the cited passages answers this question."
NO_NAME = "The question asks for a name, and the cited passages name nothing the question does not already name."
UNSTATED = ("The sentence of the passages closest to your question does not mention {}, so the name it holds is no "
            "answer to it.")
UNSTATED_NO_NAME = ("The sentence of the passages closest to your question names no {} and does not mention {}, so it "
                    "is no answer to it.")
FIRST_NAMED = "No cited sentence says who {0} is in so many words; shown: the earliest of them that names {0}."
_NAMED = {"person": "one", "place": "place", "time": "time", "number": "number", "name": "name"}
# The topic rule also for a who / where / when / how-many question whose best sentence names nothing of the asked
# type ("Where does Ichabod teach?" -> "Ichabod endeavored to dodge the horrible missile"); off only to measure it.
TOPIC_RULE_WITHOUT_NAME = True

# spaCy labels per answer type (the graph's types take precedence where the graph names the span)
_LABELS: dict[str, frozenset[str]] = {
    "person": frozenset({"PERSON", "NORP", "ORG"}), "place": frozenset({"GPE", "LOC", "FAC"}),
    "time": frozenset({"DATE", "TIME"}), "number": frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT"}),
    "name": frozenset({"PERSON", "NORP", "ORG", "GPE", "LOC", "FAC", "PRODUCT", "WORK_OF_ART", "EVENT", "LAW"})}
# "How long ...?", "How old ...?" are answered by a duration or an age, which spaCy labels a date or a time ("three
# years", "sixteen years old", "an hour"), not a number
_HOW_LONG = re.compile(r"\bhow\s+(?:long|old)\b", re.IGNORECASE)
_DURATION_LABELS = frozenset({"DATE", "TIME"})
_GRAPH_TYPES: dict[str, frozenset[str]] = {"person": frozenset({"character", "organization"}),
                                           "place": frozenset({"location"}),
                                           "name": frozenset({"character", "organization", "location", "object"})}
_SPAN_PIPES = ("lemmatizer", "tagger", "attribute_ruler")  # spaCy components a span search never reads
_CLAUSE = re.compile(r"\s*(?:;|:|\s[-\u2014]{1,2}\s|\u2014|--)\s*")


@dataclass(frozen=True)
class Quote:
    """A sentence the answer comes from: its cited text (index into the citations) and where that lies."""

    text: str
    chapter: int
    chunk: int
    citation: int
    score: float

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "chapter": self.chapter, "chunk": self.chunk, "citation": self.citation,
                "score": round(self.score, 4)}


@dataclass(frozen=True)
class Extraction:
    question_type: str
    answer: str | None = None
    span: str | None = None
    quotes: tuple[Quote, ...] = ()
    score: float = 0.0
    reason: str | None = None
    missing: tuple[str, ...] = ()   # names the question asks about that the cited passages do not contain
    unstated: tuple[str, ...] = ()  # the question's topic words the closest sentence leaves out (no answer then)
    note: str | None = None         # how the answer was read, when not from the quote's words alone
    about: str | None = None        # "Who is X?": X, whose card the graph can add (core.services.qa_service)
    confident: bool = False         # the answer states what was asked (core.qa.confidence), not only the closest

    @property
    def chapters(self) -> list[int]:
        return sorted({q.chapter for q in self.quotes})

    def as_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "span": self.span, "question_type": self.question_type,
                "quotes": [q.as_dict() for q in self.quotes], "chapters": self.chapters,
                "score": round(self.score, 4), "reason": self.reason, "missing": list(self.missing),
                "unstated": list(self.unstated), "note": self.note, "about": self.about,
                "confident": self.confident}


@dataclass
class _Sentence:
    text: str
    citation: int
    position: int
    words: float = 0.0
    meaning: float = 0.0
    rank: float = 0.0
    typed: float = 0.0
    score: float = 0.0
    spans: list[tuple[str, float]] = field(default_factory=list)


def extract_answer(question: str, citations: Sequence[Any], *, view: CorpusView | None = None,
                   query_vec: np.ndarray | None = None, embed: Embed | None = None,
                   weights: tuple[float, float, float, float] = SENTENCE_WEIGHTS,
                   min_score: float = MIN_SCORE, forms: dict[str, str] | None = None) -> Extraction:
    """The book's words that answer `question` among the `citations` (objects with .text, .chapter, .chunk and an
    optional .score, in citation order). `view` supplies IDF and the graph's entity types; `embed` defaults to
    MiniLM (query_vec saves embedding the question again)."""
    kind = question_type(question)
    texts = [getattr(c, "text", "") or "" for c in citations]
    if not any(t.strip() for t in texts):
        return Extraction(kind, reason=NO_PASSAGES)
    absent = _absent(question, texts, _entities(view))
    if absent:
        return Extraction(kind, reason=f"The chapters you have read do not mention {_listing(absent)}.",
                          missing=tuple(absent))
    sentences = _sentences(texts, citations)
    terms = _terms(question)
    if not sentences or not terms:
        return Extraction(kind, reason=NOT_FOUND)
    graph = fact_answer(question, kind, citations, view)
    if graph is not None:   # the graph's fact of the cited passages: who did what the question asks, to whom
        return _from_fact(kind, graph, citations, terms)
    idf = _idf(view, [s.text for s in sentences])
    _score_words(sentences, terms, idf)
    pool = sorted(sentences, key=lambda s: -s.words)[:MAX_CANDIDATES]
    vectors = (embed or embed_sentences)([s.text for s in pool] + ([] if query_vec is not None else [question]))
    q = query_vec if query_vec is not None else vectors[-1]
    for s, v in zip(pool, vectors[:len(pool)]):
        s.meaning = float(np.dot(v, q))
    w_words, w_meaning, w_rank, w_type = weights
    for s in pool:
        s.score = w_words * s.words + w_meaning * s.meaning + w_rank * s.rank
    pool.sort(key=lambda s: -s.score)
    identity = IDENTITY.match(question) if kind == "identity" else None
    if identity is not None:  # a sentence that says who they are: "Spitz, the leader of the team", "Spitz was a ..."
        describes = describes_pattern(other_names(identity.group("name"), _entities(view)))
        for s in pool:
            s.typed = 1.0 if describes.search(s.text) else 0.0
            s.score += w_type * s.typed
        pool.sort(key=lambda s: -s.score)
        if not pool[0].typed and (first := first_naming(pool, identity.group("name"), citations)) is not None:
            # no sentence says who they are: the one that first names them, said as such ("Ann Clotilde was
            # ambling toward him" answered "Who is Ann Clotilde?")
            return Extraction(kind, first.text, None, (_quote(first, citations),), first.score,
                              note=FIRST_NAMED.format(identity.group("name")), about=identity.group("name"))
    if kind in _LABELS:
        _find_spans(pool[:TOP_SENTENCES], kind, question, view)
        for s in pool[:TOP_SENTENCES]:
            s.typed = 1.0 if s.spans else 0.0
            s.score += w_type * s.typed
        pool.sort(key=lambda s: -s.score)
    best = pool[0]
    if best.score < min_score:
        return Extraction(kind, score=best.score, reason=NOT_FOUND)
    form = (forms or ANSWER_FORM).get(kind, "sentence")
    if form == "sentences":
        count = CREATIVE_SENTENCES if kind == "creative" else SUMMARY_SENTENCES
        chosen = sorted(pool[:count], key=lambda s: (s.citation, s.position))
        quotes = tuple(_quote(s, citations) for s in chosen)
        return Extraction(kind, " ".join(s.text for s in chosen), None, quotes, best.score)
    span = _best_span(pool[:TOP_SENTENCES]) if kind in _LABELS else None
    if span is None and NAME_OF.search(question):
        # a question for a name is not answered by a sentence that names nothing it does not already name
        return Extraction(kind, score=best.score, reason=NO_NAME)
    holder = next((s for s in pool[:TOP_SENTENCES] if span and any(t == span for t, _ in s.spans)), best)
    if span or (kind in _LABELS and TOPIC_RULE_WITHOUT_NAME):
        speaks, topic = speaks_to(question, [holder.text], question_names(question, _entities(view)),
                                  irregular_bases())
        if not speaks:   # a name of the asked type in a sentence about something else, or a sentence that names
            # nothing of that type nor mentions what was asked: no answer, said plainly
            reason = (UNSTATED if span else UNSTATED_NO_NAME.format(_NAMED[kind], "{}"))
            return Extraction(kind, None, None, (_quote(holder, citations),), holder.score,
                              reason=reason.format(_listing([f"“{w}”" for w in topic])), unstated=topic)
    confident = answers(question, kind, holder.text, span=span, described=bool(holder.typed and identity),
                        names=question_names(question, _entities(view)), bases=irregular_bases())
    text = holder.text
    if form == "span" and span:
        text = span
    elif form == "clause":
        text = _clause(holder.text, span, terms)
    return Extraction(kind, text, span, (_quote(holder, citations),), holder.score,
                      about=identity.group("name") if identity is not None else None, confident=confident)


# ---- pieces ----------------------------------------------------------------------------------------------------

def _entities(view: CorpusView | None) -> Any:
    return view.corpus.entities if view is not None else None


def _absent(question: str, texts: Sequence[str], index: Any) -> list[str]:
    """The names the question asks about that the texts never mention, under any of the graph's names for them
    ("San Francisco" is mentioned where the passages say "Frisco")."""
    absent = missing_names(question_names(question, index), texts)
    if not absent or index is None:
        return absent
    present = {pos for t in texts for pos in index.find_in_question(t)}
    return [n for n in absent if not set(index.find_in_question(n)) & present]


def _listing(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _sentences(texts: Sequence[str], citations: Sequence[Any]) -> list[_Sentence]:
    """Every sentence of the cited texts; a passage's retrieval rank (its score's order) as a prior in [0, 1]."""
    scores: list[float | None] = [getattr(c, "score", None) for c in citations]
    order = sorted(range(len(texts)), key=lambda i: -float(scores[i] or 0.0))
    rank = {i: r for r, i in enumerate(order)}
    out = []
    for i, text in enumerate(texts):
        prior = 1.0 / (1 + rank[i]) if any(s is not None for s in scores) else 0.0
        for j, sentence in enumerate(split_sentences(text)):
            if len(sentence.split()) >= 3:
                out.append(_Sentence(sentence, i, j, rank=prior))
    return out


def _terms(question: str) -> list[str]:
    from core.retrieval.hybrid import tokenize
    frame = set(tokenize([" ".join(sorted(FRAME_WORDS))])[0])
    words = tokenize([without_phrasal_frames(question)])[0] or tokenize([question])[0]
    return list(dict.fromkeys(w for w in words if w not in frame)) or list(dict.fromkeys(words))


def _idf(view: CorpusView | None, sentences: Sequence[str]) -> Callable[[str], float]:
    """IDF of a stem over the visible passages (kept per view), or over the candidate sentences without a view."""
    from core.retrieval.hybrid import tokenize
    if view is not None and view.n_passages:
        corpus, n = view.corpus, view.n_passages

        def count() -> dict[str, int]:
            df: dict[str, int] = {}
            for tokens in corpus.passage_tokens[:n]:
                for t in set(tokens):
                    df[t] = df.get(t, 0) + 1
            return df
        df = corpus.cached(("df", n), count)
    else:
        n = len(sentences)
        df = {}
        for tokens in tokenize(list(sentences)):
            for t in set(tokens):
                df[t] = df.get(t, 0) + 1
    return lambda t: log(1 + (n + 1) / (df.get(t, 0) + 0.5))


def _score_words(sentences: list[_Sentence], terms: list[str], idf: Callable[[str], float]) -> None:
    from core.retrieval.hybrid import tokenize
    weights = {t: idf(t) for t in terms}
    total = sum(weights.values()) or 1.0
    own = [sum(weights[t] for t in set(tok) & weights.keys()) / total
           for tok in tokenize([s.text for s in sentences])]
    for k, s in enumerate(sentences):
        near = [own[j] for j in (k - 1, k + 1)
                if 0 <= j < len(sentences) and sentences[j].citation == s.citation]
        s.words = min(1.0, own[k] + NEIGHBOUR_SHARE * max(near, default=0.0) * (1 - own[k]))


def _find_spans(sentences: Sequence[_Sentence], kind: str, question: str, view: CorpusView | None) -> None:
    """Candidates of the asked type in each sentence, not named by the question: the graph's typed names first,
    then spaCy's entities (whose labels the graph overrides where it knows the name)."""
    from core.nlp import load_spacy
    asked = name_words(question)
    index = _entities(view)
    asked_entities = set(index.find_in_question(question)) if index is not None else set()
    names = question_names(question, index)
    topic = [stem for stem, _ in topic_words(question, names)]
    nlp = load_spacy()
    labels = _LABELS[kind] | (_DURATION_LABELS if kind == "number" and _HOW_LONG.search(question) else frozenset())
    for s, doc in zip(sentences, nlp.pipe([s.text for s in sentences], disable=_SPAN_PIPES)):
        known: dict[str, str] = {}
        same: set[str] = set()  # names in the sentence of someone the question names ("Thornton" for John Thornton)
        if index is not None:
            for pos, name in index.find_in_question(s.text).items():
                known[name.lower()] = index.entities[pos].type
                if pos in asked_entities:
                    same.add(name.lower())
        found: dict[str, float] = {}
        for name, etype in known.items():
            if etype in _GRAPH_TYPES.get(kind, ()):
                found[_surface(s.text, name)] = 1.0
        for ent in doc.ents:
            text = ent.text.strip(" ,.;:'\"")
            graph_type = known.get(text.lower())
            if ent.label_ in labels and (graph_type is None or graph_type in _GRAPH_TYPES.get(kind, ())
                                                 or kind in ("time", "number")):
                found.setdefault(text, 0.8 if ent.label_ in ("PERSON", "GPE", "LOC", "DATE", "CARDINAL") else 0.5)
        others = name_words(" ".join(same))
        spans: dict[str, float] = {}
        for t, w in found.items():
            t = POSSESSIVE.sub("", t)  # "Manuel's" -> "Manuel": the name, as the answer to "who"
            words = name_words(t)
            if words and not words <= asked and words - others:
                spans.setdefault(t, w)
        s.spans = list(role_weights(doc, spans, topic, names, irregular_bases()).items())


def _surface(text: str, name: str) -> str:
    """The span as the sentence writes it (its own capitals)."""
    m = re.search(re.escape(name), text, re.IGNORECASE)
    return m.group(0) if m else name


def _best_span(sentences: Sequence[_Sentence]) -> str | None:
    """The candidate with the most weight over the top sentences (each weighted by its sentence's score)."""
    votes: dict[str, float] = {}
    for s in sentences:
        for text, w in s.spans:
            votes[text] = votes.get(text, 0.0) + w * max(s.score, 0.0)
    return max(votes, key=lambda t: votes[t]) if votes else None


def _clause(sentence: str, span: str | None, terms: list[str]) -> str:
    """The clause of `sentence` holding the span (else the one sharing most question words), cut from the sentence
    as written; a clause too short to read alone keeps its neighbour."""
    from core.retrieval.hybrid import tokenize
    cuts = [0, *[m.end() for m in _CLAUSE.finditer(sentence)], len(sentence)]
    parts = [(a, b) for a, b in zip(cuts, cuts[1:]) if sentence[a:b].strip()]
    if len(parts) < 2:
        return sentence
    i = next((k for k, (a, b) in enumerate(parts) if span and span in sentence[a:b]), -1)
    if i < 0:
        shares = [len(set(t) & set(terms)) for t in tokenize([sentence[a:b] for a, b in parts])]
        i = int(np.argmax(shares))
    a, b = parts[i]
    if len(sentence[a:b].split()) < 5:
        j = i + 1 if i + 1 < len(parts) else i - 1
        a, b = min(a, parts[j][0]), max(b, parts[j][1])
    return sentence[a:b].strip().rstrip(";:,\u2014-").strip()


def _from_fact(kind: str, found: FactAnswer, citations: Sequence[Any], terms: list[str]) -> Extraction:
    """The graph's answer (core.qa.graph_answer) with its fact's sentence as the quote."""
    sentence, c = " ".join(found.fact.sentence.split()), citations[found.citation]
    named = _names_in(found.name, sentence)
    text = _clause(sentence, found.name if named else None, terms)
    written = found.written if _names_in(found.written, sentence) else None
    note = None if named else (f"“{written}” in this sentence is {found.name}, as the book's graph reads it."
                               if written else f"The sentence does not name {found.name}; the book's graph reads "
                               "whom it means (its “he”, “she” or “they”, from the chapter around it).")
    quote = Quote(sentence, int(getattr(c, "chapter", 0)), int(getattr(c, "chunk", 0)), found.citation, 1.0)
    return Extraction(kind, text, found.name, (quote,), 1.0, note=note, confident=True)


def _names_in(name: str, sentence: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", sentence, re.I) is not None


def _quote(s: _Sentence, citations: Sequence[Any]) -> Quote:
    c = citations[s.citation]
    return Quote(s.text, int(getattr(c, "chapter", 0)), int(getattr(c, "chunk", 0)), s.citation, s.score)


_VECTORS: OrderedDict[str, np.ndarray] = OrderedDict()
_VECTOR_LOCK = threading.Lock()  # Streamlit runs each session's script in its own thread
_VECTOR_CACHE = 20_000  # sentence vectors kept (384 floats each: ~30 MB at most): passages recur across questions


def embed_sentences(texts: Sequence[str]) -> np.ndarray:
    """MiniLM vectors of `texts`, each sentence embedded once per process (the support check of the same answer
    reads the same cited sentences, and passages recur across questions)."""
    from core.nlp import embed
    with _VECTOR_LOCK:
        known = {t: _VECTORS[t] for t in texts if t in _VECTORS}
    missing = list(dict.fromkeys(t for t in texts if t not in known))
    if missing:
        fresh = dict(zip(missing, embed(missing)))
        known.update(fresh)
        with _VECTOR_LOCK:
            _VECTORS.update(fresh)
            while len(_VECTORS) > _VECTOR_CACHE:
                _VECTORS.popitem(last=False)
    return np.stack([known[t] for t in texts]) if texts else np.zeros((0, 384), dtype=np.float32)
