"""Summary commands: summarize chapters (with or without the knowledge graph), read, edit and export summaries, and
score summaries with KGScore, ROUGE and embedding similarity.

    cli.py summarize 3 --chapter 5 [--kg | --no-kg | --both | --extractive] [--llm openai:gpt-4o-mini] --json
    cli.py summarize 3 --all --both [--force] [--estimate]          # resumable; the estimate goes to stderr first
    cli.py summaries show 3 --chapter 5 --json ; summaries list 3 ; summaries export 3 --out book.md
    cli.py summaries preview 3 --chapter 5 [--budget 4096]          # the KG lines it would get, no generation
    cli.py summaries edit 3 --chapter 5 --mode kg --file mine.txt   # kept as the user's, never overwritten
    cli.py kgscore --generated gen.txt --reference ref.txt [--offline] --json
    cli.py kgscore --pairs pairs.jsonl [--offline] --json           # one {"generated", "reference"} per line
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cli_commands import CliError, add_json_flag, add_llm_flag, not_found_as_cli_error, open_store
from core.llm import LLMError
from core.summarize import EXTRACTIVE, MODEL_MODES, MODES, SummaryParams

SCORE_KEYS = ("precision", "recall", "f1", "rouge1", "rouge2", "rougeL", "embedding_similarity")


def _progress(done: int, total: int, message: str) -> None:
    if sys.stderr.isatty():
        print(f"[{done}/{total}] {message}", file=sys.stderr)


def _params(args: argparse.Namespace) -> SummaryParams:
    try:
        return SummaryParams(context_tokens=args.budget, summary_tokens=args.summary_tokens,
                             kg_format=args.kg_format)
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def _modes(args: argparse.Namespace, llm_name: str) -> tuple[str, ...]:
    """The modes asked for; without one, what the Summaries page picks: the book's own words (extractive) when the
    summarizing model is one of the small embedded ones (their summaries loop or copy), else the model's with the
    graph."""
    from core.services import summary_service as ss
    if args.extractive or not (args.kg or args.no_kg or args.both) and ss.embedded(llm_name):
        return (EXTRACTIVE,)
    return MODEL_MODES if args.both else (("no_kg",) if args.no_kg else ("kg",))


@not_found_as_cli_error
def cmd_summarize(args: argparse.Namespace) -> Any:
    from core.services import llm_service, summary_service as ss
    if bool(args.chapter) == args.all:
        raise CliError("give --chapter N (repeatable) or --all")
    store, params = open_store(), _params(args)
    try:
        name = llm_service.resolve_llm_name(store, "summarizing", args.llm)
        modes = _modes(args, name)
        estimate = ss.estimate(store, args.work_id, args.chapter or None, modes, params, name)
    except (LLMError, ss.SummaryError) as exc:
        raise CliError(str(exc)) from exc
    if args.estimate:
        return estimate.as_dict()
    own_words = modes == (EXTRACTIVE,)
    count = f"{estimate.units} summar{'y' if estimate.units == 1 else 'ies'}"
    if own_words:
        print(f"estimate: {count} in the book's own sentences: no model, no calls", file=sys.stderr)
    else:
        print(f"estimate: {count}, ~{estimate.calls} calls, ~{estimate.input_tokens:,} input "
              f"+ {estimate.output_tokens:,} output tokens with {name}: {estimate.label}", file=sys.stderr)
    from core.services import background
    from core.services.jobs import JobStopped
    force = bool(args.chapter) or args.force
    request = {"chapters": args.chapter or None, "modes": list(modes), "force": force,
               "context_tokens": params.context_tokens, "summary_tokens": params.summary_tokens}
    try:
        with background.claimed(store, args.work_id, "summaries", request, on_progress=_progress) as job:
            report = ss.summarize(store, args.work_id, chapters=args.chapter or None, modes=modes, params=params,
                                  llm_override=args.llm, force=force, on_progress=job.on_progress,
                                  should_stop=job.should_stop)
            job.outcome = f"{report.summarized} written, {report.skipped} already up to date"
    except (ss.SummaryError, background.JobRefused) as exc:
        raise CliError(str(exc)) from exc
    except (LLMError, JobStopped) as exc:
        raise CliError(f"{exc} (finished summaries are saved; run the command again to resume)") from exc
    shown = [ss.chapter_view(store, args.work_id, c) for c in (args.chapter or estimate.detail["chapters"])]
    result = {**report.as_dict(), "estimate": estimate.as_dict(),
              "shown": [ss.summary_dict(v[m]["shown"]) for v in shown for m in modes if v[m]["shown"]]}
    if not args.json:
        if EXTRACTIVE in modes and not args.extractive:
            print(f"In the book's own words (extractive, no model): {name} is a small embedded model whose summaries "
                  "loop or copy; --kg, --no-kg or --both ask it anyway, or choose a capable model with --llm.",
                  file=sys.stderr)
        elif not own_words and ss.embedded(name):   # (--extractive asked for: no model wrote anything)
            print(f"Written by a small embedded model ({name}): read it as a rough draft, not a summary; --extractive "
                  "gives the book's own words.", file=sys.stderr)
        by = [("edited by you" if s["user_edited"] else "the book's own sentences" if s["mode"] == EXTRACTIVE
               else s["model"]) for s in result["shown"]]
        tally = "no model" if own_words else report.tally.get("label", "")
        return "\n\n".join(f"Chapter {s['chapter']} ({s['mode']}, {who})\n{s['text']}"
                             for s, who in zip(result["shown"], by)) + f"\n\n({tally})"
    return result


@not_found_as_cli_error
def cmd_show(args: argparse.Namespace) -> Any:
    from core.services import summary_service as ss
    view = ss.chapter_view(open_store(), args.work_id, args.chapter)
    return {"chapter": view["chapter"], "title": view["title"],
            **{m: None if view[m]["shown"] is None else {**ss.summary_dict(view[m]["shown"]), "stale": view[m]["stale"],
                                                         "versions": view[m]["versions"]} for m in MODES}}


@not_found_as_cli_error
def cmd_preview(args: argparse.Namespace) -> Any:
    from core.services import summary_service as ss
    try:
        result = ss.preview(open_store(), args.work_id, args.chapter, _params(args), llm_override=args.llm)
    except (LLMError, ss.SummaryError) as exc:
        raise CliError(str(exc)) from exc
    return result if args.json else "\n".join(result["kg_lines"]) + (
        f"\n({result['edges_given']} of {result['edges_available']} edges; {result['prompt_tokens']} of "
        f"{result['budget']} prompt tokens)")


@not_found_as_cli_error
def cmd_list(args: argparse.Namespace) -> Any:
    from core.services import summary_service as ss
    return ss.overview(open_store(), args.work_id)


@not_found_as_cli_error
def cmd_export(args: argparse.Namespace) -> Any:
    from core.services import summary_service as ss
    markdown, filename = ss.export_markdown(open_store(), args.work_id)
    if args.out:
        Path(args.out).write_text(markdown, encoding="utf-8")
        return {"written": args.out, "bytes": len(markdown.encode("utf-8"))}
    return markdown if not args.json else {"filename": filename, "markdown": markdown}


@not_found_as_cli_error
def cmd_edit(args: argparse.Namespace) -> Any:
    from core.services import summary_service as ss
    text = args.text if args.text is not None else _read(args.file) if args.file else None
    if text is None:
        raise CliError("give the new summary with --text or --file")
    try:
        return ss.summary_dict(ss.save_edit(open_store(), args.work_id, args.chapter, args.mode, text))
    except ss.SummaryError as exc:
        raise CliError(str(exc)) from exc


def _read(path: str) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"Cannot read {path}: {exc}") from exc
    if not text.strip():
        raise CliError(f"{path} is empty")
    return text


def _read_pairs(path: str) -> list[dict[str, str]]:
    """Every line's {"generated", "reference"}, validated before anything is scored."""
    pairs = []
    for number, line in enumerate(_read(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CliError(f"{path}, line {number}: not JSON ({exc.msg})") from exc
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) and item[k].strip()
                                                 for k in ("generated", "reference")):
            raise CliError(f'{path}, line {number}: expected {{"generated": "...", "reference": "..."}} (non-empty)')
        pairs.append(item)
    return pairs


def cmd_kgscore(args: argparse.Namespace) -> Any:
    from core.services import summary_service as ss
    if (args.pairs and (args.generated or args.reference)) or (not args.pairs and not (args.generated and
                                                                                      args.reference)):
        raise CliError("give --generated FILE and --reference FILE, or --pairs FILE.jsonl")
    pairs = _read_pairs(args.pairs) if args.pairs else [{"generated": _read(args.generated),
                                                         "reference": _read(args.reference)}]
    try:
        scorer = ss.make_scorer(None if args.offline else open_store(), offline=args.offline, llm_override=args.llm)
        results = []
        for pair in pairs:  # models load once, on the first pair
            score = scorer.score(pair["generated"], pair["reference"])
            results.append({**({"id": pair["id"]} if "id" in pair else {}), **score})
    except (LLMError, ValueError) as exc:
        raise CliError(str(exc)) from exc
    if args.pairs:
        args.jsonl = True
        return results if args.json else [{k: r.get(k) for k in ("id", *SCORE_KEYS) if k in r} for r in results]
    return results[0]


def register(sub: argparse._SubParsersAction) -> None:
    p = add_llm_flag(add_json_flag(sub.add_parser("summarize", help="summarize chapters (with the graph or not)")))
    p.add_argument("work_id", type=int)
    p.add_argument("--chapter", type=int, action="append", metavar="N", help="a chapter (repeatable); always new")
    p.add_argument("--all", action="store_true", help="every chapter not summarized yet (resumable)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--kg", action="store_true", help="the model, with the knowledge graph (the default with a "
                      "capable model; with an embedded one the default is --extractive)")
    mode.add_argument("--no-kg", action="store_true", help="the baseline: the chapter text only")
    mode.add_argument("--both", action="store_true", help="with and without the knowledge graph")
    mode.add_argument("--extractive", action="store_true",
                      help="no model: the chapter's own sentences, chosen with the graph, within --summary-tokens")
    p.add_argument("--force", action="store_true", help="with --all: regenerate up-to-date summaries too")
    p.add_argument("--estimate", action="store_true", help="only print the cost estimate")
    p.add_argument("--budget", type=int, default=None, help="context tokens (default: the model's whole window)")
    p.add_argument("--summary-tokens", type=int, default=200, help="longest summary, in tokens")
    p.add_argument("--kg-format", choices=("lines", "tokens"), default="lines")
    p.set_defaults(func=cmd_summarize)

    group = sub.add_parser("summaries", help="read, edit and export chapter summaries")
    cmds = group.add_subparsers(dest="summaries_command", required=True)
    p = add_json_flag(cmds.add_parser("show", help="a chapter's summaries (every mode) and the KG lines given"))
    p.add_argument("work_id", type=int)
    p.add_argument("--chapter", type=int, required=True)
    p.set_defaults(func=cmd_show)
    p = add_llm_flag(add_json_flag(cmds.add_parser("preview", help="the KG lines a chapter's summary would get")))
    p.add_argument("work_id", type=int)
    p.add_argument("--chapter", type=int, required=True)
    p.add_argument("--budget", type=int, default=None, help="context tokens (default: the model's whole window)")
    p.add_argument("--summary-tokens", type=int, default=200)
    p.add_argument("--kg-format", choices=("lines", "tokens"), default="lines")
    p.set_defaults(func=cmd_preview)
    p = add_json_flag(cmds.add_parser("list", help="which chapters have summaries"))
    p.add_argument("work_id", type=int)
    p.set_defaults(func=cmd_list)
    p = add_json_flag(cmds.add_parser("export", help="every summary as Markdown"))
    p.add_argument("work_id", type=int)
    p.add_argument("--out", default=None, help="write to this file instead of stdout")
    p.set_defaults(func=cmd_export)
    p = add_json_flag(cmds.add_parser("edit", help="save your own version of a summary"))
    p.add_argument("work_id", type=int)
    p.add_argument("--chapter", type=int, required=True)
    p.add_argument("--mode", choices=MODES, default="kg")
    p.add_argument("--text", default=None)
    p.add_argument("--file", default=None)
    p.set_defaults(func=cmd_edit)

    p = add_llm_flag(add_json_flag(sub.add_parser("kgscore", help="KGScore, ROUGE and embedding similarity")))
    p.add_argument("--generated", metavar="FILE", default=None)
    p.add_argument("--reference", metavar="FILE", default=None)
    p.add_argument("--pairs", metavar="FILE.jsonl", default=None, help='one {"generated", "reference"} per line')
    p.add_argument("--offline", action="store_true", help="Open IE edges instead of the Appendix F prompt (no LLM)")
    p.set_defaults(func=cmd_kgscore)
