"""The answer block of the Ask page: what it shows depends on whether the cited passages support the answer.

Supported: the book's own words quoted with their chapter (extractive; with an embedded model, its short rephrasing
above the quote when the check passes on it), or the model's answer with the source sentence that backs it. A
sentence of the book that does not state what was asked (core.qa.confidence) is shown as the closest passage, not in
bold as the answer; a whole-story question's sentences as a selection.
Not supported (the check failed, or the question names someone the cited passages never mention): "Not supported
by the chapters you have read" and why, never the answer presented as one, and never a source quote beneath it;
the model's words stay readable in a closed expander marked as not an answer.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from views._shared import plain

NOT_SUPPORTED = "Not supported by the chapters you have read."
EMBEDDED_NOTE = ("Answered with the book's own words: the embedded model cannot write reliable answers. A capable "
                 "model (OpenAI, Anthropic or a local server) can be set for answering in Settings.")
CLOSEST = ("**No sentence of the cited passages answers this plainly.** The closest one is quoted below: read it as "
           "a lead, not as the answer.")
SELECTION = ("**The book's sentences that bear most on your question**, in reading order: a selection, not a "
             "written answer.")
PATH_LABELS = {"auto": "automatic", "extractive": "the book's own words", "generate": "written by the model"}


def _where(item: dict[str, Any]) -> str:
    return f"chapter {item['chapter']}, passage {item['chunk'] + 1}" if item.get("chapter") is not None else ""


def _why(result: dict[str, Any]) -> str:
    """One plain sentence: why the answer is not supported."""
    support = result.get("support") or {}
    extraction = result.get("extraction") or {}
    asked = support.get("question_missing") or extraction.get("missing") or []
    if asked:
        return f"The passages found there do not mention {', '.join(asked)}."
    if support.get("missing_names"):
        return f"The answer names {', '.join(support['missing_names'])}, which the cited passages do not contain."
    if result["answer"] is None:
        return extraction.get("reason") or "No sentence of the cited passages answers the question."
    if support.get("off_question"):
        left = (support.get("relevance") or {}).get("missing") or []
        return ("The passages back its words, but it does not answer what you asked"
                + (f" (it leaves out {', '.join(left[:4])})." if left else "."))
    return "Its words and meaning do not match the cited passages."


def render_answer(result: dict[str, Any]) -> None:
    """The answer, or the plain statement that the chapters read do not support one; for "Who is X?", what the
    graph knows of X by then."""
    _render_answer(result)
    if result.get("card"):
        _render_card(result["card"])


def _render_card(card: dict[str, Any]) -> None:
    """X's X-Ray card as of the chapter asked up to: type and other names, where X is first named, relationships
    and states, each with its chapter."""
    also = f" (also {', '.join(card['aliases'][:4])})" if card.get("aliases") else ""
    st.markdown(f"**What the graph knows of {plain(card['name'])}{plain(also)} by chapter {card['position']}**")
    lines = [f"- {plain(card['type'])}, named in chapters {card['first_chapter']}–{card['last_chapter']}"]
    if card.get("introduced"):
        lines.append(f"- first named in chapter {card['introduced']['chapter']}: "
                     f"“{plain(card['introduced']['sentence'][:240])}”")
    lines += [f"- {plain(s['state'])} (chapter {s['chapter']})" for s in card.get("states", [])[:4]]
    lines += [f"- {plain(r.get('text') or r['with'] + ': ' + r['label'])} (since chapter {r['chapter']})"
              for r in card.get("relationships", [])[:5]]
    st.markdown("\n".join(lines))
    st.caption("From the knowledge graph built offline from the chapters up to there; the X-Ray on the Read page "
               "shows the whole card.")


def _render_answer(result: dict[str, Any]) -> None:
    answer, path = result["answer"], result["answer_path"]
    closest = (path == "extractive" and answer is not None and result["supported"] is not False  # (else: "Answer")
               and not (result.get("extraction") or {}).get("confident", 1))
    st.subheader("Closest passage" if closest else "Answer", anchor=False)
    if answer is None and path == "generate":
        st.info("Prompt only: no model was asked. The prompt is in the inspector below.")
        return
    if answer is None or result["supported"] is False:
        st.warning(f"**{NOT_SUPPORTED}** {plain(_why(result))}", icon=":material/block:")
        if answer is not None:
            with st.expander("What the answer said (not supported, so not an answer)"):
                st.caption(plain(answer))
        elif (result.get("extraction") or {}).get("unstated"):
            with st.expander("The closest sentence found (it does not answer this)"):
                for quote in result["extraction"]["quotes"]:
                    st.caption(f"“{plain(quote['text'])}” — {_where(quote)}")
        return
    if closest:
        _render_closest(result["extraction"], bool(result.get("embedded")))
    elif path in ("extractive", "rephrased"):
        _render_extractive(result, bool(result.get("embedded")))
    else:
        _render_generated(result)


def _render_extractive(result: dict[str, Any], embedded: bool) -> None:
    extraction = result["extraction"]
    if result["answer_path"] == "rephrased":  # the embedded model's short answer, checked against the quote
        st.markdown(f"**{plain(result['answer'])}**")
        st.caption("In the embedded model's words, from the sentence quoted below (which backs it):")
    else:  # the name, place or time asked for, else the clause that answers, when it is not the whole quote
        quoted = " ".join(q["text"] for q in extraction["quotes"])
        headline = extraction.get("span") or (result["answer"] if result["answer"] != quoted else None)
        if headline:
            st.markdown(f"**{plain(headline)}**")
    for quote in extraction["quotes"]:
        st.markdown("> " + plain(quote["text"]))
        st.caption(f"— {_where(quote)}, quoted from the book")
    if extraction.get("note"):   # a name the graph read from the quote ("his" is Mr. Darcy)
        st.caption(plain(extraction["note"]))
    if embedded:
        st.caption(EMBEDDED_NOTE)


def _render_closest(extraction: dict[str, Any], embedded: bool) -> None:
    """The reader's sentences that do not state what was asked (core.qa.confidence): never in bold as the answer."""
    whole = extraction.get("question_type") in ("summary", "creative")
    st.info(SELECTION if whole else CLOSEST, icon=":material/format_quote:" if whole else ":material/help:")
    for quote in extraction["quotes"]:
        st.markdown("> " + plain(quote["text"]))
        st.caption(f"— {_where(quote)}, quoted from the book")
    if embedded:
        st.caption(EMBEDDED_NOTE)


def _render_generated(result: dict[str, Any]) -> None:
    support = result.get("support") or {}
    st.markdown(plain(result["answer"]) or "*(the model gave no answer)*")
    chapters = result.get("answer_chapters") or []
    if chapters:
        st.caption("Cites chapter" + ("s " if len(chapters) > 1 else " ") + ", ".join(map(str, chapters)))
    if result["supported"] is None:
        st.caption("This answer has no words that could be checked against the cited passages.")
        return
    for note in support.get("notes", []):
        st.caption(plain(note))
    st.caption("The check weighs how well the cited passages back the answer (words, meaning, names) and whether it "
               "answers what you asked: it catches answers their sources do not back and true sentences that answer "
               "something else, not every wrong detail in an on-topic sentence.")
    if support.get("best") is not None:
        best = support["sentences"][support["best"]]
        where = f" ({_where(best)})" if "chapter" in best else ""
        st.caption(f"Source sentence that backs it{where}:")
        st.markdown("> " + plain(best["source"]))
