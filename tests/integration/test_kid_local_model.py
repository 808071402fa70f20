"""KID on the real local model (SmolLM2-135M), a few tokens each: with steering off the loop is plain decoding token
for token; the same seed gives the same text; both policy updates raise the demonstrations' probability mass."""
from __future__ import annotations

import pytest
import torch

from core.llm.local import LocalLLM
from core.write.kid import EntityMemory, KidMode, KidParams, KnowledgeTrie
from core.write.kid.decode import ban_repeated_ngrams, candidates, kid_decode
from core.write.kid.policy import KvSettings, LogitsPolicy, demo_mass, kl, perturb_kv
from core.write.modes import PreparedPrompt

pytestmark = pytest.mark.slow
PROMPT = "Elizabeth walked into the drawing room at Longbourn. Mr Darcy stood by the window, and"
FACTS = [{"text": "Darcy owns Pemberley.", "score": 1.0}, {"text": "Darcy loves Elizabeth Bennet.", "score": 0.9}]
TRIE = KnowledgeTrie.build([("Darcy", "owns", "Pemberley"), ("Darcy", "loves", "Elizabeth Bennet")])


@pytest.fixture(scope="module")
def smollm2() -> LocalLLM:
    from tests.conftest import MODEL_CACHE
    llm = LocalLLM("smollm2", cache_dir=MODEL_CACHE)
    llm.load()
    return llm


def prompt_ids(llm: LocalLLM) -> list[int]:
    return llm.encode(PROMPT)


def plain_loop(model, ids: list[int], params: KidParams) -> list[int]:  # noqa: ANN001
    """The reference: no cache, the whole sequence re-read every step, same filters and generator."""
    generator = torch.Generator().manual_seed(params.seed)
    ids = list(ids)
    out = []
    with torch.no_grad():
        for _ in range(params.max_tokens):
            logits = model(input_ids=torch.tensor([ids])).logits[0, -1].float()
            logits = ban_repeated_ngrams(logits, ids, params.no_repeat) / params.temperature
            index, probs = candidates(logits, params.top_k, params.top_p)
            token = int(index[torch.multinomial(probs, 1, generator=generator)])
            ids.append(token)
            out.append(token)
    return out


def test_steering_off_is_plain_sampling_token_for_token(smollm2: LocalLLM) -> None:
    params = KidParams(steps=0, seed=11, max_tokens=10)
    memory = EntityMemory(params.hops)
    memory.add("Darcy")
    kid = [s.token_id for s in kid_decode(smollm2.model, smollm2.tokenizer, prompt_ids(smollm2), params, TRIE,
                                          memory)]
    assert kid == plain_loop(smollm2.model, prompt_ids(smollm2), params)


def test_greedy_without_steering_equals_model_generate(smollm2: LocalLLM) -> None:
    params = KidParams(steps=0, temperature=0, no_repeat=2, max_tokens=10)
    kid = [s.token_id for s in kid_decode(smollm2.model, smollm2.tokenizer, prompt_ids(smollm2), params)]
    ids = torch.tensor([prompt_ids(smollm2)])
    with torch.no_grad():
        ref = smollm2.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=10,
                                     do_sample=False, no_repeat_ngram_size=2, pad_token_id=0, eos_token_id=None)
    assert kid == ref[0, ids.shape[1]:].tolist()


def test_same_seed_same_text_and_boosts_are_recorded(smollm2: LocalLLM) -> None:
    prepared = PreparedPrompt(PROMPT, FACTS)
    first = KidMode(KidParams(seed=5, max_tokens=8)).run(smollm2, prepared)
    again = KidMode(KidParams(seed=5, max_tokens=8)).run(smollm2, prepared)
    assert first.text == again.text and [s.token_id for s in first.steps] == [s.token_id for s in again.steps]
    assert len(first.steps) == 8
    assert all(b["p_after"] > b["p_before"] and b["fact"] in {"Darcy owns Pemberley", "Darcy loves Elizabeth "
                                                                 "Bennet"} for b in first.boosted)


def test_both_updates_raise_demonstration_mass_on_real_logits(smollm2: LocalLLM) -> None:
    from transformers import DynamicCache
    ids = prompt_ids(smollm2)
    targets = [smollm2.encode(" Pemberley", add_special_tokens=False)[0],
               smollm2.encode(" loves", add_special_tokens=False)[0]]
    cache = DynamicCache()
    with torch.no_grad():
        smollm2.model(input_ids=torch.tensor([ids[:-1]]), past_key_values=cache, use_cache=True)
        past = [(layer.keys, layer.values) for layer in cache.layers]
        logits = smollm2.model(input_ids=torch.tensor([ids[-1:]]), past_key_values=cache).logits[0, -1].float()
    policy = LogitsPolicy(steps=3, lr=0.5, sigma=0.02, kl_bound=0.25)
    moved = policy.update(logits, targets)
    assert demo_mass(moved, targets) > 1.5 * demo_mass(logits, targets)
    assert float(kl(torch.log_softmax(logits, -1), torch.log_softmax(moved, -1))) <= 0.25 + 1e-6
    perturbed = perturb_kv(smollm2.model, past, ids[-1], logits, targets, KvSettings())
    assert demo_mass(perturbed, targets) > demo_mass(logits, targets)


CAROL = [("One", "Marley was dead, to begin with. Scrooge signed the register of his burial.\n\n"
                 "Scrooge never painted out old Marley's name above the warehouse door."),
         ("Two", "The ghost of Marley came through the heavy door and looked at Scrooge.\n\nScrooge trembled.")]


def test_cli_continue_kid(store, monkeypatch: pytest.MonkeyPatch, capsys, smollm2: LocalLLM) -> None:  # noqa: ANN001
    import json

    import cli
    import cli_commands
    from core.domain import NewChapter, WorkKind
    from core.services.kg_service import build_graph
    monkeypatch.setattr(cli_commands, "_store", store)
    work_id = store.create_work("Carol", None, WorkKind.BOOK, {},
                                [NewChapter(t, x, x.split("\n\n")) for t, x in CAROL]).id
    build_graph(store, work_id)
    args = ["continue", str(work_id), "--mode", "kid", "--tokens", "6", "--seed", "3", "--llm", "local:smollm2",
            "--json"]
    assert cli.main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"text", "boosted", "facts", "seconds", "tokens_per_second"} and out["text"]
    assert out["facts"] and out["tokens_per_second"] > 0
    assert all(set(b) == {"token", "p_before", "p_after", "fact"} for b in out["boosted"])
    assert cli.main(args) == 0 and json.loads(capsys.readouterr().out)["text"] == out["text"]   # same seed
    assert cli.main(args[:-1]) == 0   # as text: the embedded model's draft is said to be one, beside it
    printed = capsys.readouterr()
    assert printed.out.strip() == out["text"].strip() and "read this as a rough draft" in printed.err
    assert cli.main(["continue", str(work_id), "--mode", "kid", "--llm", "fake:echo", "--tokens", "3"]) == 1
    assert "local model" in capsys.readouterr().err
