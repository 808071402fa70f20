"""The objects pages keep in session state: views/_state.py's slots hold them (and re-export them). Frozen: a
page replaces one with `SLOT.set(...)`, never changes it in place."""
from __future__ import annotations

from dataclasses import dataclass

from core.services.qa_service import QAResult
from core.services.continuation_service import Continuation


@dataclass(frozen=True)
class Asked:
    """Ask's last answer and the work it was about."""

    work_id: int
    result: QAResult


@dataclass(frozen=True)
class GraphHighlight:
    """Ask's "Show in graph": the subgraph graph mode walked for a question, drawn as of the reader's chapter.
    `fresh` until the Graph page has moved its slider there once."""

    work_id: int
    question: str
    upto: int
    entity_ids: tuple[int, ...]
    fresh: bool = True


@dataclass(frozen=True)
class ShownContinuation:
    """The continuation the Write page shows: the service's result, or what came before a run was stopped. A
    background one (KID) has the id it waits under in the work and the chapter revision its text came from."""

    result: Continuation
    partial: bool = False
    saved_id: str | None = None
    revision: int | None = None


@dataclass(frozen=True)
class PendingImport:
    """A file already in the library, kept while the user chooses: open that work, import a copy, or cancel."""

    name: str
    data: bytes
    title: str | None
    existing_id: int


@dataclass(frozen=True)
class PendingDelete:
    work_id: int
    title: str
