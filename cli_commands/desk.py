"""The writer's desk on the command line (issue 34): rewrite a passage of a chapter, and check a chapter against its
plan.

    cli.py story rewrite WORK --chapter N --start S --end E --kind rewrite|expand|shorten|tone --instruction "..."
                          [--keep] [--llm PROVIDER:MODEL] --json    # {"chapter","start","end","old","new",...}
    cli.py story adherence WORK --chapter N --json                  # which planned beats and characters appear

Without --keep the rewrite is only shown (nothing stored); with it, the chapter is saved as its next revision.
"""
from __future__ import annotations

import argparse
from typing import Any

from cli_commands import CliError, add_json_flag, add_llm_flag, not_found_as_cli_error, open_store
from core.llm import LLM, LLMError
from core.store import Store


def _writing_llm(store: Store, work_id: int, override: str | None) -> LLM:
    """The story's own writing model (or the writing role's, for a book), as `story next` uses it."""
    from core.services import llm_service
    from core.services.write_service import story_params
    try:
        saved = story_params(store, work_id).llm
    except ValueError:
        saved = None
    try:
        return llm_service.build_llm(store, "writing", override or saved, work_id=work_id)
    except LLMError as exc:
        raise CliError(str(exc)) from exc


@not_found_as_cli_error
def cmd_rewrite(args: argparse.Namespace) -> dict[str, Any]:
    from core.services import rewrite_service
    store = open_store()
    try:
        r = rewrite_service.rewrite_passage(store, args.work_id, args.chapter, args.start, args.end, args.kind,
                                            args.instruction, _writing_llm(store, args.work_id, args.llm))
        out = r.as_dict() | {"kept": False}
        if args.keep:
            chapter = rewrite_service.keep_rewrite(store, args.work_id, r)
            out |= {"kept": True, "new_revision": chapter.revision, "words": chapter.word_count}
    except rewrite_service.RewriteError as exc:
        raise CliError(str(exc)) from exc
    return out


@not_found_as_cli_error
def cmd_adherence(args: argparse.Namespace) -> dict[str, Any]:
    from core.services import plan_service
    try:
        return plan_service.adherence(open_store(), args.work_id, args.chapter).as_dict()
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def register_story(story: argparse._SubParsersAction) -> None:
    """The desk's subcommands of `cli.py story` (cli_commands.write registers the group)."""
    from core.services.rewrite_service import KINDS
    p = add_llm_flag(add_json_flag(story.add_parser("rewrite", help="rewrite, expand, shorten or re-tone a passage")))
    p.add_argument("work_id", type=int)
    p.add_argument("--chapter", type=int, required=True)
    p.add_argument("--start", type=int, required=True, help="the passage's first character (0-based offset)")
    p.add_argument("--end", type=int, required=True, help="one past the passage's last character")
    p.add_argument("--kind", choices=KINDS, default="rewrite")
    p.add_argument("--instruction", default="", help="what the writer wants (required for --kind tone)")
    p.add_argument("--keep", action="store_true", help="save the rewrite as the chapter's next revision")
    p.set_defaults(func=cmd_rewrite)

    p = add_json_flag(story.add_parser("adherence", help="which planned beats and characters a chapter has"))
    p.add_argument("work_id", type=int)
    p.add_argument("--chapter", type=int, required=True)
    p.set_defaults(func=cmd_adherence)
