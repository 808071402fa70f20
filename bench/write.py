"""Story completion with and without knowledge-graph facts (Andrus et al., the perplexity test), and generation speed.

For a seeded sample of paragraph positions in a few novels (chapters >= 2), the default local model (core.config
Settings.llm) reads what precedes paragraph i+1 within a 1,000-token budget and we measure its perplexity of the
true paragraph i+1 (lower is better) under two prompts built by core.write's continuation modes:
  plain      the preceding text, its start cut to fit the budget
  kg-prompt  the top-3 facts by SBERT cosine to paragraph i (the last one in the prompt), template-verbalized and
             inserted before it; the preceding text is cut further so the prompt still fits the budget
Facts come from the book's offline KG (kg_service.build_graph on a temporary SQLite file), restricted to chapters
*before* the position's chapter, so no fact can be extracted from the paragraph being predicted.
Framing: the plain prompt is also scored as a chat asks it (the continuation instruction and the text in the
model's chat template, as the Write page asked every model until 2026-11-28; ppl_plain_chat, and raw_lower_share: the
positions where the raw text predicts the true paragraph better). The page now continues raw for the embedded models.
Then generation tokens/s of the same model: raw-text greedy decoding and chat streaming, 48 new tokens.

    .venv/bin/python bench/write.py                       # ~8 min on 2 busy cores; writes bench/results/write.json
    .venv/bin/python bench/write.py --per-novel 5 --novels a_christmas_carol_pg46
"""
from __future__ import annotations

import argparse
import math
import random
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import table, write_results

from core.config import get_settings
from core.llm import get_llm
from core.nlp import embed
from core.services.kg_query import facts_for_retrieval
from core.services.kg_service import build_graph
from core.services.library import import_book
from core.write import ContinuationRequest, ContinueParams, FactPool, get_mode
from core.write.modes import continue_messages, verbalize
from core.write.prompts import CONTINUE_USER

NOVELS_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "novels" / "txt"
DEFAULT_NOVELS = ("a_christmas_carol_pg46", "alice_in_wonderland_pg11", "the_call_of_the_wild_pg215")
_PARAGRAPHS = re.compile(r"\n[ \t]*\n\s*")
PLAIN_PROMPTS: list[str] = []  # the first few plain prompts, reused for the speed measurement


def positions(chapters: list[tuple[int, str]], per_novel: int, rng: random.Random) -> list[dict[str, Any]]:
    """Candidate (chapter, text before paragraph i+1, paragraph i, paragraph i+1) in chapters >= 2, sampled."""
    candidates = []
    for index, text in chapters:
        if index < 2:
            continue
        paras = [" ".join(p.split()) for p in _PARAGRAPHS.split(text) if p.strip()]
        for i in range(1, len(paras) - 1):
            if 20 <= len(paras[i + 1].split()) <= 120 and len(paras[i].split()) >= 10:
                candidates.append((index, i, paras))
    picked = rng.sample(candidates, min(per_novel, len(candidates)))
    out = []
    for index, i, paras in sorted(picked, key=lambda c: (c[0], c[1])):
        earlier = "\n\n".join(t for c, t in chapters if c < index)
        before = "\n\n".join(p for p in (earlier[-20000:], "\n\n".join(paras[:i + 1])) if p)
        out.append({"chapter": index, "before": before, "target": paras[i + 1]})
    return out


def paragraph_nll(llm: Any, prompt: str, target: str) -> tuple[float, int]:
    """Summed negative log-likelihood of `target`'s tokens after a paragraph break, and their number (the
    break's own white-space tokens are not counted)."""
    scored = llm.token_logprobs(prompt + "\n\n", target)
    while scored and not scored[0].token.strip():
        scored = scored[1:]
    return -sum(t.logprob for t in scored), len(scored)


def book_facts(novel: str, workdir: Path) -> tuple[list[tuple[int, str]], list[tuple[int, str]], Any, float]:
    """Chapters, (chapter, verbalized fact) pairs and their embeddings, and the graph build time."""
    from storage.repository import SqlStore
    store = SqlStore.from_url(f"sqlite:///{workdir / (novel + '.db')}")
    path = NOVELS_DIR / f"{novel}.txt"
    work = import_book(store, path.name, path.read_bytes())
    t0 = time.perf_counter()
    build_graph(store, work.id)
    built = time.perf_counter() - t0
    chapters = [(c.index, store.get_chapter(work.id, c.index).text) for c in store.list_chapters(work.id)]
    facts = {}
    for f in facts_for_retrieval(store, work.id):
        text = verbalize(f.subject, f.relation, f.object)
        if text and text not in facts:
            facts[text] = f.chapter
    pairs = [(ch, t) for t, ch in facts.items()]
    vectors = embed([t for _, t in pairs])
    store.engine.dispose()
    return chapters, pairs, vectors, built


def perplexity_rows(llm: Any, novels: list[str], per_novel: int, budget: int, seed: int) -> tuple[list, list]:
    rng = random.Random(seed)
    samples, rows = [], []
    params = {m: ContinueParams(mode=m, budget_tokens=budget, facts=3) for m in ("plain", "kg-prompt")}
    with tempfile.TemporaryDirectory() as tmp:
        for novel in novels:
            chapters, pairs, vectors, built = book_facts(novel, Path(tmp))
            for pos in positions(chapters, per_novel, rng):
                mask = [i for i, (ch, _) in enumerate(pairs) if ch < pos["chapter"]]
                pool = FactPool([pairs[i][1] for i in mask], vectors[mask])
                result: dict[str, Any] = {"novel": novel, "chapter": pos["chapter"]}
                for mode, p in params.items():
                    request = ContinuationRequest(pos["before"], p, llm.count_tokens, facts=lambda: pool, embed=embed)
                    prepared = get_mode(mode).prepare(request)
                    nll, n = paragraph_nll(llm, prepared.prompt, pos["target"])
                    if mode == "plain" and len(PLAIN_PROMPTS) < 3:
                        PLAIN_PROMPTS.append(prepared.prompt)
                    if mode == "plain":  # the same prompt asked in a chat, as a continuation used to be asked
                        chat = llm.format_prompt(continue_messages(prepared.prompt))
                        scored = llm.token_logprobs(chat, pos["target"])
                        result["plain-chat"] = {"nll": -sum(t.logprob for t in scored), "tokens": len(scored)}
                    result[mode] = {"nll": nll, "tokens": n, "prompt_tokens": llm.count_tokens(prepared.prompt),
                                    "facts": [f["text"] for f in prepared.facts]}
                samples.append(result)
            mine = [s for s in samples if s["novel"] == novel]
            rows.append(summary(novel, mine) | {"graph_build_s": round(built, 1), "facts_in_graph": len(pairs)})
    rows.append(summary("all", samples))
    return rows, samples


def summary(name: str, samples: list[dict[str, Any]]) -> dict[str, Any]:
    def ppl(mode: str) -> float:
        return math.exp(sum(s[mode]["nll"] for s in samples) / max(1, sum(s[mode]["tokens"] for s in samples)))
    per = [(math.exp(s["plain"]["nll"] / s["plain"]["tokens"]), math.exp(s["kg-prompt"]["nll"] /
                                                                           s["kg-prompt"]["tokens"])) for s in samples]
    chat = [(s["plain"]["nll"] / s["plain"]["tokens"], s["plain-chat"]["nll"] / s["plain-chat"]["tokens"])
            for s in samples if "plain-chat" in s]
    return {"novel": name, "n": len(samples), "ppl_plain": round(ppl("plain"), 2),
            "ppl_plain_chat": round(ppl("plain-chat"), 2) if chat else None,
            "raw_lower_share": round(sum(r < c for r, c in chat) / len(chat), 3) if chat else None,
            "ppl_kg_prompt": round(ppl("kg-prompt"), 2),
            "kg_lower_share": round(sum(k < p for p, k in per) / max(1, len(per)), 3),
            "median_delta": round(statistics.median(k - p for p, k in per), 3) if per else 0.0,
            "mean_prompt_tokens_kg": round(statistics.mean(s["kg-prompt"]["prompt_tokens"] for s in samples), 1)
            if samples else 0}


def speed_rows(llm: Any, prompts: list[str], tokens: int = 48) -> list[dict[str, Any]]:
    rows = []
    for kind in ("raw text", "chat stream"):
        out_tokens, seconds = 0, 0.0
        for prompt in prompts:
            if kind == "raw text":
                done = llm.generate_text(prompt, max_tokens=tokens)
            else:
                stream = llm.stream([{"role": "user", "content": CONTINUE_USER.format(prompt=prompt)}],
                                    max_tokens=tokens)
                stream.text()
                done = stream.completion
            out_tokens += done.output_tokens
            seconds += done.seconds
        rows.append({"generation": kind, "calls": len(prompts), "new_tokens": out_tokens,
                     "seconds": round(seconds, 2), "tokens_per_s": round(out_tokens / seconds, 1)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--novels", nargs="*", default=list(DEFAULT_NOVELS))
    ap.add_argument("--per-novel", type=int, default=8)
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--llm", default=None, help="the model (default: the configured default model)")
    ap.add_argument("--out", default="write")
    args = ap.parse_args()
    name = args.llm or get_settings().llm
    llm = get_llm(name)
    started = time.perf_counter()
    rows, samples = perplexity_rows(llm, args.novels, args.per_novel, args.budget, args.seed)
    print(f"Story completion perplexity of the true next paragraph ({name}, {args.budget}-token prompts, "
          f"n={rows[-1]['n']}, lower is better)")
    print(table(rows))
    speed = speed_rows(llm, PLAIN_PROMPTS[:2])
    print(f"\nGeneration speed ({name}, greedy, 48 new tokens after a ~1,000-token prompt, CPU)")
    print(table(speed))
    path = write_results(args.out, {"llm": name, "budget_tokens": args.budget, "seed": args.seed,
                                   "per_novel": args.per_novel, "perplexity": rows, "speed": speed,
                                   "samples": samples,
                                   "seconds": round(time.perf_counter() - started, 1)})
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
