"""The KID generation loop (Algorithm 2), written out like nanoGPT's `generate`: one explicit step per token.

    params = KidParams(variant="logits", seed=7, max_tokens=64)
    for step in kid_decode(model, tokenizer, prompt_ids, params, trie, memory):
        print(step.piece, end="")

With steering off (`steps=0`, `strength=0`, or no trie) the loop is plain top-k / top-p sampling with a no-repeat
n-gram ban and reproduces a plain loop token for token for the same seed (temperature 0: greedy, as
`model.generate`).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import torch

from core.write.kid.memory import EntityMemory, entities_in
from core.write.kid.params import KidParams, Step
from core.write.kid.policy import KvSettings, LogitsPolicy, perturb_kv
from core.write.kid.trie import KnowledgeTrie, words


@dataclass
class Demonstrations:
    """Token targets for one step: token id -> the fact behind it. `continuing`: the targets finish a knowledge word
    whose first sub-tokens were just generated."""

    targets: dict[int, str] = field(default_factory=dict)
    continuing: bool = False


class WordTokens:
    """Sub-token sequences of knowledge words as the model writes them mid-sentence (" Elizabeth"), cached."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self._cache: dict[str, list[int]] = {}

    def __call__(self, word: str) -> list[int]:
        if word not in self._cache:
            self._cache[word] = list(self.tokenizer(" " + word, add_special_tokens=False)["input_ids"])
        return self._cache[word]


def demonstrations(trie: KnowledgeTrie, memory: EntityMemory, hops: int, generated: Sequence[int],
                   word_tokens: WordTokens) -> Demonstrations:
    """Query the trie with every entity in memory over `hops` hops. Knowledge words whose first sub-tokens end the
    generated text are continued (their next sub-tokens are the only targets: " Sc" -> "ro" -> "oge" for
    " Scrooge"); otherwise the first sub-token of every word."""
    demos = [d for entity in memory.items for d in trie.query(entity, hops)]
    started: dict[int, str] = {}
    for d in demos:  # a multi-token name once started is continued, in order
        seq = word_tokens(d.word)
        for j in range(len(seq) - 1, 0, -1):
            if len(generated) >= j and list(generated[-j:]) == seq[:j]:
                started.setdefault(seq[j], d.fact)
                break
    if started:
        return Demonstrations(started, continuing=True)
    out: dict[int, str] = {}
    for d in demos:
        out.setdefault(word_tokens(d.word)[0], d.fact)
    return Demonstrations(out)


def ban_repeated_ngrams(logits: torch.Tensor, ids: Sequence[int], n: int) -> torch.Tensor:
    """-inf for every token that would complete an n-gram already in `ids` (as transformers' no_repeat_ngram_size)."""
    if n < 1 or len(ids) + 1 < n:
        return logits
    prefix = tuple(ids[len(ids) - n + 1:]) if n > 1 else ()
    banned = {ids[i + n - 1] for i in range(len(ids) - n + 1) if tuple(ids[i:i + n - 1]) == prefix}
    if banned:
        logits = logits.clone()
        logits[list(banned)] = float("-inf")
    return logits


def top_k_top_p(logits: torch.Tensor, top_k: int, top_p: float) -> torch.Tensor:
    """Keep the top_k most likely tokens, then the smallest set whose mass reaches top_p; the rest get -inf."""
    logits = logits.clone()
    if 0 < top_k < logits.numel():
        kth = torch.topk(logits, top_k).values[-1]
        logits[logits < kth] = float("-inf")
    if top_p < 1:
        sorted_logits, order = torch.sort(logits, descending=True)
        cumulative = torch.softmax(sorted_logits, -1).cumsum(-1)
        drop = cumulative - torch.softmax(sorted_logits, -1) >= top_p   # mass before this token already reaches p
        logits[order[drop]] = float("-inf")
    return logits


def choose(logits: torch.Tensor, params: KidParams, generator: torch.Generator) -> int:
    """Greedy at temperature 0; otherwise sample from the temperature-scaled, top-k / top-p filtered distribution."""
    if params.temperature == 0:
        return int(torch.argmax(logits))
    filtered = top_k_top_p(logits / params.temperature, params.top_k, params.top_p)
    return int(torch.multinomial(torch.softmax(filtered, -1), 1, generator=generator))


def kid_decode(model: Any, tokenizer: Any, prompt_ids: Sequence[int], params: KidParams,
               trie: KnowledgeTrie | None = None, memory: EntityMemory | None = None,
               stop_ids: Sequence[int] = ()) -> Iterator[Step]:
    """Yield one Step per generated token (Algorithm 2). `memory` is updated in place as entities are generated."""
    from transformers import DynamicCache
    if not prompt_ids:
        raise ValueError("the prompt is empty: there is nothing to continue")
    generator = torch.Generator().manual_seed(params.seed if params.seed is not None else 0)
    steer = params.steering and trie is not None and len(trie) > 0
    memory = memory if memory is not None else EntityMemory(params.hops)
    policy = LogitsPolicy(steps=params.steps, lr=params.strength, sigma=params.sigma, kl_bound=params.kl_max)
    kv = KvSettings(steps=params.steps, step_size=0.01 * params.strength / 0.5)
    word_tokens = WordTokens(tokenizer)
    ids, generated = list(prompt_ids), list[int]()
    cache = DynamicCache()
    with torch.inference_mode(False), torch.no_grad():
        # the cache holds everything but the last token, so the kv variant can perturb the context's past
        if len(ids) > 1:
            model(input_ids=torch.tensor([ids[:-1]]), past_key_values=cache, use_cache=True)
        words_done = 0
        for _ in range(params.max_tokens):
            # 1. the past before the last token (kept for the kv variant; update() concatenates, so these survive)
            past = [(layer.keys, layer.values) for layer in cast(list[Any], cache.layers)] \
                if steer and params.variant == "kv" else []
            # 2. the LM's next-token logits, extending the cache by the last token
            out = model(input_ids=torch.tensor([[ids[-1]]]), past_key_values=cache, use_cache=True)
            logits = out.logits[0, -1].float()
            # 3. knowledge demonstrations from the memory's entities, h_max hops through the trie
            demos = demonstrations(trie, memory, params.hops, generated, word_tokens) if steer and trie is not None \
                else Demonstrations()
            # 4. the policy update toward the demonstrations (skipped when off: the LM's logits go through untouched)
            steered = logits
            if demos.targets:
                targets = list(demos.targets)
                if params.variant == "logits":
                    # a started name gets a wider trust region (x4): finishing it is what the first sub-token began
                    policy.kl_bound = params.kl_max * (4 if demos.continuing else 1)
                    steered = policy.update(logits, targets)
                else:
                    steered = perturb_kv(model, past, ids[-1], logits, targets, kv)
            # 5. ban tokens that would repeat an n-gram, then sample (or take the argmax)
            banned = ban_repeated_ngrams(steered, ids, params.no_repeat)
            token = choose(banned, params, generator)
            # 6. record how KID moved the chosen token's probability, and the fact behind it
            p_before = float(torch.softmax(logits, -1)[token])
            p_after = float(torch.softmax(steered, -1)[token])
            before_text = tokenizer.decode(generated, skip_special_tokens=True)
            ids.append(token)
            generated.append(token)
            text = tokenizer.decode(generated, skip_special_tokens=True)
            yield Step(token, text[len(before_text):], p_before, p_after, demos.targets.get(token))
            if token in stop_ids:
                break
            # 7. a finished word that is an entity (a trie key) enters the FIFO memory
            if steer and trie is not None:
                done = words(text) if not text[-1:].isalpha() else words(text)[:-1]
                memory.extend(entities_in(" ".join(done[words_done:]), trie))
                words_done = len(done)
