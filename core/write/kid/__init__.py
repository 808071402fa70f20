"""Knowledge Infused Decoding (Liu et al. 2022) on the local model, with the work's own graph as its knowledge:
trie (stemmed subject keys, multi-hop, fact words only), FIFO entity memory, the two policy updates (Algorithm 1 on
the logits; the released code's KV-cache perturbation), the explicit decoding loop (whole words only), the "kid"
continuation mode with its stoppable stream, and its HTML overlay.
"""
from core.write.kid.memory import EntityMemory, entities_in
from core.write.kid.mode import KidCompletion, KidMode, KidRun, KidStream, triple_from_text
from core.write.kid.params import VARIANTS, KidParams, Step, boosted_records
from core.write.kid.trie import Demo, KnowledgeTrie, stem, words
from core.write.modes import register_mode

register_mode(KidMode())

__all__ = ["VARIANTS", "Demo", "EntityMemory", "KidCompletion", "KidMode", "KidParams", "KidRun", "KidStream",
           "KnowledgeTrie", "Step", "boosted_records", "entities_in", "stem", "triple_from_text", "words"]
