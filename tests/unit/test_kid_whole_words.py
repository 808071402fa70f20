"""KID steers whole fact words only (issue 37): no filler or function words in the trie, the first sub-token of a fact
word only at a word start, a word KID began finished whole and nothing glued onto it ("buck" was boosted inside
"buckled"), the overlay marking exactly the steered words; with steering off, the loop is plain decoding token for
token. A tiny bigram "model" (tests/support/tiny_lm.py) says what the model would write on its own."""
from __future__ import annotations

import torch

from core.write.kid import EntityMemory, KidParams, KnowledgeTrie, words
from core.write.kid.decode import ban_repeated_ngrams, candidates, kid_decode
from core.write.kid.overlay import overlay_html, token_dicts
from tests.support.tiny_lm import TinyLocalLLM, walking_table


def _run(lm: TinyLocalLLM, prompt: str, trie: KnowledgeTrie, **params) -> list:  # noqa: ANN003
    memory = EntityMemory(2)
    memory.extend(w for w in words(prompt) if trie.is_key(w))
    settings = KidParams(**({"temperature": 0, "max_tokens": 4, "no_repeat": 2} | params))
    return list(kid_decode(lm.model, lm.tokenizer, lm.encode(prompt), settings, trie, memory, stop_ids=[0]))


def _text(steps: list) -> str:
    return "".join(s.piece for s in steps)


def test_filler_and_function_words_carry_no_fact() -> None:
    trie = KnowledgeTrie.build([("Buck", "saw", "something white"), ("Spitz", "looked like", "a wolf"),
                                ("Mr Thornton", "saved", "Buck's life"), ("It", "was", "like that")])
    assert trie.query("Buck") == []                                    # "saw", "something", "white": nothing to steer
    assert [d.word for d in trie.query("Spitz")] == ["wolf"]           # not "looked", "like" or "a"
    assert [d.word for d in trie.query("Thornton")] == ["Buck", "life"]
    assert not trie.is_key("Mr") and not trie.is_key("It") and len(trie) == 2


def test_a_single_token_fact_word_is_never_glued_into_a_longer_word() -> None:
    # on its own the model writes " Buck" and then "led": "Buckled"
    lm = TinyLocalLLM({" saw": {" Buck": 3.0, " the": 1.0}, " Buck": {"led": 5.0, " ran": 3.0}, " ran": {".": 3.0}})
    trie = KnowledgeTrie.build([("Thornton", "saved", "Buck")])
    plain = _run(lm, "Thornton saw", trie, steps=0)
    assert _text(plain).startswith(" Buckled") and not any(s.fact for s in plain)
    steered = _run(lm, "Thornton saw", trie, max_tokens=3)
    assert _text(steered) == " Buck ran.", _text(steered)
    assert [(s.piece, s.fact) for s in steered if s.boosted] == [(" Buck", "Thornton saved Buck")]


def test_a_multi_token_fact_word_begun_by_kid_is_written_whole() -> None:
    # on its own the model writes " Thorn" and then "y": "Thorny"; "Thornton" is in the prompt, so the no-repeat
    # 2-gram ban would forbid its "ton" too
    table = {" loved": {" Thorn": 3.0, " the": 2.0}, " Thorn": {"y": 4.0, "ton": 1.0}, "ton": {" said": 3.0},
             "y": {" dog": 3.0}, " said": {".": 3.0}}
    lm = TinyLocalLLM(table)
    trie = KnowledgeTrie.build([("Buck", "loved", "John Thornton")])
    prompt = "Buck was in the snow.\nThe dog called Thornton. Buck loved"
    assert lm.encode(" Thornton") != lm.encode(" Thorn") + lm.encode("ton")  # the vocabulary has it whole ...
    lm.tokenizer.pieces[lm.tokenizer.pieces.index(" Thornton")] = " Thornton\x00"  # ... until it has not
    assert lm.encode(" Thornton") == lm.encode(" Thorn") + lm.encode("ton")
    assert _text(_run(lm, prompt, trie, steps=0)).startswith(" Thorny")
    steered = _run(lm, prompt, trie)
    assert _text(steered).startswith(" Thornton said"), _text(steered)
    marked = [s.piece for s in steered if s.boosted]
    assert marked == [" Thorn", "ton"], "every sub-token of the steered word is marked, nothing else"
    assert all(s.fact == "Buck loved John Thornton" for s in steered if s.boosted)


def test_the_overlay_marks_whole_fact_words_only() -> None:
    lm = TinyLocalLLM(walking_table())
    trie = KnowledgeTrie.build([("the dog", "followed", "Buck"), ("the man", "worked for", "John Thornton")])
    steps = _run(lm, "The dog went home and the man", trie, max_tokens=40, temperature=1.0, seed=3)
    text = _text(steps)
    marked = [s for s in steps if s.boosted]
    assert marked, text
    fact_words = {"Buck", "Thornton", "John"}
    for s in marked:                       # a marked token is a fact word, standing alone in the text
        assert s.piece.strip() in fact_words
        at = text.index(s.piece, sum(len(t.piece) for t in steps[:steps.index(s)]))
        after = text[at + len(s.piece):at + len(s.piece) + 1]
        assert not after.isalnum(), f"{s.piece!r} is glued into {text[at:at + 12]!r}"
    html = overlay_html(token_dicts(steps))
    assert html.count("<mark") == len(marked)


def test_steering_off_is_plain_sampling_token_for_token() -> None:
    lm = TinyLocalLLM(walking_table())
    trie = KnowledgeTrie.build([("the dog", "followed", "Buck")])
    params = KidParams(steps=0, seed=11, max_tokens=30, temperature=1.0, top_k=3)
    ids = lm.encode("The dog went home and the man")
    memory = EntityMemory(2)
    memory.add("dog")
    kid = [s.token_id for s in kid_decode(lm.model, lm.tokenizer, ids, params, trie, memory)]
    generator, seq, plain = torch.Generator().manual_seed(11), list(ids), []
    for _ in range(params.max_tokens):
        logits = lm.model(torch.tensor([seq])).logits[0, -1]
        logits = ban_repeated_ngrams(logits, seq, params.no_repeat) / params.temperature
        index, probs = candidates(logits, params.top_k, params.top_p)
        token = int(index[torch.multinomial(probs, 1, generator=generator)])
        seq.append(token)
        plain.append(token)
    assert kid == plain


def test_a_stopped_run_ends_on_a_whole_word() -> None:
    table = {" loved": {" Thorn": 3.0}, " Thorn": {"y": 4.0, "ton": 1.0}, "ton": {" said": 3.0}}
    lm = TinyLocalLLM(table)
    lm.tokenizer.pieces[lm.tokenizer.pieces.index(" Thornton")] = " Thornton\x00"
    trie = KnowledgeTrie.build([("Buck", "loved", "John Thornton")])
    memory = EntityMemory(2)
    memory.add("Buck")
    asked = iter([False, True, True, True])   # stop asked right after " Thorn"
    steps = list(kid_decode(lm.model, lm.tokenizer, lm.encode("Buck loved"), KidParams(temperature=0, max_tokens=9),
                            trie, memory, should_stop=lambda: next(asked)))
    assert _text(steps) == " Thornton"


def test_byte_level_and_sentencepiece_spellings_of_word_starts() -> None:
    from core.write.kid.decode import glues
    assert glues("led") and glues("ton") and glues("7")
    assert not glues("\u0120buck") and not glues("\u010a") and not glues("\u2581buck") and not glues(",")
    assert not glues("'s") and not glues("<eos>") and not glues("")
