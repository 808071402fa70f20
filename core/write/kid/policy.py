"""The two ways KID moves the next-token distribution toward the knowledge demonstrations.

(a) `LogitsPolicy`: the paper's Algorithm 1 on the next-token distribution. pi* starts as the LM's pi; K Adam steps
    ascend J = sum_v w_v log pi*(v) - beta KL(pi || pi*) (w_v = pi*(v)/pi(v), the importance weight of eq. 3, held
    fixed within a step); beta adapts toward the target divergence sigma (x2 when KL >= 2 sigma, /2 when KL <=
    sigma/2) and carries over to the next token. A trust region then guarantees KL(pi || pi*) <= kl_bound by pulling
    the logits back toward the LM's along the straight line (bisection).
(b) `perturb_kv`: the released code's PPLM-style update of the key/value cache: kid_steps gradient steps on the
    cache of the context (step_size, gradient normalized by its norm ** gamma) against -log sum p(demos) +
    kl_scale KL(p_pert || p_LM); the final distribution mixes p_KID^0.99 * p_LM^0.01.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch


def kl(log_p: torch.Tensor, log_q: torch.Tensor) -> torch.Tensor:
    """KL(p || q) for log-probability vectors."""
    return torch.sum(log_p.exp() * (log_p - log_q))


def demo_mass(logits: torch.Tensor, targets: Sequence[int]) -> float:
    return float(torch.softmax(logits.float(), -1)[list(targets)].sum())


@dataclass
class LogitsPolicy:
    """Algorithm 1 (trie-constrained policy gradient). `beta` is state: it adapts from token to token."""

    steps: int = 3
    lr: float = 0.3
    sigma: float = 0.02
    kl_bound: float = 0.04          # the trust region: 2 sigma, where Algorithm 1 starts doubling beta
    beta: float = 1.0
    last_kl: float = 0.0

    def update(self, logits: torch.Tensor, targets: Sequence[int]) -> torch.Tensor:
        """Logits of pi*, the policy moved toward `targets` within KL(pi || pi*) <= kl_bound.

        The gradient of the loss -(r_t - beta KL(pi || pi*)) in the logits z is written out (no autograd: on a
        262k vocabulary the backward pass cost more than the step itself): with p* = softmax(z) and the weights w
        held fixed, d r_t / dz = (w e_idx - (sum w) p*) / |idx| and d KL / dz = p* - pi. The Adam step is
        torch.optim.Adam's (betas 0.9 / 0.999, eps 1e-8), so the result equals the autograd version up to float
        rounding (tests/unit/test_kid_policy.py keeps that version as the reference)."""
        if not targets or self.steps < 1 or self.lr <= 0:
            return logits
        idx = torch.tensor(sorted(set(targets)))
        base = logits.detach().float()
        log_pi = torch.log_softmax(base, -1)
        pi = log_pi.exp()
        z = base.clone()
        m, v = torch.zeros_like(z), torch.zeros_like(z)
        beta1, beta2, eps = 0.9, 0.999, 1e-8
        log_star = log_pi
        d = 0.0
        for t in range(1, self.steps + 1):
            # importance weight pi*/pi of eq. 3, fixed for this step (off-policy correction)
            weight = (log_star[idx] - log_pi[idx]).exp()
            # gradient of the loss -(gain - beta KL), gain = sum(w log pi*[idx]) / |idx|: (beta + mean w) p* - beta pi
            # (in place, on a fresh p*: each pass over a 262k vocabulary costs about 0.1 ms)
            grad = log_star.exp().mul_(self.beta + float(weight.sum()) / len(idx)).sub_(pi, alpha=self.beta)
            grad[idx] -= weight / len(idx)
            m.lerp_(grad, 1 - beta1)
            v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = v.sqrt().div_((1 - beta2 ** t) ** 0.5).add_(eps)
            z.addcdiv_(m, denom, value=-self.lr / (1 - beta1 ** t))
            # adaptive beta: keep the divergence near sigma
            log_star = torch.log_softmax(z, -1)
            d = float(torch.dot(pi, log_pi - log_star))
            if d >= 2 * self.sigma:
                self.beta *= 2
            elif d <= self.sigma / 2:
                self.beta /= 2
        if d <= self.kl_bound - 1e-5:   # clearly within bound (float32 rounding is ~1e-6): no trust region needed
            self.last_kl = d
            return z
        return self._trust_region(base, z, pi, log_pi)

    def _trust_region(self, base: torch.Tensor, moved: torch.Tensor, pi: torch.Tensor,
                      log_pi: torch.Tensor) -> torch.Tensor:
        """The largest step from `base` toward `moved` whose KL is within bound: base + t d, d = moved - base.

        Along that line f(t) = KL(pi || pi*) = sum pi log pi - sum pi base - t sum pi d + sum pi logsumexp(base + t d)
        is convex, with f(0) = 0 and f'(t) = -sum pi d + sum pi * E_softmax(base + t d)[d]. Where f(1) passes the
        bound it crosses it once in (0, 1): Newton's steps from t = 1 come down to the crossing from above (a convex
        function lies above its tangents) and the chord from 0 to the last of them crosses the bound below it (and
        lies above the function), so that point is within bound and within about 1e-6 of the crossing, in 4-6
        steps instead of the 20 trials of a bisection (each a pass or two over a 49k-262k vocabulary)."""
        step = moved - base
        # in double (the terms nearly cancel), as dot products: a double torch.sum of a product takes 2 ms on 262k
        pi64 = pi.double()
        const = float(torch.dot(pi64, (log_pi - base).double()))
        slope = float(torch.dot(pi64, step.double()))
        mass = float(pi64.sum())   # 1, but for rounding (1e-4 over 262k float32 terms): as kl() sums

        def divergence(t: float, gradient: bool = False) -> tuple[float, float]:
            x = base + t * step
            lse = torch.logsumexp(x, -1)
            value = const - t * slope + mass * float(lse)
            if not gradient:
                return value, 0.0
            return value, -slope + mass * float(torch.dot(torch.exp(x - lse), step))

        full, _ = divergence(1.0)
        if full <= self.kl_bound:
            self.last_kl = full
            return moved
        at_zero, _ = divergence(0.0)
        high, above = 1.0, full
        for _ in range(30):
            above, rise = divergence(high, gradient=True)
            if above - self.kl_bound <= 1e-9 or rise <= 0:
                break
            nearer = high - (above - self.kl_bound) / rise
            if not 0 < nearer < high or high - nearer < 1e-9:
                break
            high = nearer
        t = high * (self.kl_bound - at_zero) / (above - at_zero) if above > self.kl_bound else high
        t = min(max(t, 0.0), high)
        self.last_kl = divergence(t)[0]
        return base + t * step


@dataclass(frozen=True)
class KvSettings:
    steps: int = 3
    step_size: float = 0.01
    kl_scale: float = 0.01
    gamma: float = 1.5
    mix: float = 0.99               # p = p_KID^mix * p_LM^(1 - mix)


def perturb_kv(model: Any, past: Sequence[tuple[torch.Tensor, torch.Tensor]], last_id: int, logits: torch.Tensor,
               targets: Sequence[int], settings: KvSettings = KvSettings()) -> torch.Tensor:
    """Logits after the released code's KV-cache perturbation. `past` is the cache of the context without its last
    token `last_id`; `logits` are the unperturbed next-token logits (the LM's)."""
    from transformers import DynamicCache
    if not targets or settings.steps < 1:
        return logits
    idx = torch.tensor(sorted(set(targets)))
    log_lm = torch.log_softmax(logits.detach().float(), -1)
    deltas = [(torch.zeros_like(k, requires_grad=True), torch.zeros_like(v, requires_grad=True)) for k, v in past]
    ids = torch.tensor([[last_id]])

    def forward() -> torch.Tensor:
        cache = DynamicCache(ddp_cache_data=[(k + dk, v + dv) for (k, v), (dk, dv) in zip(past, deltas)])
        return torch.log_softmax(model(input_ids=ids, past_key_values=cache, use_cache=True).logits[0, -1].float(), -1)

    with torch.enable_grad():
        for _ in range(settings.steps):
            log_p = forward()
            # attribute loss toward the demonstrations, plus the KL that keeps p near the LM's
            loss = -torch.logsumexp(log_p[idx], 0) + settings.kl_scale * kl(log_p, log_lm)
            flat = [t for pair in deltas for t in pair]
            grads = torch.autograd.grad(loss, flat)
            with torch.no_grad():
                for t, g in zip(flat, grads):
                    t -= settings.step_size * g / (g.norm() + 1e-15) ** settings.gamma
    with torch.no_grad():
        log_kid = forward()
    # final mix p_KID^0.99 * p_LM^0.01, as log-probabilities (renormalized by the sampler's softmax)
    return settings.mix * log_kid + (1 - settings.mix) * log_lm
