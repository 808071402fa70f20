"""The reading companion (issue 33) through the product's own paths: the reader's place stored per work and user (on
SQLite and PostgreSQL), visits and the returning reader's recap, and the X-Ray, recap and timelines of a small story
built with the real offline extractor: nothing from after the place, each item with the chapter it comes from."""
from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from core.companion.store import LOCAL_READER
from core.domain import NewChapter, WorkKind
from core.services import companion_service as cs
from core.services import kg_service, library
from core.services.guarded_store import guarded
from core.store import NotFound

ROOT = Path(__file__).resolve().parents[2]
BOOK = """The Sled Dogs

Chapter 1

Buck was a big dog who lived at Judge Miller's place. Spitz was the lead dog of the team, and Spitz hated Buck.
Perrault drove the sled across the frozen lake every morning. Perrault fed Buck and Spitz at night.

Chapter 2

Buck and Spitz fought on the river ice under the moon. Spitz fell, and the pack closed over him. Spitz died in the
snow that night, and Buck stood over him, the victor.

Chapter 3

The team went on along the trail toward Dawson. Perrault cracked his whip over the dogs. Buck led the team now.
Francois praised Buck to Perrault.

Chapter 4

The snow was deep on the trail. Buck pulled hard at the head of the team, and Perrault sang to the dogs. Thornton
found Buck at the river, and Thornton loved Buck.
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):  # noqa: ANN001, ANN201 - (store, work id)
    from storage.repository import SqlStore
    store = SqlStore.from_url(f"sqlite:///{tmp_path_factory.mktemp('companion') / 'fabula.db'}")
    work = library.import_book(store, "sled.txt", BOOK.encode())
    kg_service.build_graph(store, work.id)
    yield store, work.id
    store.engine.dispose()


def _two_chapter_work(store) -> int:  # noqa: ANN001
    return library.import_book(store, "two.txt", b"Two\n\nChapter 1\n\nOne text here.\n\nChapter 2\n\nTwo text.\n").id


# ---- the place ----------------------------------------------------------------------------------------------------

@pytest.fixture
def any_store(any_db_url):  # noqa: ANN001, ANN201
    from storage.repository import SqlStore
    store = SqlStore.from_url(any_db_url)
    yield store
    store.engine.dispose()


@pytest.mark.parametrize("any_db_url", ["sqlite", "postgresql"], indirect=True)
def test_a_place_is_kept_per_work_and_user_and_goes_with_its_work(any_store) -> None:  # noqa: ANN001
    store = any_store
    work = _two_chapter_work(store)
    assert store.position_get(work) is None
    store.position_set(work, 2, 1)
    store.position_set(work, 1, 0, "ann@example.org")
    assert (store.position_get(work).chapter, store.position_get(work).passage) == (2, 1)
    assert store.position_get(work, "ann@example.org").chapter == 1
    assert store.position_get(work, "bob@example.org") is None
    moved = store.position_set(work, 1, 3)                               # one row per reader: moved, not added
    assert (moved.chapter, moved.passage, moved.user) == (1, 3, LOCAL_READER)
    with pytest.raises(NotFound):
        store.position_set(work, 9, 0)                                   # no such chapter: nothing stored
    assert store.position_get(work).chapter == 1
    store.delete_work(work)
    with pytest.raises(NotFound):
        store.position_set(work, 1, 0)


def test_signed_in_readers_have_their_own_place_and_a_shared_reader_one_too(store) -> None:  # noqa: ANN001
    work = store.create_work("Mine", None, WorkKind.BOOK, {}, [NewChapter("One", "Text.", ["Text."]),
                                                                 NewChapter("Two", "More.", ["More."])],
                             owner="ann@example.org")
    ann, bob, eve = (guarded(store, u) for u in ("ann@example.org", "bob@example.org", "eve@example.org"))
    cs.set_position(ann, work.id, 2)
    store.share_work(work.id, "bob@example.org")
    cs.set_position(bob, work.id, 1)                                     # read-only, and still a place of his own
    assert cs.get_position(ann, work.id).chapter == 2 and cs.get_position(bob, work.id).chapter == 1
    assert ann.position_get(work.id, "bob@example.org").chapter == 2     # the user given is ignored: one's own
    with pytest.raises(NotFound):
        cs.set_position(eve, work.id, 1)                                 # not hers: as if missing
    assert store.position_get(work.id, "eve@example.org") is None


def test_reading_on_moves_the_place_forward_only_and_a_return_offers_the_last_visit(store) -> None:  # noqa: ANN001
    work = library.import_book(store, "sled.txt", BOOK.encode()).id
    start = cs.now_utc() - timedelta(days=8)
    cs.set_position(store, work, 1, now=start)
    cs.set_position(store, work, 2, now=start + timedelta(minutes=20))   # the same visit
    assert cs.advance(store, work, 1).chapter == 2                       # turning back keeps the place
    pos = cs.set_position(store, work, 3, now=start + timedelta(minutes=40))
    assert (pos.visit_chapter, pos.chapter) == (1, 3)
    assert cs.welcome_back(pos, now=start + timedelta(minutes=50)) is None
    assert cs.welcome_back(pos) == (1, 3)                                # a week later: recap chapters 1-3
    pos = cs.set_position(store, work, 4)                                # a new visit begins where the last ended
    assert (pos.visit_chapter, pos.chapter) == (3, 4)
    with pytest.raises(ValueError):
        cs.set_position(store, work, 0)


# ---- the views as of the place --------------------------------------------------------------------------------------

def _card(shown: cs.XRay, name: str):  # noqa: ANN202
    return next(c for c in shown.cards if c.name == name or name in c.aliases)


def _assert_no_later_item(card, position: int) -> None:  # noqa: ANN001
    late = [(what, ch) for what, ch in card.items() if ch > position]
    assert not late, f"{card.name} at chapter {position}: {late}"


def test_spitz_is_alive_on_his_card_until_the_chapter_he_dies(built) -> None:  # noqa: ANN001
    store, work = built
    before = cs.xray_cards(store, work, 1, position=1)
    spitz = _card(before, "Spitz")
    assert spitz.type == "character" and spitz.first_chapter == 1 and spitz.introduced.chapter == 1
    assert "Spitz" in spitz.introduced.sentence
    assert not any("dead" in s.text for s in spitz.states)
    assert {r.other for r in spitz.relationships} >= {"Buck"}
    for card in before.cards:
        _assert_no_later_item(card, 1)
    after = cs.xray_cards(store, work, 2, position=2)
    spitz = _card(after, "Spitz")
    death = [s for s in spitz.states if "dead" in s.text]
    assert death and death[0].chapter == 2 and "died" in death[0].sentence
    assert spitz.mentions == {1: spitz.mentions[1], 2: spitz.mentions[2]} and spitz.last_chapter == 2


def test_a_card_never_holds_a_later_fact_at_any_place(built) -> None:  # noqa: ANN001
    store, work = built
    texts = {c.index: " ".join(store.get_chapter(work, c.index).text.split()) for c in store.list_chapters(work)}
    for position in texts:
        for page in range(1, position + 1):
            for card in cs.xray_cards(store, work, page, position=position).cards:
                _assert_no_later_item(card, position)
                for item in [card.introduced, *card.states, *card.facts]:   # cited where they say they are
                    assert item.sentence in texts[item.chapter], (item, card.name)
        assert "Thornton" not in {c.name for c in cs.xray_cards(store, work, 4, position=3).cards}


def test_the_page_past_the_place_shows_only_what_the_place_knows(built) -> None:  # noqa: ANN001
    store, work = built
    shown = cs.xray_cards(store, work, 4, position=2)
    assert shown.past_position and "past your place" in shown.notes[0]
    assert "Thornton" not in {c.name for c in shown.cards}
    for card in shown.cards:
        _assert_no_later_item(card, 2)


def test_the_recap_cites_a_chapter_for_every_sentence_and_nothing_after_its_range(built) -> None:  # noqa: ANN001
    store, work = built
    told = cs.recap_of(store, work, 1, 2, words=40)
    assert told.sentences and told.words <= 40 and told.used_graph
    chapters = [s.chapter for s in told.sentences]
    assert chapters == sorted(chapters) and set(chapters) <= {1, 2}
    for s in told.sentences:
        assert s.text in " ".join(store.get_chapter(work, s.chapter).text.split())
    assert any("died" in s.text for s in cs.recap_of(store, work, 2, 2, words=25).sentences)   # the death is told
    with pytest.raises(ValueError):
        cs.recap_of(store, work, 3, 2)


def test_timelines_stop_at_the_place_and_the_pair_is_the_graph_timeline(built) -> None:  # noqa: ANN001
    store, work = built
    events = cs.timeline_of(store, work, ["Buck"], position=3)
    assert events and events[0].kind == "first appearance" and events[0].chapter == 1
    assert [e.chapter for e in events] == sorted(e.chapter for e in events) and max(e.chapter for e in events) <= 3
    assert "Thornton" not in " ".join(e.text for e in events)
    assert any(e.kind == "state" and "dead" in e.text for e in cs.timeline_of(store, work, ["Spitz"], position=4))
    pair = cs.timeline_of(store, work, ["Buck", "Spitz"], position=2)
    assert pair and {e.chapter for e in pair} <= {1, 2} and pair[0].kind == "meets"
    with pytest.raises(ValueError):
        cs.timeline_of(store, work, ["Thornton"], position=3)             # not met yet


def test_cli_prints_a_json_object_a_line(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    env = {"FABULA_DB_URL": f"sqlite:///{tmp_path / 'cli.db'}", "FABULA_DATA_DIR": str(tmp_path / "data")}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        import os
        return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], capture_output=True, text=True,
                              timeout=300, env={**os.environ, **env}, cwd=ROOT)

    book = tmp_path / "sled.txt"
    book.write_text(BOOK)
    assert cli("ingest", str(book)).returncode == 0
    assert cli("kg", "build", "1").returncode == 0
    assert json.loads(cli("position", "1", "--json").stdout) == {"work": 1, "chapter": None}
    assert json.loads(cli("position", "1", "--set", "2", "--json").stdout)["chapter"] == 2
    cards = [json.loads(line) for line in cli("xray", "1", "--json").stdout.splitlines()]   # as of the place: 2
    spitz = next(c for c in cards if c["name"] == "Spitz")
    assert spitz["type"] == "character" and any(s["chapter"] == 2 for s in spitz["states"])
    assert all(r["chapter"] <= 2 for c in cards for r in c["relationships"])
    one = [json.loads(line) for line in cli("xray", "1", "--chapter", "4", "--entity", "Thornton", "--json")
           .stdout.splitlines()]
    assert [c["name"] for c in one] == ["Thornton"]
    lines = [json.loads(line) for line in cli("recap", "1", "--words", "60", "--json").stdout.splitlines()]
    assert lines and all(set(x) >= {"sentence", "chapter"} and x["chapter"] <= 2 for x in lines)
    events = [json.loads(line) for line in cli("timeline", "1", "Buck", "Spitz", "--chapter", "2", "--json")
              .stdout.splitlines()]
    assert events and all(e["chapter"] <= 2 and e["sentence"] for e in events)
    bad = cli("timeline", "1", "Nobody", "--json")
    assert bad.returncode == 1 and "Nobody" in bad.stderr


@pytest.mark.slow
def test_no_item_of_any_view_comes_from_after_its_chapter_on_a_real_book(store) -> None:  # noqa: ANN001
    """The audit of bench/companion.py on the bundled sample book: every chapter, its 10 main characters."""
    from core.services.companion_audit import audit_work
    sample = ROOT / "assets" / "a_christmas_carol.txt"
    work = library.import_book(store, sample.name, sample.read_bytes()).id
    kg_service.build_graph(store, work)
    audit = audit_work(store, work)
    assert audit.chapters == 5 and "Scrooge" in audit.characters
    assert audit.checked > 1_000 and set(audit.by_view) == {"x-ray", "timeline", "recap"}
    assert audit.late == []
    assert audit.unlocated <= 0.02 * audit.checked          # cited where they say they are, nearly always verbatim


@pytest.mark.slow  # the support check loads MiniLM
def test_a_prose_recap_is_shown_only_when_its_sentences_back_it(built) -> None:  # noqa: ANN001
    from core.llm import FakeLLM, LLMTimeout
    from core.llm.registry import register_provider, unregister_provider
    from core.services.companion_prose import EMBEDDED_NOTE, recap_prose
    store, work = built
    told = cs.recap_of(store, work, 1, 2, words=60)
    replies = {"faithful": " ".join(s.text for s in told.sentences),
               "invented": "Thornton sailed to Paris with a golden dragon and married the queen of Spain."}

    def factory(model: str, **kw: object) -> FakeLLM:
        return FakeLLM([LLMTimeout("scripted") if model == "down" else replies[model]], model=model)

    register_provider("recaptest", factory)
    try:
        assert recap_prose(store, work, told, "local:smollm2").notes == [EMBEDDED_NOTE]   # not asked at all
        good = recap_prose(store, work, told, "recaptest:faithful")
        assert good.supported and good.text == replies["faithful"]
        bad = recap_prose(store, work, told, "recaptest:invented")
        assert not bad.supported and "Not shown" in bad.notes[0]
        down = recap_prose(store, work, told, "recaptest:down")
        assert not down.supported and "could not rewrite" in down.notes[0]
    finally:
        unregister_provider("recaptest")
