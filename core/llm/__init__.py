"""One LLM interface, several providers behind a registry (ARCHITECTURE principle 2).

    from core.llm import get_llm, GenerationOptions
    llm = get_llm("local:smollm2")                      # or openai:gpt-4o-mini, anthropic:claude-haiku-4-5, fake:echo
    reply = llm.complete([{"role": "user", "content": "Who is Phoebe?"}], max_tokens=40, stop=["\\n\\n"])
    reply.text, reply.input_tokens, reply.output_tokens, reply.seconds, reply.finish_reason
    for piece in (s := llm.stream("Tell me more")): ...; s.completion  # usage once exhausted

Every failure is an `LLMError` (see errors.py). What a model can do beyond that is declared in `llm.abilities`
(logits, log-probabilities, raw text, its chat template, exact token counts, warm-up); the local models have them all,
reached through `base.local_access(llm)` once the ability is checked. Importing this package does not import torch or
the SDKs.
"""
from core.llm.base import (LLM, Abilities, Completion, GenerationOptions, Message, MessagesIn, StopScanner, TextStream,
                           normalize_messages)
from core.llm.errors import (LLMAuthError, LLMBadRequest, LLMBadResponse, LLMConfigError, LLMContextOverflow,
                             LLMError, LLMRateLimited, LLMTimeout, LLMUnavailable, redact)
from core.llm.fake import FakeCall, FakeLLM
from core.llm.keys import base_url, key_source
from core.llm.metered import LLMUsage, MeteredLLM, UsageSink, UsageTotals
from core.llm.pricing import DEFAULT_PRICES, CostEstimate, Price, cost_usd, estimate_job_cost, price_for
from core.llm.registry import (ProviderInfo, check_llm_name, declared_context_window, get_llm, list_providers,
                               parse_llm_name, register_provider, unregister_provider)

__all__ = [
    "LLM", "Abilities", "Completion", "GenerationOptions", "Message", "MessagesIn", "StopScanner", "TextStream",
    "normalize_messages",
    "LLMError", "LLMConfigError", "LLMAuthError", "LLMBadRequest", "LLMBadResponse", "LLMUnavailable", "LLMTimeout",
    "LLMRateLimited", "LLMContextOverflow", "redact",
    "FakeLLM", "FakeCall", "MeteredLLM", "LLMUsage", "UsageSink", "UsageTotals",
    "DEFAULT_PRICES", "Price", "price_for", "cost_usd", "estimate_job_cost", "CostEstimate",
    "get_llm", "declared_context_window", "register_provider", "unregister_provider", "parse_llm_name",
    "check_llm_name", "list_providers",
    "ProviderInfo", "key_source", "base_url",
]
