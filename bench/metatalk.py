"""Assistant talk in continuations (core/metatalk.py): how often the embedded models answer "continue this text" by
talking about the text, and how often the check fires on real prose.

  floor   every sentence of the 11 shared novels and the 10 GraphRAG-Bench dev books: sentences the check calls
          assistant talk, per book and per 10,000 sentences (on real prose every one is a false alarm).
  models  --n seeded excerpts (three paragraphs of at least 40 words, from the middle of a shared novel) continued by
          each embedded model as the Write page's "Text only" mode does (--framing raw, the default: the raw text
          continued from a new paragraph, core.write.modes) or did before 2026-11-28 (--framing chat: asked in a
          chat, continue_messages), temperature 0.8, --tokens new tokens, seed = the excerpt's number; each
          continuation checked. The texts
          are written to the JSON with the verdicts, for reading by hand (--labels FILE: a JSON of
          {"model|excerpt": true/false}, assistant talk or not, scores the check against them; --rescore FILE
          judges the replies kept in an earlier results file again, without generating).
  The floor's books are in two sets: "seen" (the novels and GraphRAG-Bench books, read while the patterns were
  written) and "unseen" (the SQuALITY and QuALITY dev stories, not looked at for this).

    .venv/bin/python bench/metatalk.py --n 20 --seed 11
    .venv/bin/python bench/metatalk.py --parts models --rescore bench/results/metatalk.json --labels LABELS.json
Writes bench/results/metatalk.json (--out).
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SHARED_DATA, machine, table, write_results  # noqa: E402

from core.metatalk import check_meta, is_meta, sentences  # noqa: E402

NOVELS = SHARED_DATA / "novels" / "txt"
GRAPHRAG_BOOKS = SHARED_DATA / "graphrag_bench_novel" / "books"
MODELS = ("local:smollm2", "local:gemma3-270m")


def books() -> list[tuple[str, str, str]]:
    """(set, name, text): the shared novels and GraphRAG-Bench books (seen while the patterns were written) and the
    SQuALITY and QuALITY dev stories (not looked at for this)."""
    out = [("seen", p.stem, p.read_text(encoding="utf-8"))
           for p in sorted(NOVELS.glob("*.txt")) + sorted(GRAPHRAG_BOOKS.glob("*.txt"))]
    for line in (SHARED_DATA / "squality" / "dev.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        out.append(("unseen", f"squality-{row['metadata']['passage_id']}", row["document"]))
    for line in (SHARED_DATA / "quality" / "dev.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        out.append(("unseen", f"quality-{row['doc_index']}", row["article"]))
    return out


def floor() -> dict[str, Any]:
    rows, hits = [], []
    for group, name, text in books():
        spans = sentences(text)
        found = [" ".join(text[a:b].split()) for a, b in spans if is_meta(text[a:b])]
        rows.append({"set": group, "book": name[:32], "sentences": len(spans), "flagged": len(found),
                     "per 10k": round(1e4 * len(found) / max(1, len(spans)), 2)})
        hits += [{"book": name, "sentence": s[:300]} for s in found]
    for group in ("seen", "unseen"):
        mine = [r for r in rows if r["set"] == group]
        total, flagged = sum(r["sentences"] for r in mine), sum(r["flagged"] for r in mine)
        rows.append({"set": group, "book": f"all {len(mine)}", "sentences": total, "flagged": flagged,
                     "per 10k": round(1e4 * flagged / max(1, total), 2)})
    return {"rows": rows, "hits": hits}


def excerpts(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    books = sorted(NOVELS.glob("*.txt"))
    out = []
    for i in range(n):
        path = books[i % len(books)]
        paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))]
        paras = [p for p in paras if len(p.split()) >= 40]
        at = rng.randrange(len(paras) // 4, len(paras) * 3 // 4)
        out.append({"id": i, "book": path.stem, "text": "\n\n".join(paras[at:at + 3])})
    return out


def verdict(sample: dict[str, Any]) -> dict[str, Any]:
    """`sample` with the check's verdicts on its reply (again: --rescore re-judges kept replies)."""
    reply = sample["reply"].strip()
    checked = check_meta(reply)
    return {**sample, "meta": list(checked.meta), "mostly_meta": checked.mostly_meta,
            "preamble_cut": checked.text != reply and not checked.mostly_meta, "note": checked.note}


def models(n: int, seed: int, tokens: int, labels: dict[str, bool], kept: list[dict[str, Any]] | None,
           framing: str = "raw") -> dict[str, Any]:
    samples, rows, seconds = ([verdict(s) for s in kept] if kept is not None else []), [], {}
    if kept is None:
        from core.llm.registry import get_llm
        from core.write.modes import PreparedPrompt, continue_messages, get_mode
        from core.write.params import DecodeParams
        chosen = excerpts(n, seed)
        for name in MODELS:
            llm = get_llm(name)
            started = time.perf_counter()
            for ex in chosen:
                decode = DecodeParams(temperature=0.8, max_tokens=tokens, seed=ex["id"])
                if framing == "chat":
                    reply = llm.complete(continue_messages(ex["text"]), decode.options()).text
                else:  # as the Write page continues with an embedded model now (core.write.modes, raw text)
                    reply = get_mode("plain").generate(llm, PreparedPrompt(ex["text"]), decode).text()
                samples.append(verdict({"model": name, "excerpt": ex["id"], "book": ex["book"],
                                        "end": ex["text"][-200:], "reply": reply}))
            seconds[name] = round(time.perf_counter() - started, 1)
    for name in MODELS:
        mine = [s for s in samples if s["model"] == name]
        row = {"model": name, "n": len(mine), "s": seconds.get(name),
               "any talk %": _pct([bool(s["meta"]) for s in mine]),
               "not a continuation %": _pct([s["mostly_meta"] for s in mine]),
               "preamble cut %": _pct([s["preamble_cut"] for s in mine])}
        judged = [(labels[f"{name}|{s['excerpt']}"], bool(s["meta"])) for s in mine
                  if f"{name}|{s['excerpt']}" in labels]
        if judged:
            tp = sum(1 for gold, got in judged if gold and got)
            row.update({"labelled": len(judged), "talk (by hand)": sum(g for g, _ in judged),
                        "check precision": round(tp / max(1, sum(got for _, got in judged)), 3),
                        "check recall": round(tp / max(1, sum(g for g, _ in judged)), 3)})
        rows.append(row)
    return {"rows": rows, "samples": samples}


def _pct(flags: list[bool]) -> float:
    return round(100 * sum(flags) / max(1, len(flags)), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="*", default=["floor", "models"])
    parser.add_argument("--n", type=int, default=20, help="models: excerpts per model")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--tokens", type=int, default=150, help="models: new tokens (the Write page's default)")
    parser.add_argument("--framing", choices=("raw", "chat"), default="raw", help="models: continue the raw text (the "
                        "Write page with an embedded model, since 2026-11-28) or ask in a chat (before)")
    parser.add_argument("--labels", type=Path, default=None, help="models: hand labels to score the check against")
    parser.add_argument("--rescore", type=Path, default=None, help="models: judge the replies kept in this results "
                        "file again instead of generating")
    parser.add_argument("--out", default="metatalk")
    args = parser.parse_args()
    labels = json.loads(args.labels.read_text()) if args.labels else {}
    kept = json.loads(args.rescore.read_text())["models"]["samples"] if args.rescore else None
    out: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}, "machine": machine()}
    if "floor" in args.parts:
        out["floor"] = floor()
        print("Real prose (every hit a false alarm)\n" + table(out["floor"]["rows"]), flush=True)
    if "models" in args.parts:
        out["models"] = models(args.n, args.seed, args.tokens, labels, kept, args.framing)
        print("\nEmbedded models continuing excerpts\n" + table(out["models"]["rows"]), flush=True)
    print(f"wrote {write_results(args.out, out)}")


if __name__ == "__main__":
    main()
