"""Prices and cost estimates. USD per million input / output tokens, keyed by PROVIDER:MODEL.

The defaults are list prices as of 2025 for a handful of common models; the table is editable in Settings (the
service persists it as JSON in the store's meta table under "price_table"). Local and fake models cost nothing; a
model not in the table has an unknown price, shown as such rather than guessed.
A dated model id (claude-haiku-4-5-20251001, gpt-4o-mini-2024-07-18) takes the price of its undated name.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

FREE_PROVIDERS = ("local", "fake", "ollama", "lmstudio")  # the last two: servers on this machine


@dataclass(frozen=True)
class Price:
    input_per_1m: float
    output_per_1m: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_per_1m + output_tokens * self.output_per_1m) / 1_000_000


PriceTable = dict[str, Price]

DEFAULT_PRICES: PriceTable = {
    "openai:gpt-4o-mini": Price(0.15, 0.60),
    "openai:gpt-4o": Price(2.50, 10.00),
    "openai:gpt-4.1-nano": Price(0.10, 0.40),
    "openai:gpt-4.1-mini": Price(0.40, 1.60),
    "openai:gpt-4.1": Price(2.00, 8.00),
    "openai:gpt-5-nano": Price(0.05, 0.40),
    "openai:gpt-5-mini": Price(0.25, 2.00),
    "openai:gpt-5": Price(1.25, 10.00),
    "anthropic:claude-haiku-4-5": Price(1.00, 5.00),
    "anthropic:claude-3-5-haiku": Price(0.80, 4.00),
    "anthropic:claude-sonnet-4-5": Price(3.00, 15.00),
    "anthropic:claude-sonnet-4": Price(3.00, 15.00),
    "anthropic:claude-opus-4-1": Price(15.00, 75.00),
}


def price_for(llm_name: str, prices: Mapping[str, Price] | None = None) -> Price | None:
    """The price of PROVIDER:MODEL, or None when unknown."""
    table = DEFAULT_PRICES if prices is None else prices
    provider = llm_name.split(":", 1)[0]
    if provider in FREE_PROVIDERS:
        return Price(0.0, 0.0)
    if llm_name in table:
        return table[llm_name]
    # dated variants: the longest table name that the id starts with, followed by "-"
    candidates = [k for k in table if llm_name.startswith(k + "-")]
    return table[max(candidates, key=len)] if candidates else None


def cost_usd(input_tokens: int, output_tokens: int, llm_name: str,
             prices: Mapping[str, Price] | None = None) -> float | None:
    price = price_for(llm_name, prices)
    return None if price is None else round(price.cost(input_tokens, output_tokens), 6)


def format_usd(usd: float | None, llm_name: str = "") -> str:
    if usd is None:
        return "unknown price"
    if llm_name.split(":", 1)[0] in FREE_PROVIDERS:
        return "free (local)" if llm_name.startswith("local:") else "free"
    return f"${usd:,.4f}" if usd < 1 else f"${usd:,.2f}"


@dataclass(frozen=True)
class CostEstimate:
    """What a job will cost before it runs, in one shape for every job (graph build, NARCO build, summaries): the
    units it counts (chapters, passages, summaries), its model calls and tokens, priced from the price table.
    `detail` holds what only that job counts (segments, pairs, the chapters summarized in parts, ...)."""

    model: str
    units: int
    calls: int
    input_tokens: int
    output_tokens: int
    price: Price | None
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def usd(self) -> float | None:
        return None if self.price is None else round(self.price.cost(self.input_tokens, self.output_tokens), 6)

    @property
    def price_known(self) -> bool:
        return self.price is not None

    @property
    def label(self) -> str:
        """The price as shown: "$0.0123", "free (local)" or "unknown price"."""
        return format_usd(self.usd, self.model)

    def as_dict(self) -> dict[str, Any]:
        """The JSON view (the CLI's output): every field, the price per million tokens, then the job's detail."""
        price = None if self.price is None else {"input_per_1m": self.price.input_per_1m,
                                                 "output_per_1m": self.price.output_per_1m}
        return {"model": self.model, "units": self.units, "calls": self.calls, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "usd": self.usd, "price_known": self.price_known,
                "label": self.label, "price": price, **self.detail}


def estimate_job_cost(model: str, *, units: int, calls: int, input_tokens: int, output_tokens: int,
                      prices: Mapping[str, Price] | None = None, detail: dict[str, Any] | None = None) -> CostEstimate:
    """A job of `units` making `calls` model calls that send `input_tokens` and receive `output_tokens` in all."""
    if min(units, calls, input_tokens, output_tokens) < 0:
        raise ValueError("token counts, calls and units must not be negative")
    return CostEstimate(model, units, calls, input_tokens, output_tokens, price_for(model, prices), dict(detail or {}))


# -- the editable table ------------------------------------------------------------------------------------------

def price_rows(prices: Mapping[str, Price]) -> list[dict[str, Any]]:
    """The table as rows (model, input_per_1m, output_per_1m), sorted, for an editable grid."""
    return [{"model": k, "input_per_1m": p.input_per_1m, "output_per_1m": p.output_per_1m}
            for k, p in sorted(prices.items())]


def prices_from_rows(rows: Iterable[Mapping[str, Any]]) -> PriceTable:
    """Validate edited rows back into a table; blank rows are skipped, anything else malformed is a ValueError."""
    table: PriceTable = {}
    for i, row in enumerate(rows, start=1):
        name = str(row.get("model") or "").strip()
        if not name:
            continue
        provider, sep, model = name.partition(":")
        if not sep or not provider or not model:
            raise ValueError(f"row {i}: model {name!r} must look like PROVIDER:MODEL, e.g. openai:gpt-4o-mini")
        numbers = []
        for col in ("input_per_1m", "output_per_1m"):
            try:
                value = float(row.get(col))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise ValueError(f"row {i} ({name}): {col} must be a number") from None
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"row {i} ({name}): {col} must be zero or more")
            numbers.append(value)
        table[name] = Price(*numbers)
    return table


def price_table_to_json(prices: Mapping[str, Price]) -> str:
    return json.dumps(price_rows(prices))


def price_table_from_json(text: str) -> PriceTable:
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"stored price table is not JSON: {exc}") from None
    if not isinstance(rows, list):
        raise ValueError("stored price table must be a list of rows")
    return prices_from_rows(rows)
