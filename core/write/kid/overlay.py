"""The Write page's view of what KID steered: the generated text as HTML, every token escaped, the tokens whose
probability KID raised highlighted, with the fact behind each (and p before -> after) in a title attribute."""
from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Any

STYLE = "background:#fde68a;border-radius:3px;padding:0 1px"


def _piece(text: str) -> str:
    return html.escape(text, quote=True).replace("\n", "<br>")


def overlay_html(tokens: Iterable[Mapping[str, Any]]) -> str:
    """`tokens`: dicts with "token" and, for boosted ones, "p_before", "p_after" and "fact" (None or absent for
    the rest). Book text is data: everything, the fact included, is escaped."""
    parts = []
    for t in tokens:
        piece = _piece(str(t.get("token", "")))
        fact = t.get("fact")
        if fact and float(t.get("p_after", 0)) > float(t.get("p_before", 0)):
            title = html.escape(f"{fact} (p {float(t['p_before']):.3f} -> {float(t['p_after']):.3f})", quote=True)
            parts.append(f'<mark class="kid-boost" style="{STYLE}" title="{title}">{piece}</mark>')
        else:
            parts.append(piece)
    return '<div class="kid-overlay" style="white-space:pre-wrap;line-height:1.6">' + "".join(parts) + "</div>"


def token_dicts(steps: Iterable[Any]) -> list[dict[str, Any]]:
    """Steps of the KID loop as the dicts overlay_html reads (a fact only where KID raised the probability)."""
    return [{"token": s.piece, "p_before": s.p_before, "p_after": s.p_after, "fact": s.fact if s.boosted else None}
            for s in steps]
