"""What a model's generated text goes through before it is shown or kept as a continuation or a chapter draft, in
one place: a loop cut (core.textguard), a chapter the model started cut off (core.write.new_chapter), a sentence the
token limit cut short dropped (core.write.ending, only when nothing before cut the end), then assistant talk taken
off (core.metatalk). Each step that changes the text says so in `notes`, in that order.

    tidy = tidy_generated(reply.text.strip(), at_limit=reply.finish_reason == "length")
    tidy.text, tidy.notes, tidy.talk_only
"""
from __future__ import annotations

from dataclasses import dataclass

from core.metatalk import without_talk
from core.textguard import check_text
from core.write.ending import whole_sentences
from core.write.new_chapter import without_new_chapter


@dataclass(frozen=True)
class Tidied:
    text: str               # what to show
    notes: list[str]        # what was done to it, for the page
    talk_only: bool         # the model wrote about the text rather than the text (core.metatalk)
    kept: str               # the text before talk was taken off: a prefix of the input (KID's steps follow it)


def tidy_generated(text: str, *, keep_start: bool = False, at_limit: bool = False) -> Tidied:
    """`keep_start`: the text's start stays as written (KID's steps are tied to it); `at_limit`: the generation
    stopped at its token limit."""
    checked = check_text(text)
    kept, chapter_notes = without_new_chapter(checked.text, keep_start=keep_start)
    kept, ending = whole_sentences(kept, cut=at_limit and not checked.cut and not chapter_notes)
    shown, talk, talk_only = without_talk(kept, keep_start=keep_start)
    notes = ([checked.note] if checked.cut else []) + chapter_notes + ([ending] if ending else []) + talk
    return Tidied(shown, notes, talk_only, kept)
