"""What a new user waits for with the embedded models, on a fresh data directory (issue 17's latency goals).

1. The set-up part of `bash scripts/dev.sh app`: `cli.py llm prepare` and `cli.py seed-sample` (timed processes).
2. A fresh process standing in for the server: it opens the store and starts the same background warm-up as app.py,
   then asks about the sample book at once: the first answer (rag, 1,000-token budget, 40-token answer) timed from
   the process start, then 5 more questions.
   Then a novel imported as the Library page imports it, and the first answer about it against the later ones.
3. A story: the first chapter asked for 800-1,200 words (its words and seconds), then accepting it, which lets the
   grapher (the writing model) read it into the story's graph.
4. Memory: the process's resident size with both embedded models, MiniLM and spaCy loaded.

    .venv/bin/python bench/first_use.py                         # the default runtime (OpenVINO where installed)
    .venv/bin/python bench/first_use.py --runtime transformers --skip-write   # the old path, for reference

Load average is printed next to every figure: these machines are shared.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, table, write_results

QUESTIONS = ["Who was Marley?", "What did Scrooge say about Christmas?", "Who is Tiny Tim's father?",
             "What does the Ghost of Christmas Past show Scrooge?", "Where does Bob Cratchit work?",
             "What happens to Scrooge at the end?"]
PREMISE = 1  # the first of the paper's premises


def load() -> float:
    return round(os.getloadavg()[0], 2)


def timed_cli(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    start = time.perf_counter()
    subprocess.run([sys.executable, "cli.py", *args], cwd=ROOT, env=env, check=True, capture_output=True)
    return {"step": "cli.py " + " ".join(args), "seconds": round(time.perf_counter() - start, 2), "load": load()}


def rss_mb() -> dict[str, float]:
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = round(int(value.split()[0]) / 1024, 1)
    return fields


def server_process(skip_write: bool) -> dict[str, Any]:
    """Runs inside the fresh process (see main)."""
    t0 = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    import core.nlp  # noqa: F401 - imports first, timed apart from the rest
    from core.services import qa_service  # noqa: F401
    imported = round(time.perf_counter() - t0, 2)
    from core.config import get_settings
    from core.qa import QAParams
    from core.services import llm_service, qa_service, write_service
    from core.write import WriteParams
    from storage.repository import SqlStore
    store = SqlStore.from_url(get_settings().database_url)
    llm_service.start_warm_up(store)  # what app.py does once per server process
    work = next(w for w in store.list_works() if w.title == "A Christmas Carol")
    params = QAParams(mode="rag", budget_tokens=1000, answer_tokens=40)
    asker = qa_service.Asker(store)
    rows = []
    for i, question in enumerate(QUESTIONS):
        start = time.perf_counter()
        result = asker.ask(work.id, question, params)
        rows.append({"step": "first answer (from process start)" if i == 0 else f"answer {i + 1}",
                     "seconds": round(time.perf_counter() - (t0 if i == 0 else start), 2), "load": load(),
                     "answer": (result.answer or "")[:80], "runtime": llm_service.local_runtime()["runtime"],
                     "timings_ms": result.timings})
    rows += new_book_rows(store, params)
    if not skip_write:
        story = write_service.start_story(store, "Bench story", WriteParams(str(PREMISE), "Rags to Riches", 800, 1200))
        writer = llm_service.build_llm(store, "writing", work_id=story.id)
        start = time.perf_counter()
        draft = write_service.draft_chapter(store, story.id, writer)
        words = len(draft.text.split())
        rows.append({"step": "first chapter (800-1,200 words asked)", "seconds": round(time.perf_counter() - start, 2),
                     "load": load(), "answer": f"{words} words", "runtime": llm_service.local_runtime()["runtime"]})
        start = time.perf_counter()
        write_service.accept_chapter(store, story.id, draft.text, llm=writer)
        facts = len(write_service.story_graph(store, story.id).edges)
        rows.append({"step": "accept and graph the chapter", "seconds": round(time.perf_counter() - start, 2),
                     "load": load(), "answer": f"{facts} graph edges", "runtime": llm_service.local_runtime()["runtime"]})
    from core.llm.local import LocalLLM
    from core.llm.local_models import LOCAL_MODELS
    from core.nlp import load_embedder, load_spacy
    for name in LOCAL_MODELS:
        LocalLLM(name).warm()
    load_embedder()
    load_spacy()
    return {"rows": rows, "memory_mb": rss_mb(), "models": list(LOCAL_MODELS), "imports_s": imported}


NEW_BOOK = "the_call_of_the_wild_pg215.txt"
NEW_BOOK_QUESTIONS = ["Who stole Buck?", "Who is John Thornton?", "What happens to Spitz?", "Where was Buck taken?"]


def new_book_rows(store: Any, params: Any) -> list[dict[str, Any]]:
    """A book imported now, as the Library page imports it (its passages are embedded in the worker right after),
    then asked about: the first answer against the later ones (issue 37: 31.7 s against 2-5 s when the first
    question embedded the passages)."""
    from _common import SHARED_DATA

    from core.services import background, imports, qa_service
    path = SHARED_DATA / "novels" / "txt" / NEW_BOOK
    start = time.perf_counter()
    job = imports.submit(store, path.name, path.read_bytes())
    background.worker().wait(f"import:{job.key}", 600)
    rows = [{"step": f"import {path.name}", "seconds": round(time.perf_counter() - start, 2), "load": load(),
             "answer": job.outcome or job.error or job.status.value, "runtime": "-"}]
    start = time.perf_counter()
    background.worker().wait(f"embed:{job.work_id}", 600)
    rows.append({"step": "its passages embedded (in the worker, after the import)", "load": load(),
                 "seconds": round(time.perf_counter() - start, 2), "answer": "", "runtime": "-"})
    asker = qa_service.Asker(store)
    for i, question in enumerate(NEW_BOOK_QUESTIONS):
        start = time.perf_counter()
        result = asker.ask(job.work_id or 0, question, params)
        rows.append({"step": "new book: first answer" if i == 0 else f"new book: answer {i + 1}",
                     "seconds": round(time.perf_counter() - start, 2), "load": load(),
                     "answer": (result.answer or "")[:80], "runtime": "-", "timings_ms": result.timings})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", default="auto", choices=("auto", "llama.cpp", "openvino", "transformers"))
    parser.add_argument("--skip-write", action="store_true", help="no story chapter (slow on transformers)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(server_process(args.skip_write)))
        return
    load_at_start = load()
    with tempfile.TemporaryDirectory(prefix="fabula-first-use-") as data:
        env = {k: v for k, v in os.environ.items() if k not in ("FABULA_MODEL_CACHE", "FABULA_DB_URL")}
        env.update(FABULA_DATA_DIR=data, FABULA_LOCAL_RUNTIME=args.runtime, FABULA_WARM_UP="1")
        rows = [timed_cli(["llm", "prepare"], env), timed_cli(["seed-sample"], env)]
        print(table(rows), flush=True)
        child = [sys.executable, __file__, "--child"] + (["--skip-write"] if args.skip_write else [])
        out = subprocess.run(child, cwd=ROOT, env=env, check=True, capture_output=True, text=True)
        result = json.loads(out.stdout.strip().splitlines()[-1])
    rows += result["rows"]
    print(table(rows, ["step", "seconds", "load", "runtime", "answer"]))
    print(f"memory with {', '.join(result['models'])}, MiniLM and spaCy loaded: {result['memory_mb']}")
    print(f"imports before the store opened: {result['imports_s']} s; first answer's stages (ms): "
          f"{result['rows'][0]['timings_ms']}")
    path = write_results(f"first_use_{args.runtime.replace('.', '')}", {
        "runtime": args.runtime, "load_avg_at_bench_start": load_at_start, "rows": rows,
        "memory_mb": result["memory_mb"], "imports_s": result["imports_s"]})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
