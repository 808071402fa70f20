"""`python cli.py kg retype`: the decision is stored, shown with --json, survives a rebuild; an unknown type or
entity is one line on stderr and a non-zero exit. (A real SQLite file; the graph comes from a scripted LLM reply,
so no model loads.)"""
from __future__ import annotations

import json

import pytest

from core.domain import NewChapter, WorkKind
from core.kg.types import NODE_TYPES

TEXT = "Anna Grey met Thomas Reed in London. Anna Grey wrote to Thomas Reed."
REPLY = ("Named entities:\nAnna Grey\nThomas Reed\nLondon\n\nKnowledge graph edges:\n1. Anna Grey; met; Thomas Reed\n"
         "2. Anna Grey; wrote to; Thomas Reed\n3. Thomas Reed; lived in; London")


def test_kg_retype_from_the_command_line(db_url: str, fresh_settings: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    import cli
    import cli_commands
    from core.llm import FakeLLM
    from core.services import kg_service
    fresh_settings.setenv("FABULA_DB_URL", db_url)
    fresh_settings.setattr(cli_commands, "_store", None)
    store = cli_commands.open_store()
    work_id = store.create_work("Harbour", None, WorkKind.STORY, {}, [NewChapter("One", TEXT, [TEXT])]).id

    def build() -> None:
        kg_service.build_graph(store, work_id, extractor="llm", llm=FakeLLM([REPLY], context_window=8192),
                               force=True)

    build()
    before = kg_service.find_entity(store, work_id, "Thomas Reed")
    assert before.type != "location"
    assert cli.main(["kg", "retype", str(work_id), "Thomas Reed", "Location", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["type"] == "location" and shown["label"] == "Thomas Reed" and shown["id"] == before.id
    assert [d.op for d in store.kg_decisions(work_id)] == ["retype"]
    build()  # re-extraction: the decision, stored by names, is applied again
    assert kg_service.find_entity(store, work_id, "Thomas Reed").type == "location"

    assert cli.main(["kg", "retype", str(work_id), "Thomas Reed", "pirate"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Unknown type 'pirate'" in err and ", ".join(NODE_TYPES) in err
    assert cli.main(["kg", "retype", str(work_id), "Nobody", "event"]) == 1
    assert "No entity 'Nobody'" in capsys.readouterr().err
    assert kg_service.find_entity(store, work_id, "Thomas Reed").type == "location"  # the failures changed nothing
