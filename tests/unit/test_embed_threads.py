"""A small embedding (a question) runs torch on one thread, a large one (a book's passages) on all of them, and the
count is restored afterwards (core.threads; one question took 0.5 s on two threads beside a busy core, 22 ms on one)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
import torch

import core.nlp


class ThreadRecordingModel:
    """Stands in for MiniLM: records torch's thread count at each encode."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    def get_sentence_embedding_dimension(self) -> int:
        return 4

    def encode(self, texts: Sequence[str], **_: Any) -> np.ndarray:
        self.threads.append(torch.get_num_threads())
        return np.ones((len(texts), 4), dtype=np.float32) / 2


def test_small_embeddings_run_on_one_thread_and_large_ones_on_all(monkeypatch: pytest.MonkeyPatch) -> None:
    model = ThreadRecordingModel()
    monkeypatch.setattr(core.nlp, "load_embedder", lambda: model)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        assert core.nlp.embed(["Who stole Buck?"]).shape == (1, 4)
        assert torch.get_num_threads() == 2
        core.nlp.embed(["A passage of the book. " * 50] * 10)      # ~11,500 characters: a batch of passages
        assert torch.get_num_threads() == 2
        assert model.threads == [1, 2]
    finally:
        torch.set_num_threads(before)
