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
from dataclasses import dataclass
from typing import Any

FREE_PROVIDERS = ("local", "fake")


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


def estimate_job_cost(tokens_in_per_unit: int, tokens_out_per_unit: int, units: int, model: str,
                      prices: Mapping[str, Price] | None = None) -> dict[str, Any]:
    """Estimate for a job of `units` (e.g. chapters), each sending ~tokens_in and receiving ~tokens_out tokens."""
    if min(tokens_in_per_unit, tokens_out_per_unit, units) < 0:
        raise ValueError("token counts and units must not be negative")
    input_tokens, output_tokens = tokens_in_per_unit * units, tokens_out_per_unit * units
    price = price_for(model, prices)
    usd = None if price is None else round(price.cost(input_tokens, output_tokens), 6)
    return {"model": model, "units": units, "input_tokens": input_tokens, "output_tokens": output_tokens,
            "usd": usd, "price_known": price is not None, "label": format_usd(usd, model),
            "price": None if price is None else {"input_per_1m": price.input_per_1m,
                                                 "output_per_1m": price.output_per_1m}}


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
