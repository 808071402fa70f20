"""Question answering and NARCO commands: ask (one question or a JSONL batch), narco build / status / recap.

    cli.py ask 3 "Who is Jane's sister?" --mode kg --upto 9 --json
    cli.py ask 3 --questions questions.jsonl --mode rag --dry-run --json      # one result object per line
    cli.py ask 3 "Who stole Buck?" --mode graph --upto 4                      # PageRank over the book's graph
    cli.py ask 3 --questions q.jsonl --mode rag --answer extractive --json    # the book's own sentence, no model
    cli.py narco build 3 --window 3 [--from-chapter 1 --to-chapter 5] [--estimate]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cli_commands import CliError, add_json_flag, add_llm_flag, not_found_as_cli_error, open_store
from core.config import get_settings
from core.llm import LLMError
from core.qa import MODES, QAParams
from core.qa.params import ANSWER_PATHS, DEFAULT_MODE, FACT_RANKINGS, PASSAGE_SEARCHES


def _progress(done: int, total: int, message: str) -> None:
    if sys.stderr.isatty():
        print(f"[{done}/{total}] {message}", file=sys.stderr)


def _read_questions(path: str) -> list[str]:
    """Every line's "question", validated before anything runs, so a bad line changes nothing."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"Cannot read {path}: {exc}") from exc
    questions = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CliError(f"{path}, line {number}: not JSON ({exc.msg})") from exc
        question = item.get("question") if isinstance(item, dict) else None
        if not isinstance(question, str) or not question.strip():
            raise CliError(f'{path}, line {number}: expected an object with a non-empty "question"')
        questions.append(question)
    if not questions:
        raise CliError(f"{path} holds no questions")
    return questions


def _text(result: dict[str, Any]) -> str:
    answer = result["answer"]
    if answer is None:
        shown = "(dry run)" if result["answer_path"] == "generate" else "(no answer)"
        reason = (result.get("extraction") or {}).get("reason")
        shown += f" {reason}" if reason else ""
    else:
        verdict = {True: "supported", False: "NOT supported by the cited passages", None: "not checked"}
        span = (result.get("extraction") or {}).get("span") if result["answer_path"] == "extractive" else None
        named = f"{span}: " if span and span.lower() not in answer.lower() else ""   # the graph's reading of "he"
        closest = result["answer_path"] == "extractive" and not (result.get("extraction") or {}).get("confident", 1)
        if closest:   # the reader's sentence does not state what was asked (core.qa.confidence)
            named, answer = "(no sentence answers this plainly) the closest passage: ", f"“{answer}”"
        shown = f"{named}{answer}  [{result['answer_path']}; chapters {result['answer_chapters']}; " \
                f"{verdict[result['supported']]}]"
    lines = [f"Q: {result['question']}", f"A: {shown}"]
    if note := (result.get("extraction") or {}).get("note"):
        lines.append(f"   ({note})")
    if card := result.get("card"):   # "Who is X?": what the graph knows of X by the chapter asked up to
        known = [f"{card['type']}", *(f"{r.get('text') or r['with']} (ch. {r['chapter']})"
                                      for r in card["relationships"][:4]),
                 *(f"{s['state']} (ch. {s['chapter']})" for s in card["states"][:3])]
        lines.append(f"   Graph, as of chapter {card['position']}: {card['name']}: " + "; ".join(known))
    lines += [f"  [chapter {c['chapter']}, passage {c['chunk'] + 1}, {c['kind']}] {c['text'][:100]}"
              for c in result["citations"]]
    return "\n".join(lines + [f"({result['prompt_tokens'] + result['template_tokens']}/{result['budget']} tokens)"])


@not_found_as_cli_error
def cmd_ask(args: argparse.Namespace) -> Any:
    from core.services.qa_service import Asker
    if bool(args.question) == bool(args.questions):
        raise CliError("give either a QUESTION or --questions FILE.jsonl")
    questions = _read_questions(args.questions) if args.questions else [args.question]
    try:
        params = QAParams(mode=args.mode, upto=args.upto, budget_tokens=args.budget or
                          get_settings().prompt_budget_tokens, narco_lambda=args.narco_lambda,
                          verbalize="template" if args.dry_run else args.verbalize, fact_ranking=args.facts,
                          passage_search=args.search, answer=args.answer)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    store = open_store()
    try:
        asker = Asker(store, llm_override=args.llm, dry_run=args.dry_run)
        results = [asker.ask(args.work_id, q, params).as_dict() for q in questions]
    except (LLMError, ValueError) as exc:
        raise CliError(str(exc)) from exc
    if not args.json:
        return "\n\n".join(_text(r) for r in results)
    if args.questions:
        args.jsonl = True
        return results
    return results[0]


def _narco_params(args: argparse.Namespace) -> Any:
    from core.services.narco_service import NarcoParams
    try:
        return NarcoParams(window=args.window, first_chapter=args.from_chapter, last_chapter=args.to_chapter,
                           verify=not args.no_verify, force=args.force)
    except ValueError as exc:
        raise CliError(str(exc)) from exc


@not_found_as_cli_error
def cmd_narco_build(args: argparse.Namespace) -> dict[str, Any]:
    from core.services import llm_service, narco_service
    store = open_store()
    params = _narco_params(args)
    try:
        name = llm_service.resolve_llm_name(store, "extraction", args.llm)
    except LLMError as exc:
        raise CliError(str(exc)) from exc
    estimate = narco_service.estimate(store, args.work_id, params, name)
    if args.estimate:
        return estimate.as_dict()
    print(f"estimate: {estimate.units} passages, {estimate.detail['pairs']} pairs, ~{estimate.calls} calls, "
          f"~{estimate.input_tokens:,} input + {estimate.output_tokens:,} output tokens "
          f"with {name}: {estimate.label}", file=sys.stderr)
    from core.services import background
    from core.services.jobs import JobStopped
    request = {"llm_name": name, "window": params.window, "first_chapter": params.first_chapter,
               "last_chapter": params.last_chapter}
    try:
        with background.claimed(store, args.work_id, "narco", request, on_progress=_progress) as job:
            llm = llm_service.build_llm(store, "extraction", name, work_id=args.work_id)
            report = narco_service.build_edges(store, args.work_id, llm, params, llm_name=name,
                                               on_progress=job.on_progress, should_stop=job.should_stop)
            job.outcome = f"{report.kept} questions kept of {report.generated}"
    except background.JobRefused as exc:
        raise CliError(str(exc)) from exc
    except (LLMError, JobStopped) as exc:
        raise CliError(f"{exc} (finished passages are saved; run the command again to resume)") from exc
    return {**report.as_dict(), "estimate": estimate}


@not_found_as_cli_error
def cmd_narco_status(args: argparse.Namespace) -> dict[str, Any]:
    from core.services import narco_service
    return narco_service.status(open_store(), args.work_id)


@not_found_as_cli_error
def cmd_narco_recap(args: argparse.Namespace) -> list[dict[str, Any]]:
    from core.services import narco_service
    items = narco_service.recap(open_store(), args.work_id, args.chapter, args.limit)
    return [{"chapter": i.chapter, "chunk": i.chunk, "degree": i.degree, "text": i.text,
             "questions": i.questions} for i in items]


def register(sub: argparse._SubParsersAction) -> None:
    p = add_llm_flag(add_json_flag(sub.add_parser("ask", help="ask a question about a work (answers cite passages)")))
    p.add_argument("work_id", type=int)
    p.add_argument("question", nargs="?", default=None)
    p.add_argument("--questions", metavar="FILE.jsonl", default=None, help='one {"question": ...} per line')
    p.add_argument("--mode", choices=MODES, default=DEFAULT_MODE, help=f"default: {DEFAULT_MODE}")
    p.add_argument("--upto", type=int, default=None, metavar="N", help="I have read up to chapter N (no spoilers)")
    p.add_argument("--dry-run", action="store_true",
                   help="build the prompt only: no LLM call (an extractive answer needs none; a generated one is null)")
    p.add_argument("--budget", type=int, default=None, help="prompt budget in tokens (default: settings, 1000)")
    p.add_argument("--narco-lambda", type=float, default=0.1, help="λ of the NARCO score")
    p.add_argument("--verbalize", choices=("llm", "template"), default="llm", help="how kg facts become sentences")
    p.add_argument("--facts", choices=FACT_RANKINGS, default="levenshtein",
                   help="kg: pick facts by edit distance (the Andrus paper) or by meaning (MiniLM)")
    p.add_argument("--search", choices=PASSAGE_SEARCHES, default="hybrid",
                   help="rag/graph: match passages by BM25 + MiniLM (hybrid), MiniLM only (dense) or BM25 only")
    p.add_argument("--answer", choices=ANSWER_PATHS, default="auto",
                   help="extractive: the book's own sentence (no generative model); generate: the answering model "
                        "writes it; auto (the page's choice): extractive with an embedded model, else generate")
    p.set_defaults(func=cmd_ask)

    group = sub.add_parser("narco", help="NARCO retrospective-question edges: build, status, recap")
    narco = group.add_subparsers(dest="narco_command", required=True)
    p = add_llm_flag(add_json_flag(narco.add_parser("build", help="generate and verify edges (resumable)")))
    p.add_argument("work_id", type=int)
    p.add_argument("--window", type=int, default=3, help="preceding passages each passage is paired with")
    p.add_argument("--from-chapter", type=int, default=None)
    p.add_argument("--to-chapter", type=int, default=None)
    p.add_argument("--no-verify", action="store_true", help="skip self-verification (keeps every question)")
    p.add_argument("--force", action="store_true", help="rebuild passages that already have edges")
    p.add_argument("--estimate", action="store_true", help="only print the cost estimate")
    p.set_defaults(func=cmd_narco_build)

    p = add_json_flag(narco.add_parser("status", help="how many passages are connected"))
    p.add_argument("work_id", type=int)
    p.set_defaults(func=cmd_narco_status)

    p = add_json_flag(narco.add_parser("recap", help="earlier passages a chapter depends on, by edge degree"))
    p.add_argument("work_id", type=int)
    p.add_argument("chapter", type=int)
    p.add_argument("--limit", type=int, default=5)
    p.set_defaults(func=cmd_narco_recap)
