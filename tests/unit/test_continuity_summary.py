"""What a card says of a death read only through a pronoun ("she quietly drew her last", coreference resolving "she"
to Beth): the reader's card says it, hedged; the writer's prompt and the checks do not hold it as established."""
from __future__ import annotations

from core.continuity.checks import check
from core.continuity.model import Entities, State
from core.continuity.summary import established, prompt_block


def _state(chapter: int, kind: str, sentence: str, cue: str = "", start: int = 0) -> State:
    return State(chapter, "Beth", kind, "", "", sentence, start, start + len(sentence), cue)


def test_a_death_read_through_a_pronoun_is_on_the_card_hedged_and_kept_out_of_the_prompt() -> None:
    states = [_state(3, "act", "Beth played the piano."),
              _state(40, "dead", "With a sigh she quietly drew her last.", cue="pronoun")]
    lines = established(states, Entities())["n:Beth"]
    (dead,) = [line for line in lines if line.kind == "dead"]
    assert dead.text == "Beth is dead (read through a pronoun: see the passage)" and dead.chapter == 40
    assert dead.certain is False and dead.as_dict()["certain"] is False
    assert prompt_block({"n:Beth": lines}) == ""           # a coreference slip must not bind the writer
    assert check(states, Entities()) == []


def test_a_pronoun_death_the_book_keeps_contradicting_by_name_is_not_a_death() -> None:
    death = _state(20, "dead", "She died that night, they said.", cue="pronoun")
    once = [death, _state(21, "act", "The letter telling that Beth was failing never reached Amy.")]
    assert [line.chapter for line in established(once, Entities())["n:Beth"] if line.kind == "dead"] == [20]
    often = once + [_state(22, "act", "Beth ran down to the gate."), _state(23, "act", "Beth sang.")]
    assert not [line for line in established(often, Entities()).get("n:Beth", []) if line.kind == "dead"]
    alive = [death, _state(21, "alive", "Beth was alive after all.")]
    assert not [line for line in established(alive, Entities()).get("n:Beth", []) if line.kind == "dead"]


def test_a_plain_death_stays_certain_and_reaches_the_prompt() -> None:
    states = [_state(40, "dead", "Beth died in the spring.")]
    (dead,) = established(states, Entities())["n:Beth"]
    assert dead.certain and dead.text == "Beth is dead"
    assert "Beth is dead (since chapter 40)" in prompt_block({"n:Beth": [dead]})
