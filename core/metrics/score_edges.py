"""The edges KGScore compares and how their entity names are matched (shared by the scorer and both edge
extractors, core.metrics.kgscore_offline and kgscore_llm)."""
from __future__ import annotations

import re
from dataclasses import dataclass

_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+")


@dataclass(frozen=True)
class ScoreEdge:
    """A summary-graph edge between entity keys; a self-loop (a description) has object == subject."""

    subject: str
    object: str
    predicate: str

    @property
    def is_self_loop(self) -> bool:
        return self.subject == self.object


def entity_key(name: str) -> str:
    """How entity names are matched between the two graphs: case, spacing, a leading article and a possessive do
    not matter ("The Aphrodite's" == "aphrodite"). Aliases are not resolved (the paper's limitation too)."""
    key = " ".join(name.replace("’", "'").split()).strip(" \"'.,;:!?()[]").lower()
    key = _POSSESSIVE.sub("", key).strip()
    return _ARTICLE.sub("", key).strip()
