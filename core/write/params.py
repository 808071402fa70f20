"""Per-call parameters of the writing features (ARCHITECTURE principle 6): small frozen dataclasses, validated."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from core.llm import GenerationOptions
from core.write.premises import resolve_arc, resolve_premise

if TYPE_CHECKING:  # core.write.kid imports this module (through core.write.modes): no import at run time
    from core.write.kid.params import KidParams

DEFAULT_WORDS = (800, 1200)
TOKENS_PER_WORD = 1.4  # English prose with BPE tokenizers: generous, so a chapter is not cut at max_tokens


@dataclass(frozen=True)
class DecodeParams:
    """How text is sampled. temperature 0 is greedy; `seed` makes sampling repeatable where supported."""

    temperature: float = 0.8
    max_tokens: int = 1700
    top_p: float | None = 0.95
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {self.max_tokens}")
        if not 0 <= self.temperature <= 2:
            raise ValueError(f"temperature must be between 0 and 2, got {self.temperature}")

    def options(self, stop: tuple[str, ...] = ()) -> GenerationOptions:
        return GenerationOptions(temperature=self.temperature, max_tokens=self.max_tokens,
                                 top_p=self.top_p if self.temperature > 0 else None, seed=self.seed, stop=stop)


@dataclass(frozen=True)
class WriteParams:
    """A story's writing settings, kept on the work (`as_settings`) so `story next` needs nothing else."""

    premise: str
    arc: str
    min_words: int = DEFAULT_WORDS[0]
    max_words: int = DEFAULT_WORDS[1]
    max_chapters: int = 12
    use_kg: bool = True
    extractor: str = "auto"              # "grapher" (the Remember Me grapher agent), "offline" (no LLM), or "auto":
                                         # the grapher with a remote model, offline with an embedded one
    llm: str | None = None               # PROVIDER:MODEL for writing; None = the "writing" role's model
    decode: DecodeParams = field(default_factory=DecodeParams)
    plan: bool = False                   # the planner outlines each chapter before it is written (issue 34)

    def __post_init__(self) -> None:
        object.__setattr__(self, "premise", resolve_premise(self.premise))   # "5" -> premise 5 of the paper
        object.__setattr__(self, "arc", resolve_arc(self.arc))
        if not 1 <= self.min_words <= self.max_words:
            raise ValueError(f"Chapter length must be 1 <= min <= max words, got {self.min_words}-{self.max_words}.")
        if not 1 <= self.max_chapters <= 200:
            raise ValueError(f"Max chapters must be 1-200, got {self.max_chapters}.")

    def graph_extractor(self, writing_model: str) -> str:
        """The extractor that reads each chapter into the story's graph when `writing_model` writes it: "auto" picks
        the offline extractor for a model that runs in this process (the embedded 135M-270M models cannot write the
        grapher's JSON: their graph came out empty) and the grapher for any other."""
        if self.extractor != "auto":
            return self.extractor
        from core.llm.registry import is_embedded
        return "offline" if is_embedded(writing_model) else "grapher"

    def as_settings(self) -> dict[str, Any]:
        data = asdict(self)
        data["decode"] = asdict(self.decode)
        return data

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> WriteParams:
        known = {k: v for k, v in settings.items() if k in cls.__dataclass_fields__}
        known["decode"] = DecodeParams(**(known.get("decode") or {}))
        return cls(**known)

    def chapter_tokens(self) -> int:
        """max_tokens for one chapter: the upper word count in tokens, plus room for the final-chapter marker."""
        return int(self.max_words * TOKENS_PER_WORD) + 20


@dataclass(frozen=True)
class ContinueParams:
    """A continuation of any work from a point in its text. `kid`: Knowledge Infused Decoding's own settings for the
    "kid" mode (None: its defaults); `tokens` caps its length as for every mode, its sampling is `kid.temperature`."""

    mode: str = "plain"
    tokens: int = 120                    # new tokens to generate
    budget_tokens: int = 1000            # prompt budget (Andrus used 1,000)
    facts: int = 3                       # top-k facts for kg-prompt
    temperature: float = 0.0
    kid: KidParams | None = None

    def __post_init__(self) -> None:
        if self.tokens < 1 or self.budget_tokens < 50 or self.facts < 0:
            raise ValueError("tokens must be >= 1, budget_tokens >= 50 and facts >= 0.")

    def decode(self) -> DecodeParams:
        return DecodeParams(temperature=self.temperature, max_tokens=self.tokens, top_p=None)
