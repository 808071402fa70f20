"""Getting an answer out of the model: the generation call, cleaning its reply, and multiple-choice scoring.

The QA prompt already ends with "Question: ...\nAnswer:", so a base model (a local model without a chat template)
continues it as it is; wrapping it in the plain Question/Answer transcript would ask for an answer twice. Chat
models get it as one user message. `model_input` is the exact text a local model reads either way.

Multiple choice (QuALITY) scores each option as the continuation of the prompt by its mean token log-probability
(so long options are not penalised for their length). Local models share one forward pass over the prompt for all
options (its key/value cache is reused), which makes four options cost little more than one; other models fall
back to `logprob()` per option, and models without log-probabilities to asking for the letter.
"""
from __future__ import annotations

import copy
import re
from collections.abc import Sequence

from core.llm.base import LLM, LocalAccess, local_access

ANSWER_STOP = ("\n",)
MAX_ANSWER_WORDS = 40
_PREFIX = re.compile(r"^\s*(?:answer|a)\s*[:.-]\s*", re.IGNORECASE)
_LETTERS = "ABCD"


def messages_for(prompt: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": prompt}]


def reads_raw_prompt(llm: LLM) -> bool:
    """True for a local base model: it continues the prompt text itself (no chat template around it)."""
    return llm.abilities.raw_text and not llm.abilities.chat_template


def model_input(llm: LLM, prompt: str) -> str:
    """The text the model reads for `prompt`: the prompt itself, or the chat template around it where the
    provider exposes one (local models); remote chat APIs apply theirs out of sight."""
    if reads_raw_prompt(llm) or not llm.abilities.prompt_text:
        return prompt
    return local_access(llm).format_prompt(messages_for(prompt))


def template_overhead(llm: LLM) -> int:
    """Tokens a chat template adds around a message (plus one for a start token), so that the budget covers what
    the model actually reads; 0 where nothing is added that can be counted."""
    if not llm.abilities.prompt_text:
        return 0
    try:
        return int(llm.count_tokens(model_input(llm, ""))) + 1
    except Exception:  # noqa: BLE001 - a provider without a local template adds nothing we can count
        return 0


def clean_answer(reply: str) -> str:
    """The first non-empty line, without an "Answer:" prefix or wrapping quotes, at most 40 words."""
    line = next((ln.strip() for ln in (reply or "").splitlines() if ln.strip()), "")
    line = _PREFIX.sub("", line).strip().strip("\"'“”`*").strip()
    words = line.split()
    return " ".join(words[:MAX_ANSWER_WORDS])


def generate_answer(llm: LLM, prompt: str, max_tokens: int = 32) -> tuple[str, str]:
    """(clean answer, raw reply): a base model continues `prompt`, a chat model gets it as one user message."""
    if reads_raw_prompt(llm):
        reply = local_access(llm).generate_text(prompt, max_tokens=max_tokens, stop=list(ANSWER_STOP))
    else:
        reply = llm.complete(messages_for(prompt), max_tokens=max_tokens, stop=list(ANSWER_STOP))
    return clean_answer(reply.text), reply.text


def score_options(llm: LLM, prompt: str, options: Sequence[str]) -> list[float]:
    """Mean token log-probability of each option as the model's answer to `prompt` (higher is better)."""
    text = model_input(llm, prompt)
    if llm.abilities.logits:
        return _cached_option_scores(local_access(llm), text, options)
    if llm.abilities.logprobs:
        scorer = local_access(llm)
        return [_mean([t.logprob for t in scorer.token_logprobs(text, " " + o.strip())]) for o in options]
    return _letter_scores(llm, prompt, options)


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else float("-inf")


def _cached_option_scores(llm: LocalAccess, text: str, options: Sequence[str]) -> list[float]:
    """One forward pass over the prompt, then each option on a copy of its key/value cache. Tokenisation matches
    LocalLLM.token_logprobs (prompt with special tokens, continuation without, trailing white space moved)."""
    import torch
    stripped = text.rstrip()
    moved = text[len(stripped):]
    context = llm.encode(stripped)[-(llm.context_window - 64):]
    model = llm.model
    with torch.inference_mode():
        out = model(input_ids=torch.tensor([context]), use_cache=True)
        first = torch.log_softmax(out.logits[0, -1].float(), dim=-1)
        scores = []
        for option in options:
            ids = llm.encode(moved + " " + option.strip(), add_special_tokens=False)[:64]
            if not ids:
                scores.append(float("-inf"))
                continue
            logprobs = [float(first[ids[0]])]
            if len(ids) > 1:
                cache = copy.deepcopy(out.past_key_values)
                logits = model(input_ids=torch.tensor([ids[:-1]]), past_key_values=cache, use_cache=True).logits[0]
                following = torch.log_softmax(logits.float(), dim=-1)
                logprobs += following.gather(1, torch.tensor(ids[1:]).unsqueeze(1)).squeeze(1).tolist()
            scores.append(_mean(logprobs))
    return scores


def _letter_scores(llm: LLM, prompt: str, options: Sequence[str]) -> list[float]:
    listing = "\n".join(f"{_LETTERS[i]}. {o}" for i, o in enumerate(options[:4]))
    reply = llm.complete(messages_for(f"{prompt}\n{listing}\nReply with the letter only."), max_tokens=3).text
    letter = next((ch for ch in reply.upper() if ch in _LETTERS[:len(options)]), None)
    return [1.0 if letter == _LETTERS[i] else 0.0 for i in range(len(options))]
