"""Knowledge Infused Decoding on the book's own graph: plain sampling vs kg-prompt vs KID (logits, kv).

Contexts are cut from chapter ends of a few novels (its last paragraphs, >= 200 words, of chapter c, c >= 2, continued into what
would be the next chapter). The knowledge is the book's offline KG (kg_service.build_graph on a temporary SQLite
file), restricted to chapters <= c; the top 5 facts by SBERT cosine to the context's last paragraph are the
retrieved knowledge for every method. All four methods use the same explicit loop (core.write.kid.decode) with the
same seed, top-k 20, top-p 0.92, no-repeat 2-grams, temperature 1; plain, kg-prompt and kid-logits read the fast
runtime's logits (OpenVINO by default, llama.cpp else; transformers only where neither serves), kid-kv the
transformers model (its update needs gradients through the key/value cache):
  plain       the context; no steering
  kg-prompt   the same facts verbalized and inserted before the last paragraph (Andrus et al.); no steering
  kid-logits  the context; Algorithm 1 on the next-token distribution (K=3 Adam steps, sigma 0.02, KL trust region)
  kid-kv      the context; the released code's KV-cache perturbation (3 steps, 0.01, kl 0.01, gamma 1.5, mix .99)
  plain-app   the context, continued by the app's own plain path (generate_text on the serving runtime, OpenVINO by
              default, with its loop guard and its own sampler): what a plain continuation costs a user
Metrics per output: Cov = share of the retrieved facts' distinct content-word stems that occur in the output (the
paper's knowledge coverage, unigram overlap); perplexity of the output under the plain model given the plain
context; distinct-2 over word bigrams; seconds per generated token (tokens/s of each method beside plain's, same run).
Steered words (issue 37): each run of tokens KID marked, as the word it sits in; "whole" when the marked tokens are
that word (no letters glued on either side: not "buck" in "buckled"), "fact" when the word is a noun or a name (spaCy
on the output) and no stop word; the share of marked words that are both.

    .venv/bin/python bench/kid.py                          # 6 contexts x 24 tokens, ~9 min on 2 busy cores
    .venv/bin/python bench/kid.py --per-novel 1 --tokens 16 --novels a_christmas_carol_pg46
    .venv/bin/python bench/kid.py --methods plain kid-logits --out kid_wholewords   # issue 37: steered words
"""
from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import table, write_results

from core.llm import get_llm
from core.nlp import embed
from core.services.kg_query import facts_for_retrieval
from core.services.kg_service import build_graph
from core.services.library import import_book
from core.write import ContinuationRequest, ContinueParams, FactPool, get_mode
from core.write.kid import KidMode, KidParams, stem
from core.write.kid.trie import content_words
from core.write.modes import PreparedPrompt, verbalize

NOVELS_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "novels" / "txt"
DEFAULT_NOVELS = ("a_christmas_carol_pg46", "the_time_machine_pg35", "alice_in_wonderland_pg11")
METHODS = ("plain", "kg-prompt", "kid-logits", "kid-kv", "plain-app")
CONTEXT_WORDS = 200


def coverage(output: str, facts: list[str]) -> float:
    wanted = {stem(w) for f in facts for w in content_words(f)}
    got = {stem(w) for w in content_words(output)}
    return len(wanted & got) / len(wanted) if wanted else 0.0


def distinct_2(text: str) -> float:
    toks = text.lower().split()
    grams = list(zip(toks, toks[1:]))
    return len(set(grams)) / len(grams) if grams else 0.0


def steered_words(steps: list[Any]) -> list[dict[str, Any]]:
    """The words KID marked in one output: each run of marked tokens with the word around it, whether the marked
    tokens are exactly that word ("whole") and whether the word carries a fact ("fact": a noun or a name, no stop
    word, by spaCy on the output)."""
    from core.nlp import load_spacy
    from core.stopwords import ENGLISH
    text = "".join(s.piece for s in steps)
    spans, at, start = [], 0, None
    for s in steps + [None]:
        marked = s is not None and s.fact is not None and s.p_after > s.p_before
        if marked and start is None:
            start = at
        if not marked and start is not None:
            spans.append((start, at))
            start = None
        at += len(s.piece) if s is not None else 0
    doc = load_spacy()(text) if spans else None
    out = []
    for a, b in spans:
        a2 = a + len(text[a:b]) - len(text[a:b].lstrip())
        left, right = a2, b
        while left > 0 and text[left - 1].isalpha():
            left -= 1
        while right < len(text) and text[right].isalpha():
            right += 1
        word = text[left:right].strip()
        tags = {t.pos_ for t in doc if t.idx < right and t.idx + len(t) > left} if doc is not None else set()
        out.append({"marked": text[a:b], "word": word, "whole": (left, right) == (a2, b),
                    "fact": bool(tags & {"NOUN", "PROPN"}) and word.lower() not in ENGLISH})
    return out


def perplexity(llm: Any, prompt: str, output: str) -> float:
    if not output.strip():
        return float("nan")
    scored = llm.token_logprobs(prompt, output)
    return math.exp(-sum(t.logprob for t in scored) / len(scored))


def book_contexts(novel: str, workdir: Path, per_novel: int, rng: random.Random) -> list[dict[str, Any]]:
    """(chapter, context, fact pool up to that chapter) at `per_novel` chapter ends of the book."""
    from storage.repository import SqlStore
    store = SqlStore.from_url(f"sqlite:///{workdir / (novel + '.db')}")
    path = NOVELS_DIR / f"{novel}.txt"
    work = import_book(store, path.name, path.read_bytes())
    build_graph(store, work.id)
    chapters = [c.index for c in store.list_chapters(work.id) if c.index >= 2]
    out = []
    for index in sorted(rng.sample(chapters[:-1], max(0, min(per_novel, len(chapters) - 1)))):
        paras = [" ".join(p.split()) for p in store.get_chapter(work.id, index).text.split("\n\n") if p.strip()]
        kept: list[str] = []
        while paras and sum(len(p.split()) for p in kept) < CONTEXT_WORDS:
            kept.insert(0, paras.pop())
        context = "\n\n".join(kept)
        triples: dict[str, tuple[str, str, str]] = {}
        for f in facts_for_retrieval(store, work.id, index):  # as continuation_service.fact_pool: the text and its triple
            if text := verbalize(f.subject, f.relation, f.object):
                triples.setdefault(text, (f.subject, f.relation, f.object))
        texts = list(triples)
        pool = FactPool(texts, embed(texts))
        pool.triples = list(triples.values())  # set after: the same script runs on code whose pool has no triples
        out.append({"novel": novel, "chapter": index, "context": context, "pool": pool})
    store.engine.dispose()
    return out


def run_methods(llm: Any, ctx: dict[str, Any], tokens: int, seed: int, methods: tuple[str, ...] = METHODS,
                kl_max: float = KidParams.kl_max) -> list[dict[str, Any]]:
    params = ContinueParams(mode="kid", budget_tokens=400, facts=5)
    request = ContinuationRequest(ctx["context"], params, llm.count_tokens, facts=lambda: ctx["pool"], embed=embed)
    base = KidParams(max_tokens=tokens, seed=seed, kl_max=kl_max)
    prepared = KidMode(base).prepare(request)
    facts = [f["text"] for f in prepared.facts]
    kg_prompt = get_mode("kg-prompt").prepare(ContinuationRequest(
        ctx["context"], ContinueParams(mode="kg-prompt", budget_tokens=400, facts=5), llm.count_tokens,
        facts=lambda: ctx["pool"], embed=embed)).prompt
    runs = {"plain": (KidParams(max_tokens=tokens, seed=seed, steps=0), prepared),
            "kg-prompt": (KidParams(max_tokens=tokens, seed=seed, steps=0), PreparedPrompt(kg_prompt, [])),
            "kid-logits": (base, prepared),
            "kid-kv": (KidParams(max_tokens=tokens, seed=seed, variant="kv"), prepared)}
    # read the prompt once before any method is timed: each then finds it cached (the runtime keeps the prefix), so
    # the time per token compares the decoding loops, not which method ran first
    KidMode(KidParams(max_tokens=1, seed=seed, steps=0)).run(llm, prepared)
    rows = []
    for method in methods:
        if method == "plain-app":
            rows.append(_plain_app(llm, ctx, prepared, tokens, seed, facts))
            continue
        kid_params, prep = runs[method]
        result = KidMode(kid_params).run(llm, prep)
        rows.append({"novel": ctx["novel"], "chapter": ctx["chapter"], "method": method, "text": result.text,
                     "tokens": len(result.steps), "seconds": result.seconds,
                     "cov": coverage(result.text, facts), "ppl": perplexity(llm, prepared.prompt, result.text),
                     "distinct2": distinct_2(result.text), "boosted": len(result.boosted), "facts": facts,
                     "steered": steered_words(result.steps)})
    return rows


def _plain_app(llm: Any, ctx: dict[str, Any], prepared: PreparedPrompt, tokens: int, seed: int,
               facts: list[str]) -> dict[str, Any]:
    done = llm.generate_text(prepared.prompt, temperature=1.0, top_p=0.92, max_tokens=tokens, seed=seed,
                             min_tokens=tokens)
    return {"novel": ctx["novel"], "chapter": ctx["chapter"], "method": "plain-app", "text": done.text,
            "tokens": done.output_tokens, "seconds": done.seconds, "cov": coverage(done.text, facts),
            "ppl": perplexity(llm, prepared.prompt, done.text), "distinct2": distinct_2(done.text), "boosted": 0,
            "facts": facts, "steered": [], "runtime": llm.runtime}


def summarize(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for method in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == method]
        ppl = [r["ppl"] for r in mine if not math.isnan(r["ppl"])]
        out.append({"method": method, "n": len(mine), "cov": statistics.mean(r["cov"] for r in mine),
                    "ppl_median": statistics.median(ppl) if ppl else float("nan"),
                    "distinct2": statistics.mean(r["distinct2"] for r in mine),
                    "s_per_token": sum(r["seconds"] for r in mine) / max(1, sum(r["tokens"] for r in mine)),
                    "boosted_tokens": sum(r["boosted"] for r in mine)})
        words = [w for r in mine for w in r["steered"]]
        out[-1] |= {"tokens_per_s": 1 / out[-1]["s_per_token"] if out[-1]["s_per_token"] else float("nan"),
                    "steered_words": len(words),
                    "whole_share": sum(w["whole"] for w in words) / len(words) if words else float("nan"),
                    "whole_fact_share": sum(w["whole"] and w["fact"] for w in words) / len(words) if words
                    else float("nan")}
    plain = out[0]
    for row in out:
        row["cov_x_plain"] = row["cov"] / plain["cov"] if plain["cov"] else float("nan")
        row["ppl_x_plain"] = row["ppl_median"] / plain["ppl_median"]
        row["time_x_plain"] = row["s_per_token"] / plain["s_per_token"]
        row["speed_x_plain"] = plain["s_per_token"] / row["s_per_token"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--novels", nargs="+", default=list(DEFAULT_NOVELS))
    ap.add_argument("--per-novel", type=int, default=2)
    ap.add_argument("--tokens", type=int, default=24)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS), help="plain first")
    ap.add_argument("--kl-max", type=float, default=KidParams.kl_max, help="KID logits trust region")
    ap.add_argument("--out", default="kid", help="results file name (bench/results/OUT.json)")
    ap.add_argument("--llm", default="local:smollm2", help="an embedded model (KID needs its logits)")
    args = ap.parse_args()
    started = time.perf_counter()
    llm = get_llm(args.llm)
    rng = random.Random(args.seed)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        contexts = [c for novel in args.novels for c in book_contexts(novel, Path(tmp), args.per_novel, rng)]
    for i, ctx in enumerate(contexts):
        rows += run_methods(llm, ctx, args.tokens, args.seed + i, tuple(args.methods), args.kl_max)
        print(f"context {i + 1}/{len(contexts)} done ({time.perf_counter() - started:.0f} s)", flush=True)
    summary = summarize(rows)
    print(table(summary, ["method", "n", "cov", "cov_x_plain", "ppl_median", "ppl_x_plain", "distinct2",
                          "s_per_token", "tokens_per_s", "speed_x_plain", "boosted_tokens", "steered_words",
                          "whole_share", "whole_fact_share"]))
    print(f"load average at the end: {os.getloadavg()}")
    write_results(args.out, {"llm": args.llm, "novels": args.novels, "per_novel": args.per_novel,
                          "tokens": args.tokens, "seed": args.seed, "kl_max": args.kl_max, "summary": summary,
                          "rows": rows,
                          "command": f".venv/bin/python bench/kid.py --per-novel {args.per_novel} --tokens "
                                     f"{args.tokens} --novels {' '.join(args.novels)} --methods {' '.join(args.methods)} "
                                     f"--kl-max {args.kl_max} --out {args.out} --llm {args.llm}",
                          "seconds": round(time.perf_counter() - started, 1), "load_avg_end": os.getloadavg()})


if __name__ == "__main__":
    main()
