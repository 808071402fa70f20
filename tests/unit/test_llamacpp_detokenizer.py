"""The fast path's incremental detokenizer: the pieces it emits add up to one decode of all ids, with incomplete
UTF-8 held back and the window restarted after newlines (a fake byte-level vocabulary, no model)."""
from __future__ import annotations

from core.llm.base import StopScanner
from core.llm.decoding import Decode, Detokenizer, FastRun
from core.llm.llamacpp import LlamaModel

# a byte-level vocabulary: id -> bytes; "é" and "🎄" are split over several ids
VOCAB = {1: b"Hello", 2: b" world", 3: b"\n", 4: b" caf", 5: b"\xc3", 6: b"\xa9", 7: b" \xf0\x9f", 8: b"\x8e\x84",
         9: b".", 10: b"<eos>"}


def decode(ids: list[int]) -> str:
    return b"".join(VOCAB[i] for i in ids if i != 10).decode("utf-8", errors="replace")


def test_pieces_add_up_to_the_whole_decode_and_never_show_half_characters() -> None:
    ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 3, 1]
    detok = Detokenizer(decode)
    pieces = [detok.push(i) for i in ids] + [detok.flush()]
    assert "".join(pieces) == decode(ids) == "Hello world\n café 🎄.\nHello"
    assert not any("\ufffd" in p for p in pieces)
    assert pieces[4] == "" and pieces[5] == "é"  # held back until the second byte came
    assert detok.window == []


class FakeLlama:
    """Replays fixed id sequences (one per generate call) as llama-cpp-python's Llama.generate would yield them."""

    def __init__(self, *calls: list[int]) -> None:
        self.calls, self.closed, self.seed, self.n_tokens = list(calls), False, None, 0
        self.prompts: list[list[int]] = []
        self._ctx = self

    def kv_cache_seq_rm(self, *args: int) -> bool:
        return True

    def set_seed(self, seed: int) -> None:
        self.seed = seed

    def generate(self, tokens: list[int], **kw: object):  # noqa: ANN201 - a generator like the real one
        self.prompts.append(list(tokens))
        try:
            yield from self.calls.pop(0)
        finally:
            self.closed = True


def run(*calls: list[int], max_new: int = 50, stops: tuple[str, ...] = (),
        min_new: int = 0) -> tuple[str, FastRun, FakeLlama]:
    llama = FakeLlama(*calls)
    model = LlamaModel("fake", llama, frozenset({10}), 0.0)
    state = FastRun(StopScanner(stops))
    text = "".join(model.text_pieces([1], Decode(state, decode, max_new, min_new=min_new, paragraph=[3, 3])))
    return text, state, llama


def test_generation_ends_at_the_end_token_which_is_not_kept() -> None:
    text, state, llama = run([1, 2, 10, 9, 9])
    assert text == "Hello world" and state.new_ids == [1, 2] and state.ended and llama.closed


def test_max_new_tokens_and_stop_strings_end_generation() -> None:
    text, state, _ = run([1, 2, 9, 9, 9], max_new=3)
    assert text == "Hello world." and state.new_ids == [1, 2, 9] and not state.ended
    text, state, llama = run([1, 2, 3, 4, 5, 6, 9], stops=(" caf",))
    assert text == "Hello world\n" and state.scanner.stopped and llama.closed
    assert state.new_ids == [1, 2, 3, 4]  # generation stopped as soon as the stop string appeared


def test_an_end_before_min_new_becomes_a_paragraph_and_generation_goes_on_from_there() -> None:
    text, state, llama = run([1, 10], [2, 9, 10], min_new=5)
    assert text == "Hello\n\n world." and state.new_ids == [1, 3, 3, 2, 9] and state.ended
    assert llama.prompts == [[1], [1, 1, 3, 3]]  # the second call continues after the paragraph
