"""A tiny "local model" for KID tests where the real model is not what is tested: a fixed vocabulary of word pieces
spelled as GPT-2 spells them (a leading space is "Ġ"), and next-token logits from a bigram table, so a test says
exactly what the model would write on its own ("Buck" is followed by "led": "Buckled") and checks what KID makes of it.

    lm = TinyLocalLLM({" saw": {" Buck": 3.0}, " Buck": {"led": 5.0, " ran": 3.0}})
    list(kid_decode(lm.model, lm.tokenizer, lm.encode("Thornton saw"), KidParams(temperature=0), trie, memory))

`delay` slows every forward pass, so a background job has a measurable rate and can be stopped midway.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import torch

from core.llm.base import Abilities
from core.llm.fake import FakeLLM

PIECES = ["<eos>", ".", ",", "\n", " the", " a", " dog", " man", " saw", " ran", " loved", " called", " Buck", "led",
          " Thorn", "ton", "y", " Thornton", " and", " to", " sled", " snow", " went", " home", " wolf", " Spitz",
          " said", " was", " in", " it", "The", "Thornton", "Buck"]
OTHER = -10.0   # the score of every token a row does not name


class TinyTokenizer:
    """Greedy longest-match tokenization over `pieces`; id 0 is the end-of-sequence token."""

    eos_token_id = 0

    def __init__(self, pieces: Sequence[str] = PIECES) -> None:
        self.pieces = list(pieces)
        self.name_or_path = "tiny"

    def get_vocab(self) -> dict[str, int]:
        """As a Hugging Face tokenizer's: KID reads its stop ids (the end token, chat-turn ends) from it."""
        return {p: i for i, p in enumerate(self.pieces)}

    def __len__(self) -> int:
        return len(self.pieces)

    def __call__(self, text: str, add_special_tokens: bool = True) -> dict[str, list[int]]:
        return {"input_ids": self.encode(text)}

    def encode(self, text: str) -> list[int]:
        ids, at = [], 0
        while at < len(text):
            best = max((i for i, p in enumerate(self.pieces) if i and text.startswith(p, at)),
                       key=lambda i: len(self.pieces[i]), default=None)
            if best is None:
                at += 1  # a character the vocabulary lacks: left out
                continue
            ids.append(best)
            at += len(self.pieces[best])
        return ids

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        return "".join(self.pieces[i] for i in ids if not (skip_special_tokens and i == 0))

    def convert_ids_to_tokens(self, ids: Sequence[int]) -> list[str]:
        return [self.pieces[i].replace(" ", "\u0120").replace("\n", "\u010a") for i in ids]


class TinyModel:
    """Logits of the token after the last input id: the bigram `table` row of that token (piece -> score), OTHER for
    the rest. Called as the KID loop calls a transformers model (past_key_values ignored: the table needs none)."""

    def __init__(self, tokenizer: TinyTokenizer, table: dict[str, dict[str, float]], delay: float = 0.0) -> None:
        self.tokenizer, self.delay = tokenizer, delay
        self.generation_config = SimpleNamespace(eos_token_id=0)
        size = len(tokenizer)
        index = {p: i for i, p in enumerate(tokenizer.pieces)}
        self.rows = torch.full((size, size), OTHER)
        for piece, scores in table.items():
            for nxt, score in scores.items():
                self.rows[index[piece], index[nxt]] = score
        self.calls = 0

    def __call__(self, input_ids: torch.Tensor, past_key_values: Any = None, use_cache: bool = True) -> Any:
        self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        last = self.rows[input_ids[0]]  # one row per input position
        return SimpleNamespace(logits=last.unsqueeze(0))


class TinyLocalLLM(FakeLLM):
    """A FakeLLM that declares logits access and exposes the tiny model and tokenizer, as LocalLLM does."""

    abilities = Abilities(logits=True, raw_text=True, exact_tokens=True)

    def __init__(self, table: dict[str, dict[str, float]], *, delay: float = 0.0, model: str = "tiny") -> None:
        super().__init__("unused", model=model)
        self._tokenizer = TinyTokenizer()
        self._model = TinyModel(self._tokenizer, table, delay)

    @property
    def model(self) -> TinyModel:
        return self._model

    @property
    def tokenizer(self) -> TinyTokenizer:
        return self._tokenizer

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        return self._tokenizer.encode(text)

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        return self._tokenizer.decode(ids, skip_special_tokens)


def walking_table() -> dict[str, dict[str, float]]:
    """A model that walks on forever, mostly in a cycle ("the dog went home and the man ran to the sled ..."), with
    "Buck" and "Thornton" close behind its favourites: a run of any length for jobs to report on and stop."""
    return {" the": {" dog": 3.0, " man": 2.9, " snow": 2.5, " sled": 2.4, " wolf": 2.3},
            " dog": {" went": 3.0, " ran": 2.8}, " man": {" ran": 3.0, " said": 2.5},
            " went": {" home": 3.0, " to": 2.8}, " home": {" and": 3.0, ".": 2.8}, " and": {" the": 3.0, " Buck": 2.8},
            " ran": {" to": 3.0, " home": 2.5}, " to": {" the": 3.0, " Thornton": 2.7}, " sled": {" and": 3.0},
            " snow": {" and": 3.0}, " wolf": {" ran": 3.0}, " said": {" the": 3.0}, ".": {" the": 3.0},
            " Buck": {" ran": 3.0, " went": 2.8}, " Thornton": {" said": 3.0, " went": 2.9}, "\n": {"The": 3.0},
            "The": {" dog": 3.0}, " saw": {" the": 3.0}, " was": {" in": 3.0}, " in": {" the": 3.0},
            " loved": {" the": 3.0}, " called": {" the": 3.0}, " a": {" dog": 3.0}, ",": {" the": 3.0},
            "Thornton": {" said": 3.0}, "Buck": {" ran": 3.0}, " it": {" was": 3.0}, " Spitz": {" ran": 3.0},
            "led": {" the": 3.0}, " Thorn": {"y": 3.0, "ton": 2.0}, "ton": {" said": 3.0}, "y": {" dog": 3.0}}
