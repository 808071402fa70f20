"""The reading companion's X-Ray beside the Read page's text (issue 33): a card for each character, place and thing
named in the open chapter, as of the reader's place, and the timeline of one character or of a pair."""
from __future__ import annotations

import streamlit as st

from core.companion.xray import Card, Relation
from core.services import companion_service as cs
from core.store import Store
from views._state import READ_XRAY
from views._text import plain

ICONS = {"character": ":material/person:", "location": ":material/place:", "organization": ":material/groups:",
         "object": ":material/category:", "event": ":material/event:"}
BARS = "▁▂▃▄▅▆▇█"


def _spark(mentions: dict[int, int], position: int) -> str:
    top = max(mentions.values(), default=0)
    return "".join(BARS[min(len(BARS) - 1, (len(BARS) * mentions.get(c, 0)) // (top + 1))] if mentions.get(c)
                   else "·" for c in range(1, position + 1))


def _relation_line(r: Relation) -> str:
    """"Ann grabbed Jonathan", the other's name in bold; the label after the name where no such line was made."""
    if r.text and r.other in r.text:
        return plain(r.text).replace(plain(r.other), f"**{plain(r.other)}**", 1)
    return f"**{plain(r.other)}**: {plain(r.label)}"


def _card(card: Card, open_: bool) -> None:
    with st.expander(f"{card.name} · {card.on_page}×", icon=ICONS.get(card.type), expanded=open_,
                     key=f"xray_card_{card.node}"):
        also = f" · also {', '.join(card.aliases[:4])}" if card.aliases else ""
        st.caption(plain(f"{card.type}{also} · chapters {card.first_chapter}–{card.last_chapter}"))
        if card.introduced:
            st.markdown(f"*First named (chapter {card.introduced.chapter}):* {plain(card.introduced.sentence[:300])}")
        if card.states:
            st.markdown("\n".join(f"- **{plain(s.text)}** (chapter {s.chapter})" for s in card.states[:8]))
        if card.relationships:
            st.markdown("\n".join(f"- {_relation_line(r)} (since chapter {r.chapter})" for r in card.relationships))
        if card.facts:
            st.caption("Latest: " + " · ".join(plain(f"{f.text} (ch. {f.chapter})") for f in card.facts[:3]))
        st.caption(f"Mentions per chapter 1–{card.position}: `{_spark(card.mentions, card.position)}`")


def xray_panel(store: Store, work_id: int, index: int) -> None:
    """The X-Ray of the open chapter as of the place, and the timeline of one or two of its people."""
    if not st.toggle("X-Ray", value=READ_XRAY.default, key=READ_XRAY.key,
                     help="Who and what is on this page, as of your place"):
        return
    shown = cs.xray_cards(store, work_id, index)
    for note in shown.notes:
        st.caption(plain(note))
    if not shown.cards:
        if shown.built:
            st.caption("No one the graph knows by your place is named in this chapter.")
        return
    st.caption(f"As of chapter {shown.position} · {len(shown.cards)} on this page")
    with st.container(key="read_xray_cards"):
        for k, card in enumerate(shown.cards):
            _card(card, k < 3)
    names = {c.node: c.name for c in shown.cards if c.type == "character"}
    if names:
        with st.expander("Timeline", icon=":material/timeline:"):
            who = st.multiselect("One character, or two for their relationship", list(names), max_selections=2,
                                 format_func=names.__getitem__, key=f"read_timeline_{work_id}")
            if who:
                try:
                    events = cs.timeline_of(store, work_id, [names[n] for n in who], shown.position)
                except ValueError as exc:
                    st.caption(plain(str(exc)))
                    events = []
                for e in events:
                    st.markdown(f"**Ch. {e.chapter}** · {plain(e.text)}  \n:gray[{plain(e.sentence[:240])}]")
