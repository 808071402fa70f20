"""The writer -> grapher -> planner state machine with scripted agents, and the writer's plain-text protocol
(marker line, structured follow-up, chapter limit) with FakeLLM."""
from __future__ import annotations

from core.llm import FakeLLM
from core.write import Agents, Phase, StoryState, WriteParams, finish_draft, run, split_marker, step, writer_messages
from core.write.loop import after_accepting
from core.write.writer import ChapterDraft, PriorChapter, clean_chapter


class Script:
    """Agents over an in-memory list: chapter n is final when n is in `finals`."""

    def __init__(self, finals: set[int] = frozenset()) -> None:  # type: ignore[assignment]
        self.finals = finals
        self.chapters: list[str] = []
        self.graphed: list[int] = []
        self.calls: list[str] = []

    def write(self, n: int) -> ChapterDraft:
        self.calls.append(f"write {n}")
        return ChapterDraft(n, f"text {n}", n in self.finals, "marker", "", "")

    def accept(self, draft: ChapterDraft) -> int:
        self.chapters.append(draft.text)
        return len(self.chapters)

    def graph(self, index: int) -> None:
        self.calls.append(f"graph {index}")
        self.graphed.append(index)

    def agents(self, with_graph: bool = True) -> Agents:
        return Agents(self.write, self.accept, self.graph if with_graph else None)


def test_chapters_appear_until_the_final_flag() -> None:
    script = Script(finals={3})
    seen: list[StoryState] = []
    state = run(StoryState(), script.agents(), max_chapters=10, on_step=seen.append)
    assert script.chapters == ["text 1", "text 2", "text 3"]
    assert script.calls == ["write 1", "graph 1", "write 2", "graph 2", "write 3", "graph 3"]
    assert state == StoryState(3, Phase.DONE, True, True)
    assert [s.phase for s in seen[:3]] == [Phase.GRAPH, Phase.PLAN, Phase.WRITE]


def test_the_chapter_limit_ends_the_story_without_a_final_flag() -> None:
    script = Script()
    state = run(StoryState(), script.agents(with_graph=False), max_chapters=2)
    assert script.chapters == ["text 1", "text 2"] and state.finished and not state.final
    assert "graph 1" not in script.calls  # the no-KG story has no grapher


def test_one_turn_and_resuming_from_a_saved_state() -> None:
    script = Script()
    state = run(StoryState(), script.agents(), max_chapters=5, chapters=1)
    assert state == StoryState(2, Phase.WRITE) and script.chapters == ["text 1"]
    # a run killed after storing chapter 2 but before the grapher resumes at the grapher, writing nothing twice
    script.chapters.append("text 2")
    resumed = run(after_accepting(2, False), script.agents(), max_chapters=5, chapters=1)
    assert script.calls[-1] == "graph 2" and script.chapters == ["text 1", "text 2"]
    assert resumed == StoryState(3, Phase.WRITE)
    assert step(StoryState(4, Phase.DONE, True, True), script.agents(), 5).phase is Phase.DONE
    assert StoryState.from_dict(resumed.as_dict()) == resumed


def test_marker_is_read_and_removed() -> None:
    assert split_marker("She ran.\n\nSTORY STATUS: FINAL") == ("She ran.", True)
    assert split_marker("She ran.\n**Story status:** continue") == ("She ran.", False)
    assert split_marker("She ran.") == ("She ran.", None)
    assert clean_chapter("Chapter 3: The Egg\n\nIt hatched.") == "It hatched."


def test_final_decision_order() -> None:
    params = WriteParams("1", "Icarus", max_chapters=4)
    llm = FakeLLM(["FINAL", "banana"])
    assert finish_draft(llm, params, 1, "Once.\nSTORY STATUS: FINAL", "").final is False  # chapter 1 never ends it
    assert finish_draft(llm, params, 4, "End.", "").decided_by == "limit"
    assert not llm.calls
    by_marker = finish_draft(llm, params, 2, "Mid.\nSTORY STATUS: FINAL", "")
    assert (by_marker.final, by_marker.decided_by, by_marker.text) == (True, "marker", "Mid.")
    followed = finish_draft(llm, params, 3, "No marker here.", "")
    assert (followed.final, followed.decided_by) == (True, "follow-up")
    assert "Answer with one word: FINAL or CONTINUE" in llm.calls[0].prompt
    unreadable = finish_draft(llm, params, 3, "No marker again.", "")
    assert (unreadable.final, unreadable.decided_by) == (False, "default")


def test_writer_prompt_fits_the_context_and_keeps_the_latest_text() -> None:
    params = WriteParams("3", "Oedipus", min_words=50, max_words=100)
    prior = [PriorChapter(i, f"Part {i}", f"start{i} " + "word " * 400 + f"end{i}") for i in range(1, 5)]
    count = lambda s: len(s.split())  # noqa: E731
    messages = writer_messages(params, 5, prior, "KNOWLEDGE GRAPH (use this to maintain consistency):\n## x",
                               count, context_window=1200)
    system = messages[0]["content"]
    assert "end4" in system and "start1" not in system and "end1" not in system  # last three, cut at the start
    assert "This is chapter 5." in system and "KNOWLEDGE GRAPH" in system
    assert sum(count(m["content"]) for m in messages) + params.chapter_tokens() <= 1200
    first = writer_messages(params, 1, [], "", count, 1200)
    assert "Starting premise: During a chess tournament" in first[0]["content"]
    assert first[1]["content"] == "Write Chapter 1 of this story."
