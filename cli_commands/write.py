"""Writing commands: start a story (and its no-KG twin), write its next chapters, continue any work, export.

    cli.py story new --premise 5 --arc icarus [--chapters 8] [--no-kg] [--words 800-1200] [--llm local:smollm2]
    cli.py story next WORK_ID [--all]          # one turn of writer -> grapher -> planner (resumes a cut-off turn)
    cli.py story twin WORK_ID                  # the same premise and arc, written without the graph
    cli.py story export WORK_ID --format md|epub|docx --out FILE   # any work; .docx: Heading 1 chapters
    cli.py story rewrite / adherence ...       # the writer's desk (cli_commands.desk)
    cli.py continue WORK_ID --mode plain|kg-prompt|kg-block [--tokens N] --json
                                                     # {"text","mode","facts","prompt","tokens_per_second",...}
    cli.py continue WORK_ID --mode kid [--variant logits|kv] [--tokens N] [--seed S] --json
                                                     # {"text","boosted","facts","seconds","tokens_per_second"}
Every mode goes through continuation_service.continue_work (ContinueParams.kid carries KID's settings).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cli_commands import CliError, add_json_flag, add_llm_flag, not_found_as_cli_error, open_store
from cli_commands import desk
from core.llm import LLMError, MeteredLLM
from core.llm.registry import is_embedded
from core.store import Store
from core.write import ARCS, ContinueParams, WriteParams, mode_names

KID_KEYS = ("text", "boosted", "facts", "seconds", "tokens_per_second")


def _llm(store: Store, work_id: int, override: str | None) -> MeteredLLM:
    from core.services import llm_service
    from core.services.write_service import story_params
    saved = None
    try:
        saved = story_params(store, work_id).llm
    except ValueError:
        pass  # not a story: continuations of books use the writing role's model
    try:
        return llm_service.build_llm(store, "writing", override or saved, work_id=work_id)
    except LLMError as exc:
        raise CliError(str(exc)) from exc


def _words(value: str) -> tuple[int, int]:
    try:
        low, _, high = value.partition("-")
        return int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MIN-MAX words, e.g. 800-1200, got {value!r}") from None


def cmd_new(args: argparse.Namespace) -> dict[str, Any]:
    from core.services import write_service
    try:
        params = WriteParams(premise=args.premise, arc=args.arc, min_words=args.words[0], max_words=args.words[1],
                             max_chapters=args.chapters, use_kg=not args.no_kg, extractor=args.extractor,
                             llm=args.llm)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    title = args.title or " ".join(params.premise.split()[:6]).rstrip(".,")
    work = write_service.start_story(open_store(), title, params)
    return {"work_id": work.id, "title": work.title, "premise": params.premise, "arc": params.arc,
            "max_chapters": params.max_chapters, "use_kg": params.use_kg}


@not_found_as_cli_error
def cmd_next(args: argparse.Namespace) -> Any:
    from core.services import write_service
    store = open_store()
    llm = _llm(store, args.work_id, args.llm)
    try:
        if args.all:
            return write_service.write_story(store, args.work_id, llm, on_chapter=_progress)
        return write_service.next_chapter(store, args.work_id, llm)
    except LLMError as exc:
        raise CliError(f"{exc} (stored chapters are kept; run the command again to resume)") from exc
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def _progress(result: dict[str, Any]) -> None:
    if sys.stderr.isatty():
        print(f"chapter {result['chapter']}: {result['words']} words"
              + (" (final)" if result["finished"] else ""), file=sys.stderr)


@not_found_as_cli_error
def cmd_twin(args: argparse.Namespace) -> dict[str, Any]:
    from core.services import write_service
    try:
        twin = write_service.create_twin(open_store(), args.work_id)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    return {"work_id": twin.id, "title": twin.title, "twin_of": args.work_id}


@not_found_as_cli_error
def cmd_export(args: argparse.Namespace) -> dict[str, Any]:
    from core.services import write_service
    payload, name, _ = write_service.export_story(open_store(), args.work_id, args.format)
    out = Path(args.out or name)
    out.write_bytes(payload)
    return {"path": str(out), "bytes": len(payload)}


@not_found_as_cli_error
def cmd_continue(args: argparse.Namespace) -> Any:
    from core.services import continuation_service
    from core.write.kid import KidParams
    store = open_store()
    kid = args.mode == "kid"
    try:
        temperature = args.temperature if args.temperature is not None else 1.0 if kid else 0.0
        params = ContinueParams(mode=args.mode, tokens=args.tokens, budget_tokens=args.budget, temperature=temperature,
                                kid=KidParams(variant=args.variant, seed=args.seed, max_tokens=args.tokens,
                                              temperature=temperature) if kid else None)
        text = Path(args.text_file).read_text(encoding="utf-8") if args.text_file else None
        llm = _llm(store, args.work_id, args.llm)
        result = continuation_service.continue_work(store, args.work_id, params, llm, text=text,
                                                    chapter=args.chapter)
    except (LLMError, ValueError, OSError) as exc:
        raise CliError(str(exc)) from exc
    data = result.as_dict()
    if kid:  # KID's own shape: the tokens it raised instead of the prompt
        data = {k: data[k] for k in KID_KEYS}
    if not args.json and is_embedded(llm.name):   # as the Write page says beside it
        print(f"Continued by the embedded model {llm.name}: it loses the thread within a few sentences, so read this "
              "as a rough draft; a capable model can be chosen with --llm or in Settings.", file=sys.stderr)
    return data if args.json else data["text"]


def register(sub: argparse._SubParsersAction) -> None:
    group = sub.add_parser("story", help="write a story with the planner / writer / grapher loop")
    story = group.add_subparsers(dest="story_command", required=True)
    p = add_llm_flag(add_json_flag(story.add_parser("new", help="start a story from a premise and an arc")))
    p.add_argument("--premise", required=True, help="1-10 (the Remember Me premises) or your own text")
    p.add_argument("--arc", required=True, help="one of: " + ", ".join(ARCS))
    p.add_argument("--chapters", type=int, default=12, help="at most this many chapters (default 12)")
    p.add_argument("--no-kg", action="store_true", help="write without the knowledge graph (the baseline)")
    p.add_argument("--words", type=_words, default=(800, 1200), help="chapter length MIN-MAX words")
    p.add_argument("--extractor", choices=("auto", "grapher", "offline"), default="auto",
                   help="how the graph is updated after each chapter (grapher: the LLM agent; auto: the grapher, or "
                        "the offline extractor when an embedded model writes)")
    p.add_argument("--title", default=None)
    p.set_defaults(func=cmd_new)

    p = add_llm_flag(add_json_flag(story.add_parser("next", help="write the next chapter (resumable)")))
    p.add_argument("work_id", type=int)
    p.add_argument("--all", action="store_true", help="keep going until the story decides it is finished")
    p.set_defaults(func=cmd_next)

    p = add_json_flag(story.add_parser("twin", help="start the no-KG twin of a story (same premise and arc)"))
    p.add_argument("work_id", type=int)
    p.set_defaults(func=cmd_twin)

    p = add_json_flag(story.add_parser("export", help="download any work as Markdown, EPUB or Word (.docx)"))
    p.add_argument("work_id", type=int)
    p.add_argument("--format", choices=("md", "epub", "docx"), default="md")
    p.add_argument("--out", default=None, help="file to write (default: the title)")
    p.set_defaults(func=cmd_export)
    desk.register_story(story)

    p = add_llm_flag(add_json_flag(sub.add_parser("continue", help="continue any work's text")))
    p.add_argument("work_id", type=int)
    p.add_argument("--mode", choices=mode_names(), default="plain")
    p.add_argument("--tokens", type=int, default=120, help="new tokens to generate")
    p.add_argument("--budget", type=int, default=1000, help="prompt budget in tokens")
    p.add_argument("--chapter", type=int, default=None, help="continue from the end of this chapter")
    p.add_argument("--text-file", default=None, help="continue this text instead (the work's graph is used)")
    p.add_argument("--temperature", type=float, default=None, help="default 0 (greedy); 1 for --mode kid")
    p.add_argument("--variant", choices=("logits", "kv"), default="logits",
                   help="kid: Algorithm 1 on the logits, or the released code's KV-cache perturbation")
    p.add_argument("--seed", type=int, default=None, help="kid: sampling seed (the same seed gives the same text)")
    p.set_defaults(func=cmd_continue)
