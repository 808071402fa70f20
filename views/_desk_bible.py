"""The desk's story bible (issue 34): a card per character, place and thing, built from the story's graph (type, other
names, relationships with their chapters, the states established about it), with the writer's note and pinned facts
(canon: they reach the writer's prompt for every chapter the entity is in). A search box; "seed from a book"."""
from __future__ import annotations

import streamlit as st

from core.services import bible_service as bs
from core.store import Store
from views._desk_common import done
from views._shared import plain
from views._state import Slot
from views._text import counted

SHOWN = 200   # rows of the cards' table


def bible_view(store: Store, work_id: int) -> None:
    query = st.text_input("Search the bible", key="desk_bible_q", placeholder="a name or another name",
                          icon=":material/search:")
    cards = bs.cards(store, work_id, query)
    if not cards:
        st.info("No card matches." if query.strip() else
                "No card yet: the bible fills as chapters are written and read into the graph. You can seed it from "
                "a book below, or pin a fact on a name of your own.")
    else:
        st.dataframe([{"Name": c.label, "Type": c.type, "Other names": ", ".join(c.aliases),
                       "Chapters": ", ".join(map(str, c.chapters)), "Pinned": len(c.pins),
                       "Note": "yes" if c.note else ""} for c in cards[:SHOWN]], hide_index=True)
        labels = [c.label for c in cards]
        label = st.selectbox("Open card", labels, key=f"desk_bible_card_{work_id}")
        _card(store, work_id, next(c for c in cards if c.label == label))
    with st.expander("A card for a name the graph has not met"):
        name = st.text_input("Name", key="desk_bible_new_name")
        kind = st.selectbox("Type", ["character", "location", "organization", "object"], key="desk_bible_new_type")
        fact = st.text_input("A fact to pin on it", key="desk_bible_new_fact")
        if st.button("Pin it", key="desk_bible_new_pin"):
            try:
                bs.pin(store, work_id, " ".join(name.split()), fact, entity_type=kind)
            except ValueError as exc:   # no name, an empty or too long fact
                st.error(plain(str(exc)))
            else:
                done(f"Pinned on {' '.join(name.split())}.")
    _seed(store, work_id)


def _card(store: Store, work_id: int, card: bs.Card) -> None:
    st.markdown(f"**{plain(card.label)}** · {plain(card.type)}" +
                (f" · also {plain(', '.join(card.aliases))}" if card.aliases else "") +
                (f" · first in chapter {card.first_chapter}, {counted(card.mentions, 'mention')}" if card.in_graph
                 else " · not in the graph yet"))
    if card.relationships:
        st.markdown("\n".join(f"- ch. {chapter}: {plain(text)}" for chapter, text in card.relationships))
    for state in card.states:
        st.caption(plain(state))
    key = f"{work_id}_{card.label}"
    note = st.text_area("Your note", card.note.text if card.note else "", key=f"desk_note_{key}", height=90,
                        help="Yours alone: the writer's prompt does not read it (pin a fact for that).")
    if st.button("Save the note", key=f"desk_note_save_{key}"):
        try:
            bs.set_note(store, work_id, card.label, note, names=card.aliases, entity_type=card.type)
        except ValueError as exc:
            st.error(plain(str(exc)))
        else:
            done(f"Note on {card.label} saved." if note.strip() else f"Note on {card.label} removed.")
    st.markdown("**Pinned facts** (canon: the writer is told them in every chapter "
                f"{plain(card.label)} is in; the continuity check holds drafts to them)")
    for entry in card.pins:
        text_col, save_col, drop_col = st.columns([6, 1, 1], vertical_alignment="bottom")
        edited = text_col.text_input("Pinned fact", entry.text, key=f"desk_pin_{entry.id}",
                                     label_visibility="collapsed")
        if save_col.button("Save", key=f"desk_pin_save_{entry.id}"):
            try:
                bs.edit_pin(store, work_id, entry.id, edited)
            except ValueError as exc:
                st.error(plain(str(exc)))
            else:
                done("Pinned fact saved.")
        if drop_col.button("Remove", key=f"desk_pin_rm_{entry.id}"):
            bs.remove(store, work_id, entry.id)
            done("Pinned fact removed.")
    new: Slot[str] = Slot(f"desk_pin_new_{key}", "")
    st.text_input("Pin a new fact", key=new.key, placeholder=f"{card.label} has green eyes.")
    if st.button("Pin", key=f"desk_pin_add_{key}", type="primary"):
        try:
            bs.pin(store, work_id, card.label, new.get(), names=card.aliases, entity_type=card.type)
        except ValueError as exc:   # an empty or too long fact
            st.error(plain(str(exc)))
        else:
            new.clear()
            done(f"Pinned on {card.label}.")


def _seed(store: Store, work_id: int) -> None:
    others = {w.id: w.title for w in store.list_works() if w.id != work_id and w.chapter_count}
    with st.expander("Seed from a book (fan fiction, a sequel)"):
        if not others:
            st.caption("No other work with chapters in the library.")
            return
        source = st.selectbox("Book", list(others), format_func=lambda i: f"{others[i]} (#{i})", key="desk_seed_from")
        st.caption(f"Its {bs.SEED_CARDS} most mentioned characters, places and things become cards of this story, "
                   "with a note of where they came from and their established facts pinned. Names this bible "
                   "already has are skipped.")
        if st.button("Seed the bible", key="desk_seed_go"):
            try:
                with st.spinner("Reading the book's bible…"):
                    seeded = bs.seed_from(store, source, work_id)
            except ValueError as exc:
                st.error(plain(str(exc)))
            else:
                done(f"{seeded} card{'' if seeded == 1 else 's'} seeded from “{others[source]}”." if seeded else
                     "Nothing to seed: the book has no graph yet (build it on the Graph page), or every name is "
                     "already here.")
