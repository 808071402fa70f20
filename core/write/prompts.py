"""The writer's prompts: Remember Me Appendix A.1.1 / A.1.2, with the tool call replaced by a plain-text marker.

The paper's writer calls `submit_chapter(chapter_text, is_final_chapter)`. Models without tool calling (every local
model) instead end the chapter with a marker line; when the marker is missing or unreadable, one short structured
follow-up (FINAL_FOLLOWUP) asks yes/no. The no-KG baseline uses the same prompts without the knowledge-graph block.
"""
from __future__ import annotations

FINAL_MARKER = "STORY STATUS:"
MARKER_INSTRUCTION = (f"After the chapter, on its own last line, write exactly `{FINAL_MARKER} FINAL` if this chapter "
                      f"completes the story or `{FINAL_MARKER} CONTINUE` if more chapters are needed.")

WRITER_FIRST_SYSTEM = """You are a creative story writer. Write the first chapter of a story following the '{arc}' \
narrative archetype.

Archetype description:
{arc_description}

Starting premise: {premise}{desk}

Write an engaging first chapter ({min_words}--{max_words} words) that:

- Introduces the main character(s)
- Sets up the initial situation
- Establishes the tone and setting
- Hooks the reader
- Ends with a compelling reason to continue

{marker} This is just the beginning, so write `{final_marker} CONTINUE`.

The '{arc}' archetype should guide the overall story structure, so keep it in mind for future chapters.
Write ONLY narrative content, no meta-commentary."""

WRITER_FIRST_USER = "Write Chapter 1 of this story."

WRITER_NEXT_SYSTEM = """You are a creative story writer continuing a story following the '{arc}' narrative archetype.

Archetype description:
{arc_description}

This is chapter {n}.{limit}

Story so far (last few chapters):
{story_so_far}
{kg_context}{desk}
Your task:

1. Write the next chapter ({min_words}--{max_words} words) that continues from where the previous chapter left off
2. {consistency}
3. Monitor the story's progression according to the '{arc}' archetype and its description above
4. DECIDE WHETHER THE STORY HAS REACHED ITS NATURAL CONCLUSION based on:
 - Whether the archetype's narrative structure is complete
 - Whether character arcs are resolved
 - Whether the main conflict has been addressed
 - Whether the story feels satisfying and complete
5. {marker}

Pacing guidelines:

- Let the story develop naturally -- don't rush to the end
- Ensure proper pacing according to the archetype description above
- The story should feel complete when you mark it as final, not abrupt

Write ONLY narrative content, no meta-commentary."""

CONSISTENCY_KG = ("Review the KNOWLEDGE GRAPH above to maintain consistency with established characters, locations, "
                  "and relationships")
CONSISTENCY_PLAIN = "Maintain consistency with established characters, locations, and relationships"
LAST_CHAPTER_NOTE = " It is the last chapter the story may have: bring it to its conclusion."
WRITER_NEXT_USER = "Write Chapter {n} and decide if the story should continue."

# The writer's desk (issue 34): the chapter's plan and the canon go after the premise (chapter 1) or after the graph
# block; "" when there is neither, so the prompts above read exactly as the paper's.
DESK_FIRST = "\n\n{block}"
DESK_NEXT = "\n{block}\n"

# The structured follow-up for a reply without a readable marker: one word back, parsed leniently.
FINAL_FOLLOWUP = """Here is the chapter just written for a story following the '{arc}' archetype:

{chapter_end}

Does this chapter complete the story (the archetype's structure is complete, the main conflict resolved)? \
Answer with one word: FINAL or CONTINUE."""
FOLLOWUP_TOKENS = 4

# The Remember Me context block (Appendix A.1.2); headings are kept verbatim.
KG_HEADER = "KNOWLEDGE GRAPH (use this to maintain consistency):"
KG_FOUNDATIONAL = "## Introduced in Chapter 1 (foundational): {items}"
KG_MILESTONE = "## Introduced in Chapter {m} (milestone): {items}"
KG_RECENT = "## New in Chapter {k}: {items}"
KG_CHARACTERS = "## All Characters & Organisations (cumulative): {items}"
KG_CHARACTER_RELATIONS = "## All Character Relationships (cumulative): {items}"
KG_OTHER_ENTITIES = "## Other Entities: {items}"
KG_OTHER_RELATIONS = "## Other Relationships: {items}"

# Continuations: the mode builds the text; this instruction wraps it for chat models.
CONTINUE_SYSTEM = ("You continue a piece of fiction. Write the next paragraph in the same voice and tense, "
                   "staying consistent with the text and any facts given. Write only the continuation.")
CONTINUE_USER = "Continue this text:\n\n{prompt}"
