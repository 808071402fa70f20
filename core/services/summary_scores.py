"""KGScore and ROUGE of a chapter's summaries, as the Summaries page shows them: the KGScore paper's columns (Table
1: ROUGE-1/2/L, P_KG, R_KG, F_KG, in percent), each summary shown against one reference.

    table = score_chapter(store, work_id, 3)          # against the user's reference summary, else the chapter
    table.against, table.rows[0]["f1"], table.rows[0].get("rouge1")
    save_reference(store, work_id, 3, "A human summary of chapter 3.")   # kept with its history

The reference is a summary the user gives for the chapter (a human one, say); it is stored like a summary, in its
own mode, so it is never lost and has a history. Without one, KGScore compares each summary's graph with the
chapter's own (entities from the chapter, edges read by the same offline extractor): precision is then the share of
what the summary says about the chapter's named characters that the chapter says too, recall the share of the
chapter's facts it keeps; ROUGE needs a reference summary and is left out. KGScore here is the calibrated rule of
core.metrics.kgscore (chance-rescaled, one-to-one), whose entity-shuffle check is in bench/README.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.nlp import clean_for_parsing
from core.services.summary_service import make_scorer
from core.store import NotFound, Store
from core.summarize import MODE_LABELS, MODES, NewSummary, StoredSummary, current

REFERENCE = "reference"
SCORE_COLUMNS: tuple[str, ...] = ("rouge1", "rouge2", "rougeL", "precision", "recall", "f1")
COLUMN_LABELS = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L", "precision": "P_KG",
                 "recall": "R_KG", "f1": "F_KG"}


class BadReference(ValueError):
    """A reference summary that cannot be kept (empty)."""


@dataclass
class ScoreTable:
    chapter: int
    against: str                              # "reference" or "chapter"
    rows: list[dict[str, Any]] = field(default_factory=list)
    reference: StoredSummary | None = None
    notes: list[str] = field(default_factory=list)


def reference_of(store: Store, work_id: int, chapter: int) -> StoredSummary | None:
    return current(store.summary_history(work_id, chapter, REFERENCE))


def save_reference(store: Store, work_id: int, chapter: int, text: str) -> StoredSummary:
    """Keep `text` as the chapter's reference summary (a new version; the earlier ones stay in the history)."""
    text = text.strip()
    if not text:
        raise BadReference("The reference summary is empty; paste a summary to compare with.")
    info = next((c for c in store.list_chapters(work_id) if c.index == chapter), None)
    if info is None:
        raise NotFound(f"Work {work_id} has no chapter {chapter}.")
    parent = reference_of(store, work_id, chapter)
    if parent is not None and parent.text == text:
        return parent
    return store.summary_add(work_id, chapter, NewSummary(REFERENCE, text, "user", info.revision, [],
                                                          user_edited=True, parent_id=parent.id if parent else None))


def score_key(store: Store, work_id: int, chapter: int) -> tuple[Any, ...]:
    """What a chapter's scores depend on (the shown versions, the reference, the chapter's revision): a cache key."""
    versions = store.summary_history(work_id, chapter)
    shown = {m: current([v for v in versions if v.mode == m]) for m in (*MODES, REFERENCE)}
    revision = next((c.revision for c in store.list_chapters(work_id) if c.index == chapter), 0)
    return (work_id, chapter, revision, tuple((m, s.id if s else None) for m, s in shown.items()))


def score_chapter(store: Store, work_id: int, chapter: int, scorer: Any = None) -> ScoreTable:
    """Each shown summary of `chapter` scored against its reference summary, else against the chapter's text."""
    versions = store.summary_history(work_id, chapter)
    shown = [(m, s) for m in MODES if (s := current([v for v in versions if v.mode == m])) is not None]
    reference = current([v for v in versions if v.mode == REFERENCE])
    table = ScoreTable(chapter, "reference" if reference else "chapter", reference=reference)
    if not shown:
        return table
    if scorer is None:
        scorer = make_scorer(offline=True, similarity=False)
    scorer.rouge = reference is not None
    target = reference.text if reference else clean_for_parsing(store.get_chapter(work_id, chapter).text)
    for mode, summary in shown:
        if not summary.text.strip():
            continue
        result = scorer.score(summary.text, target)
        row = {"mode": mode, "label": MODE_LABELS[mode], "author": summary.author,
               **{k: result[k] for k in SCORE_COLUMNS if k in result},
               "edges": result["generated_edges"], "reference_edges": result["reference_edges"]}
        if not row["edges"]:   # nothing to judge: KGScore's 0 here is no verdict on the summary
            row.update({k: None for k in ("precision", "recall", "f1") if k in row})
            table.notes.append(f"{MODE_LABELS[mode]}: states no fact between two named characters (what KGScore "
                               "compares), so KGScore cannot judge it" +
                               (" (ROUGE still can)." if reference is not None else "."))
        table.rows.append(row)
    if reference is None:
        table.notes.append("No reference summary for this chapter: KGScore compares each summary's facts with the "
                           "chapter's own, and ROUGE is left out. Add a reference (a human summary) to see both.")
    if any(r["mode"] == "extractive" and r["edges"] for r in table.rows) and reference is None:
        table.notes.append("An extractive summary's sentences are the chapter's, so its precision against the "
                           "chapter is high by construction; compare recall.")
    return table
