"""Which extractor reads a story's chapters into its graph: "auto" (the default) is the grapher agent with a model
that is not embedded, and the offline extractor with an embedded one, whose grapher JSON came out empty."""
from __future__ import annotations

from core.write.params import WriteParams


def test_auto_reads_with_the_grapher_unless_an_embedded_model_writes() -> None:
    params = WriteParams(premise="1", arc="Rags to riches")
    assert params.extractor == "auto"
    assert params.graph_extractor("local:smollm2") == "offline"
    assert params.graph_extractor("openai:gpt-4o-mini") == "grapher"
    assert params.graph_extractor("fake:echo") == "grapher"


def test_a_chosen_extractor_is_kept_whatever_the_model() -> None:
    assert WriteParams(premise="1", arc="Rags to riches", extractor="grapher").graph_extractor("local:smollm2") \
        == "grapher"
    assert WriteParams(premise="1", arc="Rags to riches", extractor="offline").graph_extractor("openai:gpt-4o") \
        == "offline"
