"""KID's decoding pieces without a model: Algorithm 1's update and its trust region, filters, params, overlay."""
from __future__ import annotations

import pytest
import torch

from core.write.kid import KidParams
from core.write.kid.decode import ban_repeated_ngrams, top_k_top_p
from core.write.kid.overlay import overlay_html
from core.write.kid.policy import LogitsPolicy, demo_mass, kl


def logits_and_targets() -> tuple[torch.Tensor, list[int]]:
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(5000, generator=g) * 3
    targets = torch.argsort(logits)[2000:2003].tolist()      # mid-probability tokens
    return logits, targets


def test_update_raises_demonstration_mass_within_the_kl_bound() -> None:
    logits, targets = logits_and_targets()
    policy = LogitsPolicy(steps=3, lr=0.3, sigma=0.02, kl_bound=0.04)
    moved = policy.update(logits, targets)
    assert demo_mass(moved, targets) > 3 * demo_mass(logits, targets)
    divergence = float(kl(torch.log_softmax(logits, -1), torch.log_softmax(moved, -1)))
    assert 0 < divergence <= 0.04 + 1e-6
    assert policy.last_kl == pytest.approx(divergence, abs=1e-5)


def test_trust_region_binds_when_the_steps_are_large() -> None:
    logits, targets = logits_and_targets()
    free = LogitsPolicy(steps=3, lr=5.0, kl_bound=1e9).update(logits, targets)
    assert float(kl(torch.log_softmax(logits, -1), torch.log_softmax(free, -1))) > 0.04   # it would leave the region
    bound = LogitsPolicy(steps=3, lr=5.0, kl_bound=0.04).update(logits, targets)
    assert float(kl(torch.log_softmax(logits, -1), torch.log_softmax(bound, -1))) <= 0.04 + 1e-6
    assert demo_mass(bound, targets) > demo_mass(logits, targets)


def test_beta_adapts_toward_sigma() -> None:
    logits, targets = logits_and_targets()
    policy = LogitsPolicy(steps=3, lr=5.0, sigma=0.02, kl_bound=1e9, beta=1.0)
    policy.update(logits, targets)
    assert policy.beta > 1.0                        # far beyond 2 sigma: the KL penalty doubles
    quiet = LogitsPolicy(steps=3, lr=1e-4, sigma=0.02, beta=1.0)
    quiet.update(logits, targets)
    assert quiet.beta < 1.0                         # far below sigma / 2: it halves


def test_no_update_without_targets_or_steps() -> None:
    logits, targets = logits_and_targets()
    assert torch.equal(LogitsPolicy().update(logits, []), logits)
    assert torch.equal(LogitsPolicy(steps=0).update(logits, targets), logits)


def test_no_repeat_ban_blocks_only_completed_ngrams() -> None:
    logits = torch.zeros(10)
    ids = [1, 2, 3, 1]                     # bigram (1, 2) was seen: after 1, token 2 is banned
    banned = ban_repeated_ngrams(logits, ids, 2)
    assert torch.isinf(banned[2]) and int(torch.isinf(banned).sum()) == 1
    assert not torch.isinf(ban_repeated_ngrams(logits, [1, 2, 3, 4], 2)).any()
    assert not torch.isinf(ban_repeated_ngrams(logits, ids, 0)).any()


def test_top_k_then_top_p() -> None:
    logits = torch.log(torch.tensor([0.5, 0.3, 0.1, 0.06, 0.04]))
    kept = ~torch.isinf(top_k_top_p(logits, 3, 1.0))
    assert kept.tolist() == [True, True, True, False, False]
    kept = ~torch.isinf(top_k_top_p(logits, 0, 0.75))
    assert kept.tolist() == [True, True, False, False, False]


def test_params_are_validated() -> None:
    assert not KidParams(steps=0).steering and KidParams().steering
    with pytest.raises(ValueError):
        KidParams(variant="beam")
    with pytest.raises(ValueError):
        KidParams(top_p=0)


def test_overlay_escapes_every_token_and_marks_boosted_ones() -> None:
    out = overlay_html([{"token": "<b>Hi</b>"},
                        {"token": " Darcy", "p_before": 0.01, "p_after": 0.2, "fact": 'Darcy "owns" <Pemberley>'},
                        {"token": " x", "p_before": 0.3, "p_after": 0.2, "fact": "lowered"}])
    assert "<b>" not in out and "&lt;b&gt;Hi&lt;/b&gt;" in out
    assert out.count("<mark") == 1 and 'title="Darcy &quot;owns&quot; &lt;Pemberley&gt; (p 0.010 -&gt; 0.200)"' in out


class _Tokenizer:
    """Whole words as fixed sub-token sequences: " Scrooge" = [1, 2, 3], " Scuffle" = [1, 4], " ghost" = [5]."""

    SEQS = {" Scrooge": [1, 2, 3], " Scuffle": [1, 4], " ghost": [5]}

    def __call__(self, text: str, add_special_tokens: bool = False) -> dict[str, list[int]]:
        return {"input_ids": self.SEQS.get(text, [100 + len(text)])}   # other words: one token


def test_demonstrations_are_the_first_sub_tokens_of_whole_fact_words() -> None:
    from core.write.kid import EntityMemory, KnowledgeTrie
    from core.write.kid.decode import Target, WordTokens, demonstrations
    trie = KnowledgeTrie.build([("Marley", "haunts", "Scrooge"), ("Marley", "is", "a ghost"),
                                ("Marley", "feared", "Scuffle")])
    memory = EntityMemory(2)
    memory.add("Marley")
    targets = demonstrations(trie, memory, 1, WordTokens(_Tokenizer()))
    assert set(targets) == {1, 5}     # " Sc" (Scrooge, the nearer of the two words it starts) and " ghost": word starts
    assert targets[1] == Target("Scrooge", "Marley haunts Scrooge")   # only; "ro" and "oge" are never steered alone


def autograd_update(policy: LogitsPolicy, logits: torch.Tensor, targets: list[int]) -> torch.Tensor:
    """Algorithm 1 as first written (autograd through log_softmax, torch.optim.Adam, KL by its definition in the
    bisection): the reference the closed-form update must equal up to float rounding."""
    idx = torch.tensor(sorted(set(targets)))
    base = logits.detach().float()
    log_pi = torch.log_softmax(base, -1)
    z = base.clone().requires_grad_(True)
    opt = torch.optim.Adam([z], lr=policy.lr)
    with torch.enable_grad():
        for _ in range(policy.steps):
            log_star = torch.log_softmax(z, -1)
            weight = (log_star[idx] - log_pi[idx]).detach().exp()
            loss = -(torch.sum(weight * log_star[idx]) / len(idx) - policy.beta * kl(log_pi, log_star))
            opt.zero_grad()
            loss.backward()
            opt.step()
            d = float(kl(log_pi, torch.log_softmax(z.detach(), -1)))
            policy.beta = policy.beta * 2 if d >= 2 * policy.sigma else policy.beta / 2 if d <= policy.sigma / 2 \
                else policy.beta
    moved = z.detach()

    def divergence(t: float) -> float:
        return float(kl(log_pi, torch.log_softmax(base + t * (moved - base), -1)))

    if divergence(1.0) <= policy.kl_bound:
        return moved
    low, high = 0.0, 1.0
    for _ in range(20):
        mid = (low + high) / 2
        low, high = (mid, high) if divergence(mid) <= policy.kl_bound else (low, mid)
    return base + low * (moved - base)


@pytest.mark.parametrize(("size", "lr", "kl_bound", "beta"), [(5000, 0.3, 0.04, 1.0), (5000, 5.0, 0.04, 1.0),
                                                              (49152, 0.5, 0.1, 0.25), (262144, 0.5, 0.1, 4.0),
                                                              (5000, 5.0, 1e9, 1.0)])
def test_closed_form_update_equals_the_autograd_one(size: int, lr: float, kl_bound: float, beta: float) -> None:
    g = torch.Generator().manual_seed(size)
    logits = torch.randn(size, generator=g) * 3
    targets = torch.argsort(logits)[size // 2:size // 2 + 4].tolist() + [int(torch.argmax(logits))]
    for _ in range(3):   # beta carries over from token to token: three tokens in a row
        fast = LogitsPolicy(steps=3, lr=lr, sigma=0.02, kl_bound=kl_bound, beta=beta)
        ref = LogitsPolicy(steps=3, lr=lr, sigma=0.02, kl_bound=kl_bound, beta=beta)
        moved, expected = fast.update(logits, targets), autograd_update(ref, logits, targets)
        assert fast.beta == ref.beta
        # float rounding: Adam divides each gradient by its own size, and the bisection may decide a KL within 1e-6
        # of the bound the other way; the distributions agree to a KL of 1e-6
        log_moved, log_expected = torch.log_softmax(moved, -1), torch.log_softmax(expected, -1)
        assert abs(float(kl(log_expected, log_moved))) < 1e-6
        assert float((log_moved.exp() - log_expected.exp()).abs().max()) < 5e-5
        assert abs(fast.last_kl - float(kl(torch.log_softmax(logits, -1), log_moved))) < 2e-5
        beta = fast.beta
        logits = logits.roll(7)
