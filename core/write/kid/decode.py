"""The KID generation loop (Algorithm 2), written out like nanoGPT's `generate`: one explicit step per token.

    params = KidParams(variant="logits", seed=7, max_tokens=64)
    for step in kid_decode(model, tokenizer, prompt_ids, params, trie, memory):
        print(step.piece, end="")

KID steers whole words only (issue 37): the demonstrations are the first sub-tokens of the trie's fact words (each
with a leading space, so a word start); once KID has raised one and the model chose it, the word is written whole
(its remaining sub-tokens are the only choices) and no letters may be glued onto its end, so "buck" is never raised
inside "buckled" and the overlay marks whole fact words. The paper steers toward every sub-token of every
demonstration at every step (A.2: "after split into single tokens"), which is what wrote such pieces.

With steering off (`steps=0`, `strength=0`, or no trie) the loop is plain top-k / top-p sampling with a no-repeat
n-gram ban and reproduces a plain loop token for token for the same seed (temperature 0: greedy, as
`model.generate`).

Where the next-token logits come from is a `Stepper` (issue 35): `TorchStepper` reads the transformers model with a
DynamicCache; `FastStepper` reads the fast runtime (OpenVINO or llama.cpp: `LocalLLM.fast_next_logits`), one token
per step, 3-6x faster per token. The "logits" variant runs on either; the "kv" variant perturbs the key/value cache
with gradients, which only the transformers model gives, so it needs a `TorchStepper`.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

import torch

from core.threads import torch_threads
from core.write.kid.memory import EntityMemory, entities_in
from core.write.kid.params import KidParams, Step
from core.write.kid.policy import KvSettings, LogitsPolicy, perturb_kv
from core.write.kid.trie import KnowledgeTrie, words


class Stepper(Protocol):
    """The next-token logits of a growing sequence: `start(prompt_ids)` once, then `step(ids)` each token, where `ids`
    is the prompt plus the tokens chosen so far (one more than at the last call)."""

    def start(self, prompt_ids: Sequence[int]) -> None: ...
    def step(self, ids: Sequence[int]) -> torch.Tensor: ...


class TorchStepper:
    """The transformers model with a DynamicCache holding everything but the last token (so the kv variant can
    perturb the context's past: `past()`)."""

    def __init__(self, model: Any) -> None:
        from transformers import DynamicCache
        self.model = model
        self.cache = DynamicCache()

    def start(self, prompt_ids: Sequence[int]) -> None:
        if len(prompt_ids) > 1:
            self.model(input_ids=torch.tensor([list(prompt_ids[:-1])]), past_key_values=self.cache, use_cache=True)

    def past(self) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """The cache before the last token (update() concatenates, so these tensors survive the next step)."""
        return [(layer.keys, layer.values) for layer in cast(list[Any], self.cache.layers)]

    def step(self, ids: Sequence[int]) -> torch.Tensor:
        out = self.model(input_ids=torch.tensor([[ids[-1]]]), past_key_values=self.cache, use_cache=True)
        return cast(torch.Tensor, out.logits[0, -1].float())


@dataclass
class FastStepper:
    """The fast runtime's logits (`next_logits(ids)`: a float32 numpy vector, e.g. `LocalLLM.fast_next_logits`,
    which reads only the new token when `ids` grew by one), as a torch tensor sharing the numpy buffer."""

    next_logits: Callable[[Sequence[int]], Any]
    first: Any = None   # the prompt's logits where already read (KidMode reads them to learn whether a runtime serves)

    def start(self, prompt_ids: Sequence[int]) -> None:
        """Nothing to read ahead: the first `step` reads the prompt (keeping the runtime's cached prefix)."""

    def step(self, ids: Sequence[int]) -> torch.Tensor:
        import numpy as np
        logits, self.first = (self.first, None) if self.first is not None else (self.next_logits(ids), None)
        if logits is None:
            raise ValueError("the fast runtime gave no logits for this step")
        return torch.from_numpy(np.ascontiguousarray(logits, dtype=np.float32))


@dataclass(frozen=True)
class Target:
    """A token KID steers toward: the first sub-token of a knowledge word (or the next one of a word it began)."""

    word: str
    fact: str


class WordTokens:
    """Sub-token sequences of knowledge words as the model writes them mid-sentence (" Elizabeth"), cached; and which
    tokens would glue letters onto the word before them (no leading space: "led" after " buck")."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self._cache: dict[str, list[int]] = {}

    def __call__(self, word: str) -> list[int]:
        if word not in self._cache:
            self._cache[word] = list(self.tokenizer(" " + word, add_special_tokens=False)["input_ids"])
        return self._cache[word]

    def glue(self, size: int) -> torch.Tensor:
        """A mask over `size` logits: True where the token continues a word (see `glues`)."""
        return glue_mask(self.tokenizer, size)


def glues(piece: str) -> bool:
    """Whether a vocabulary entry, as the tokenizer spells it, starts inside a word: its first character is a letter
    or digit, and not a byte-level BPE marker (GPT-2's map puts space, newline and other control bytes at U+0100 to
    U+0143: "Ġbuck" is " buck"); SentencePiece marks a space with "▁", which is no letter."""
    return bool(piece) and piece[0].isalnum() and not 0x100 <= ord(piece[0]) <= 0x143


_GLUE: dict[tuple[int, int], tuple[Any, torch.Tensor]] = {}   # (id(tokenizer), size) -> (tokenizer, mask)


def glue_mask(tokenizer: Any, size: int) -> torch.Tensor:
    """`glues` for every token id below `size` (ids past the tokenizer's vocabulary: False), worked out once per
    tokenizer (0.1-0.7 s for 49k-262k entries); the tokenizer is kept with its mask, so its id is not reused."""
    key = (id(tokenizer), size)
    if key not in _GLUE:
        pieces = tokenizer.convert_ids_to_tokens(list(range(min(size, len(tokenizer)))))
        mask = torch.zeros(size, dtype=torch.bool)
        mask[:len(pieces)] = torch.tensor([glues(p or "") for p in pieces], dtype=torch.bool)
        _GLUE[key] = (tokenizer, mask)
    return _GLUE[key][1]


def demonstrations(trie: KnowledgeTrie, memory: EntityMemory, hops: int,
                   word_tokens: WordTokens) -> dict[int, Target]:
    """Query the trie with every entity in memory over `hops` hops (nearest first): the first sub-token of each
    knowledge word, with the word and its fact (a token shared by two words steers toward the nearer one)."""
    out: dict[int, Target] = {}
    for entity in memory.items:
        for d in trie.query(entity, hops):
            if sub_tokens := word_tokens(d.word):  # (a tokenizer that cannot spell the word gives none)
                out.setdefault(sub_tokens[0], Target(d.word, d.fact))
    return out


@dataclass
class BegunWord:
    """A knowledge word KID began (its first sub-token was raised and chosen): it is written whole, so the rest of its
    sub-tokens follow and nothing is glued onto its end ("buck" never becomes "buckled")."""

    tokens: list[int]
    fact: str
    done: int = 1

    @property
    def next(self) -> int | None:
        return self.tokens[self.done] if self.done < len(self.tokens) else None


def only(logits: torch.Tensor, token: int) -> torch.Tensor:
    """-inf everywhere but `token`."""
    out = torch.full_like(logits, float("-inf"))
    out[token] = logits[token]
    return out


def probability(logits: torch.Tensor, token: int) -> float:
    """softmax(logits)[token], without building the distribution (one pass over a 49k-262k vocabulary)."""
    return float(torch.exp(logits[token] - torch.logsumexp(logits, -1)))


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


def candidates(logits: torch.Tensor, top_k: int, top_p: float) -> tuple[torch.Tensor, torch.Tensor]:
    """What top-k / top-p sampling draws from: the top_k most likely tokens (all where top_k is 0 or the vocabulary
    is smaller), then the smallest set of them whose mass reaches top_p, most likely first; as (token ids, their
    probabilities renormalized over the set). Only the survivors are sorted and softmaxed (top_k of a 262k
    vocabulary: 20), so a draw costs a top-k and not a pass of softmax and multinomial over the whole vocabulary."""
    if 0 < top_k < logits.numel():
        values, index = torch.topk(logits, top_k)
    else:
        values, index = torch.sort(logits, descending=True)
    probs = torch.softmax(values, -1)
    if top_p < 1:
        keep = probs.cumsum(-1) - probs < top_p   # mass before this token still short of p (the first always kept)
        values, index = values[keep], index[keep]
        probs = torch.softmax(values, -1)
    return index, probs


def top_k_top_p(logits: torch.Tensor, top_k: int, top_p: float) -> torch.Tensor:
    """`logits` with -inf for every token that `candidates` leaves out."""
    index, _ = candidates(logits, top_k, top_p)
    out = torch.full_like(logits, float("-inf"))
    out[index] = logits[index]
    return out


def choose(logits: torch.Tensor, params: KidParams, generator: torch.Generator) -> int:
    """Greedy at temperature 0; otherwise one draw from the temperature-scaled, top-k / top-p filtered distribution
    (`candidates`)."""
    if params.temperature == 0:
        return int(torch.argmax(logits))
    index, probs = candidates(logits / params.temperature, params.top_k, params.top_p)
    return int(index[torch.multinomial(probs, 1, generator=generator)])


def kid_decode(model: Any, tokenizer: Any, prompt_ids: Sequence[int], params: KidParams,
               trie: KnowledgeTrie | None = None, memory: EntityMemory | None = None,
               stop_ids: Sequence[int] = (), should_stop: Callable[[], bool] | None = None) -> Iterator[Step]:
    """Yield one Step per generated token (Algorithm 2). `memory` is updated in place as entities are generated.
    `should_stop()` is asked before each token outside a knowledge word: a stopped run ends on a whole word.
    `model`: a transformers model (read through a TorchStepper) or a Stepper, e.g. a FastStepper on the fast runtime;
    the "kv" variant needs the transformers model (gradients through its key/value cache)."""
    if not prompt_ids:
        raise ValueError("the prompt is empty: there is nothing to continue")
    generator = torch.Generator().manual_seed(params.seed if params.seed is not None else 0)
    steer = params.steering and trie is not None and len(trie) > 0
    memory = memory if memory is not None else EntityMemory(params.hops)
    policy = LogitsPolicy(steps=params.steps, lr=params.strength, sigma=params.sigma, kl_bound=params.kl_max)
    kv = KvSettings(steps=params.steps, step_size=0.01 * params.strength / 0.5)
    word_tokens = WordTokens(tokenizer)
    ids, generated = list(prompt_ids), list[int]()
    stepper: Stepper = model if isinstance(model, (TorchStepper, FastStepper)) else TorchStepper(model)
    if steer and params.variant == "kv" and not isinstance(stepper, TorchStepper):
        raise ValueError('the "kv" variant needs the transformers model (gradients through its key/value cache)')
    demos: dict[tuple[str, ...], dict[int, Target]] = {}  # by memory state: it changes only when an entity is written
    text = ""                         # the text generated so far
    begun: BegunWord | None = None    # a knowledge word KID began and is finishing
    ended = False                     # a knowledge word ended with the last token: no letters may be glued on
    with torch.inference_mode(False), torch.no_grad(), torch_threads(1 if isinstance(stepper, FastStepper) else None):
        stepper.start(ids)
        words_done = 0
        for _ in range(params.max_tokens):
            if begun is None and should_stop is not None and should_stop():
                break
            # 1. the past before the last token (kept for the kv variant)
            past = stepper.past() if steer and params.variant == "kv" and begun is None \
                and isinstance(stepper, TorchStepper) else []
            # 2. the LM's next-token logits (the stepper reads the last token)
            logits = stepper.step(ids)
            steered = logits
            forced = begun.next if begun is not None else None
            if begun is not None and forced is not None:
                # 3-5'. a word KID began is finished whole: its next sub-token is the only choice (even where it
                # repeats an n-gram: a name is said more than once)
                targets = {forced: Target("", begun.fact)}
                allowed = only(logits, forced)
            else:
                # 3. knowledge demonstrations from the memory's entities, h_max hops through the trie
                targets = {}
                if steer and trie is not None:
                    state = tuple(memory.items)
                    if state not in demos:
                        demos[state] = demonstrations(trie, memory, params.hops, word_tokens)
                    targets = demos[state]
                # 4. the policy update toward the demonstrations (skipped when off: the LM's logits go through)
                if targets:
                    if params.variant == "logits":
                        steered = policy.update(logits, list(targets))
                    else:
                        steered = perturb_kv(cast(TorchStepper, stepper).model, past, ids[-1], logits, list(targets),
                                             kv)
                # 5. ban tokens that would repeat an n-gram, and letters glued onto a knowledge word just written
                allowed = ban_repeated_ngrams(steered, ids, params.no_repeat)
                if ended:
                    allowed = allowed.masked_fill(word_tokens.glue(allowed.numel()), float("-inf"))
            # 6. sample (or take the argmax)
            token = choose(allowed, params, generator)
            # 7. record how KID moved the chosen token's probability, and the fact behind it
            p_before = probability(logits, token)
            p_after = p_before if steered is logits and forced is None else \
                probability(allowed if forced is not None else steered, token)
            target = targets.get(token)
            before_text = text
            ids.append(token)
            generated.append(token)
            text = tokenizer.decode(generated, skip_special_tokens=True)
            yield Step(token, text[len(before_text):], p_before, p_after, target.fact if target else None)
            if token in stop_ids:
                break
            # 8. whole words: a knowledge word KID raised and the model chose is finished before anything else
            ended = False
            if begun is not None:
                begun.done += 1
                if begun.next is None:
                    begun, ended = None, True
            elif target is not None and p_after > p_before:
                sub_tokens = word_tokens(target.word)
                begun, ended = (BegunWord(sub_tokens, target.fact), False) if len(sub_tokens) > 1 else (None, True)
            # 9. a finished word that is an entity (a trie key) enters the FIFO memory
            if steer and trie is not None:
                done = words(text) if not text[-1:].isalpha() else words(text)[:-1]
                memory.extend(entities_in(" ".join(done[words_done:]), trie))
                words_done = len(done)
