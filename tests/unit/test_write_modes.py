"""Continuation modes: the Andrus prompt (top facts by cosine, inserted before the last paragraph, within budget),
the kg-block and plain prompts, the registry a KID mode plugs into, and Markdown / EPUB export."""
from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import numpy as np
import pytest

from core.llm import FakeLLM
from core.llm.base import Abilities, Completion, TextStream
from core.write import ContinuationMode, ContinuationRequest, ContinueParams, FactPool, get_mode, mode_names, \
    register_mode
from core.write.export import ExportChapter, to_epub, to_markdown
from core.textfit import fit_end, keep_end
from core.write.modes import _modes, andrus_prompt, top_facts, verbalize

VOCAB = ["dragon", "egg", "ship", "planet", "wedding", "chess"]


def bag_embed(texts: Sequence[str]) -> np.ndarray:
    """A deterministic stand-in for SBERT: unit bag-of-words vectors over a tiny vocabulary."""
    rows = np.array([[t.lower().count(w) for w in VOCAB] for t in texts], dtype=np.float32) + 1e-3
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def words(text: str) -> int:
    return len(text.split())


STORY = "The farmer walked the field at dawn.\n\nHe found a warm egg, speckled like a dragon."
FACTS = FactPool(["The ship left the planet.", "The dragon laid an egg.", "The wedding was in June.",
                  "The egg was warm.", "Chess is a game."])


def _request(mode: str, text: str = STORY, budget: int = 1000, **kw) -> ContinuationRequest:  # noqa: ANN003
    return ContinuationRequest(text, ContinueParams(mode=mode, budget_tokens=budget), words, facts=lambda: FACTS,
                               kg_block=lambda: "KNOWLEDGE GRAPH (use this to maintain consistency):\n## x", **kw)


def test_top_facts_by_cosine_to_the_last_paragraph() -> None:
    ranked = top_facts(FACTS, "He found a warm egg, speckled like a dragon.", 3, bag_embed)
    assert [f["text"] for f in ranked][:2] == ["The dragon laid an egg.", "The egg was warm."]
    assert len(ranked) == 3 and ranked[0]["score"] >= ranked[1]["score"] >= ranked[2]["score"]


def test_kg_prompt_inserts_facts_before_the_last_paragraph() -> None:
    prepared = get_mode("kg-prompt").prepare(_request("kg-prompt", embed=bag_embed))
    before, facts, last = prepared.prompt.split("\n\n")
    assert before == "The farmer walked the field at dawn."
    assert facts.startswith("The dragon laid an egg. The egg was warm.")
    assert last == "He found a warm egg, speckled like a dragon."
    assert [f["text"] for f in prepared.facts][:2] == ["The dragon laid an egg.", "The egg was warm."]


def test_andrus_prompt_stays_within_the_budget() -> None:
    before = " ".join(f"w{i}" for i in range(500))
    prompt = andrus_prompt(before, "the last paragraph here", ["fact one.", "fact two."], 50, words)
    assert words(prompt) <= 50 and prompt.endswith("fact one. fact two.\n\nthe last paragraph here")
    assert "w499" in prompt and "w0 " not in prompt  # the earlier text is cut at its start
    assert andrus_prompt("", "a b c d e f", ["x y z."], 4, words) == "c d e f"  # facts go first, then the start


def test_plain_and_block_modes() -> None:
    long = " ".join(f"w{i}" for i in range(300))
    plain = get_mode("plain").prepare(_request("plain", long, budget=60))
    assert words(plain.prompt) == 60 and plain.prompt.endswith("w299") and not plain.facts
    block = get_mode("kg-block").prepare(_request("kg-block", long, budget=60))
    assert block.prompt.startswith("KNOWLEDGE GRAPH") and block.prompt.endswith("w299")
    assert words(block.prompt) <= 60


class EchoFactsMode(ContinuationMode):
    """What a KID mode does: its own generation loop, using the prepared facts."""

    name = "kid-test"
    needs_graph = True

    def prepare(self, request: ContinuationRequest) -> object:
        return get_mode("kg-prompt").prepare(request)

    def generate(self, llm: object, prepared, decode) -> TextStream:  # noqa: ANN001
        def pieces():  # noqa: ANN202
            yield "steered by "
            yield prepared.facts[0]["text"]
            return Completion("steered by " + prepared.facts[0]["text"], 0, 2, 0.0)
        return TextStream(pieces())


def test_a_new_mode_plugs_into_the_registry() -> None:
    register_mode(EchoFactsMode())
    try:
        assert "kid-test" in mode_names()
        mode = get_mode("kid-test")
        prepared = mode.prepare(_request("kid-test", embed=bag_embed))
        assert mode.generate(FakeLLM(), prepared, ContinueParams().decode()).text() == \
            "steered by The dragon laid an egg."
    finally:
        _modes.pop("kid-test")
    with pytest.raises(ValueError, match="plain, kg-prompt, kg-block"):
        get_mode("kid-test")


class RawTextLLM(FakeLLM):
    """A local model's raw text access, faked: what it was asked to continue, and a reply."""

    abilities = Abilities(raw_text=True)

    def __init__(self) -> None:
        super().__init__(["unused"])
        self.raw: list[str] = []

    def stream_text(self, prompt: str, options: Any = None, **overrides: Any) -> TextStream:
        self.raw.append(prompt)

        def pieces() -> Generator[str, None, Completion]:
            yield "The egg hatched."
            return Completion("The egg hatched.", 10, 4, 0.1, "stop", "raw")
        return TextStream(pieces(), "raw")


def test_a_model_with_raw_text_continues_the_text_itself_not_a_chat() -> None:
    """An embedded model continues the prompt as raw text from a new paragraph: asked in a chat it answers as an
    assistant about the text half the time (bench/metatalk.py) and predicts the book's next paragraph less well."""
    llm = RawTextLLM()
    prepared = get_mode("plain").prepare(_request("plain"))
    assert get_mode("plain").generate(llm, prepared, ContinueParams(tokens=5).decode()).text() == "The egg hatched."
    assert llm.raw == [prepared.prompt.rstrip() + "\n\n"] and not llm.calls   # no chat call


def test_default_generation_goes_through_the_chat_interface() -> None:
    llm = FakeLLM(["and it hatched."])
    prepared = get_mode("plain").prepare(_request("plain"))
    assert get_mode("plain").generate(llm, prepared, ContinueParams(tokens=5).decode()).text() == "and it hatched."
    assert llm.calls[0].streamed and llm.calls[0].options.max_tokens == 5
    assert llm.calls[0].messages[-1].content.endswith(STORY)


def test_markdown_and_epub_export_keep_text_as_text() -> None:
    prose = "The farmer carried the egg home through the rain. " * 12  # the reader skips pages with little prose
    chapters = [ExportChapter(1, "The <b>Egg</b>", f"# not a heading\n\n{prose}\n\nShe said <script>x</script>.")]
    md = to_markdown("My *Story*", chapters, "A premise.", "Icarus")
    assert md.startswith("# My \\*Story\\*") and "\\# not a heading" in md and "## Chapter 1: The \\<b\\>Egg" in md
    from core.ingest import read_book
    book = read_book("story.epub", to_epub("My Story", chapters))
    assert "She said <script>x</script>." in book.chapters[-1].text  # escaped in XHTML, read back as plain text


def test_fitting_cuts_at_word_starts_from_the_front() -> None:
    text = "  one two three four five  "
    assert fit_end(text, 3, words) == "three four five" and fit_end(text, 9, words) == "one two three four five"
    assert keep_end(text, lambda s: len(s) <= 4) == "five" and keep_end(text, lambda s: False) == ""
    assert fit_end(text, 0, words) == ""
    assert verbalize("elena", "lives in", "Millbrook") == "Elena lives in Millbrook."
