"""Writing: the planner / writer / grapher loop of Remember Me, its context block, continuation modes (plain,
kg-prompt after Andrus et al., kg-block; a registry that KID plugs into) and Markdown / EPUB export.

Pure core: nothing here touches a store; core.services.write_service wires it to one.
"""
from core.write.context import (ContextChapters, GraphEdge, GraphNode, StoryGraph, kg_block,
                                select_context_chapters)
from core.write.loop import Agents, Phase, StoryState, plan, run, step
from core.write.modes import (ContinuationMode, ContinuationRequest, FactPool, PreparedPrompt, get_mode, mode_names,
                              register_mode)
from core.write.params import ContinueParams, DecodeParams, WriteParams
from core.write.premises import ARCS, PREMISES, resolve_arc, resolve_premise
from core.write.writer import ChapterDraft, PriorChapter, finish_draft, split_marker, writer_messages

__all__ = ["ARCS", "PREMISES", "Agents", "ChapterDraft", "ContextChapters", "ContinuationMode", "ContinuationRequest",
           "ContinueParams", "DecodeParams", "FactPool", "GraphEdge", "GraphNode", "Phase", "PreparedPrompt",
           "PriorChapter", "StoryGraph", "StoryState", "WriteParams", "finish_draft", "get_mode", "kg_block",
           "mode_names", "plan", "register_mode", "resolve_arc", "resolve_premise", "run",
           "select_context_chapters", "split_marker", "step", "writer_messages"]
import core.write.kid  # noqa: E402,F401 - registers the "kid" continuation mode
