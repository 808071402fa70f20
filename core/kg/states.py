"""The story's states, read offline from the parse the graph build already makes (issue 32): who acts, who dies,
who is whose sister, eye and hair colour, age, height, profession, nationality, birthplace and home, the full names
used, and where years pass. core.continuity checks later sentences against them, in chapter order.

Each fact names the sentence it comes from (character offsets in the parsed passage; core.continuity.locate maps
them onto the chapter's text) and carries cues: what makes it no plain statement of the story's present. A sentence
in a quotation is someone's word ("quote"), one under "thought" or "seemed" a belief, one with "would" or "nearly"
a hedge, "had run" a flashback ("perfect"), "he remembered Spitz" a memory, "Marley's ghost" a ghost. The checks
decide which cues rule a fact out; the extractor only records them.

Names come from core.kg.mentions (explicit) and core.kg.coref (resolved pronouns, cue "pronoun"), so "his sister
Jane" is Jane's tie to the man "his" refers to. Kinds: act, dead, alive, tie, attr, born, home, move, name, time.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.kg import state_facts
from core.kg import state_words as W
from core.kg.names import ADDRESS_WORDS, HONORIFICS, LEADING_NOISE
from core.kg.state_base import PRONOUN_CONFIDENCE, ParsedDoc, StateFact, sentence_cues, sentence_words, verb_cues

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Doc, Span, Token

    from core.kg.mentions import Mention

__all__ = ["KINDS", "STATES_VERSION", "StateFact", "chapter_states"]

KINDS = ("act", "dead", "alive", "tie", "attr", "born", "home", "move", "name", "time")
STATES_VERSION = "states-10"   # stored with each chapter's extraction: chapters read by another version are re-read
ACT_DEPS = frozenset({"nsubj"})
PRESENT_BE = W.forms("was were is are")
PRESENT_PREPS = W.forms("at beside near by with")
SEEN_VERBS = W.forms("saw see sees met meet meets greeted greets embraced embraces kissed kisses visited visits "
                      "followed follows")


class _Reader:
    """Reads one chapter's passages sentence by sentence; each pattern appends StateFacts."""

    def __init__(self) -> None:
        self.out: list[StateFact] = []
        self.seen_names: set[str] = set()

    def add(self, d: ParsedDoc, sent: Span, name: str, kind: str, key: str, value: str, cues: Sequence[str] = (),
            explicit: bool = True, confidence: float = 1.0) -> None:
        text = sent.text.strip()
        lead = len(sent.text) - len(sent.text.lstrip())
        start = sent.start_char + lead
        tags = list(dict.fromkeys([*cues, *(() if explicit else ("pronoun",))]))
        if any(d.depth[t.i] > 0 for t in sent if not t.is_punct) and kind != "time":
            if all(d.depth[t.i] > 0 for t in sent if not t.is_punct) or "quote" in cues:
                tags.append("quote")
        self.out.append(StateFact(name, kind, key, value, d.chunk_index, start, start + len(text), text[:1000],
                                  ",".join(dict.fromkeys(tags)),
                                  round(confidence * (1.0 if explicit else PRONOUN_CONFIDENCE), 3)))

    # ---- per sentence --------------------------------------------------------------------------------------------
    def sentence(self, d: ParsedDoc, sent: Span) -> None:
        words = sentence_words(sent)
        base = sentence_cues(words)
        acted: set[str] = set()
        for tok in sent:
            found = d.name(tok)
            if found is not None:
                name, explicit = found
                quoted = d.depth[tok.i] > 0
                self.acts(d, sent, tok, name, explicit, quoted, base, acted)
                self.deaths(d, sent, tok, name, explicit, quoted)
                full = _with_first_word(d, tok, name) if explicit else name
                if explicit and " " in full and full not in self.seen_names and d.types.get(name) == "character":
                    self.seen_names.add(full)
                    self.add(d, sent, full, "name", "", full, ["quote"] if quoted else [])
            state_facts.read_token(self.add, d, sent, tok, words)
        self.time_passing(d, sent, words)

    def acts(self, d: ParsedDoc, sent: Span, tok: Token, name: str, explicit: bool, quoted: bool, base: list[str],
             acted: set[str]) -> None:
        """A name acting: the subject of a verb that is not being or lying still, or the one seen or met."""
        verb = tok.head
        if name in acted or verb is tok:
            return
        if (tok.dep_ in ACT_DEPS and verb.pos_ in ("VERB", "AUX") and (verb.lower_ not in W.STILL_VERBS
                                                                      or _looks_somewhere(verb))
                and verb.lower_ not in W.DIE_VERBS and not _dying_idiom(verb)
                and not _kills_self(verb)):   # dying is a death, not an act
            key = "speaks" if verb.lower_ in _SPEECH else "acts"
        elif tok.dep_ == "dobj" and verb.lower_ in SEEN_VERBS:
            key = "seen"
        elif tok.dep_ == "nsubj" and verb.lower_ in PRESENT_BE and any(
                c.dep_ == "prep" and c.lower_ in PRESENT_PREPS for c in verb.children) and not any(
                c.dep_ in ("acomp", "attr") for c in verb.children):
            key = "present"   # "Marley was at his desk": there, in the story's present
        else:
            return
        cues = list(base) + verb_cues(verb) + (["quote"] if quoted else [])
        if _is_late(d, tok):
            cues.append("late")
        if _ghostly(d, tok):
            cues.append("ghost")
        acted.add(name)
        self.add(d, sent, name, "act", key, verb.lower_, cues, explicit)

    def deaths(self, d: ParsedDoc, sent: Span, tok: Token, name: str, explicit: bool, quoted: bool) -> None:
        """"X died", "X was killed", "Y killed X", "X was dead", "the death of X", "the late X", and a weak one: X
        vanishing in a paragraph about a death."""
        verb, dep = tok.head, tok.dep_
        q = ["quote"] if quoted else []
        if _is_late(d, tok):
            self.add(d, sent, name, "dead", "late", "", q, explicit, 0.9)
        if dep == "nsubj" and _kills_self(verb):
            self.add(d, sent, name, "dead", "suicide", "", q + verb_cues(verb), explicit)
        elif dep == "nsubj" and ((verb.lower_ in W.DIE_VERBS and not any(
                c.dep_ == "prt" and c.lower_ in W.DIE_NOT_PARTICLES for c in verb.children)) or _dying_idiom(verb)):
            self.add(d, sent, name, "dead", "died", "", q + verb_cues(verb), explicit)
        elif (dep == "nsubjpass" and verb.lower_ in W.KILL_VERBS) or (
                dep == "dobj" and verb.lower_ in W.KILL_VERBS and not quoted):
            self.add(d, sent, name, "dead", "killed", "", q + verb_cues(verb), explicit)
        elif dep == "nsubj" and (verb.lower_ in W.DEAD_WORDS or any(
                c.dep_ in ("acomp", "oprd") and c.lower_ in W.DEAD_WORDS and not list(c.children)
                for c in verb.children)):
            self.add(d, sent, name, "dead", "dead", "", q + verb_cues(verb), explicit)
        elif dep == "nsubj" and verb.lower_ in ("alive", "living") or (
                dep == "nsubj" and any(c.dep_ == "acomp" and c.lower_ in ("alive", "living") for c in verb.children)):
            self.add(d, sent, name, "alive", "alive", "", q + verb_cues(verb), explicit)
        elif dep == "nsubj" and verb.lower_ in ("survived", "survives", "lives", "escaped"):
            self.add(d, sent, name, "alive", "survived", "", q + verb_cues(verb), explicit)
        elif dep == "nsubj" and verb.lower_ in W.VANISH_VERBS and not quoted and explicit:
            para = d.paragraph[tok.i]
            context = {t.lower_ for t in d.doc if d.paragraph[t.i] == para}
            if context & W.DEATH_CONTEXT:
                self.add(d, sent, name, "dead", "inferred", "", verb_cues(verb), explicit, 0.5)
        if (dep == "poss" and verb.lower_ in W.DEATH_NOUNS) or (
                dep == "pobj" and verb.lower_ == "of" and verb.head.lower_ in W.DEATH_NOUNS):
            noun = verb if dep == "poss" else verb.head
            self.add(d, sent, name, "dead", "death", "", q + verb_cues(noun.head), explicit, 0.8)

    def time_passing(self, d: ParsedDoc, sent: Span, words: frozenset[str]) -> None:
        """"Two years passed", "a year later", "years went by": time the ages may grow by."""
        if not words & W.AGE_UNITS or "ago" in words:
            return
        if not (words & W.TIME_PASS_VERBS or words & W.TIME_LATER_WORDS or "following" in words or "next" in words):
            return
        for tok in sent:
            if tok.lower_ not in W.AGE_UNITS:
                continue
            count = "many" if tok.lower_ == "years" else "1"
            for c in tok.children:
                if c.dep_ in ("nummod", "det", "quantmod") and c.lower_ in W.NUMBER_WORDS:
                    count = str(W.NUMBER_WORDS[c.lower_] or "many")
                elif c.dep_ == "nummod" and c.text.isdigit():
                    count = c.text
            self.add(d, sent, "", "time", "years", count)
            return


_SPEECH = W.forms("said says cried replied answered exclaimed asked added whispered shouted muttered murmured "
                   "called laughed sighed smiled declared remarked")


def _with_first_word(d: ParsedDoc, tok: Token, name: str) -> str:
    """The name as written when the model's mention left out a capitalised first word the parse joins to it
    ("Heinrich Bhaer" is tagged "Bhaer"): that word and the name; else the name."""
    if " " in name or tok.i == 0 or tok.text != name:
        return name
    first = tok.doc[tok.i - 1]
    if first.dep_ != "compound" or first.head.i != tok.i or first.pos_ != "PROPN" or not first.is_title \
            or not first.is_alpha or d.name(first) is not None:
        return name
    low = first.lower_
    if low in HONORIFICS or low in ADDRESS_WORDS or low in LEADING_NOISE or low in W.PROFESSIONS \
            or low in W.TIES or low in W.NATIONALITIES:
        return name
    return f"{first.text} {name}"


def _dying_idiom(verb: Token) -> bool:
    """"drew her last (breath)", "breathed his last", "passed away", "gave up the ghost": the subject died."""
    if verb.lower_ in W.LAST_BREATH_VERBS:   # "last" the object ("his last", not "the last of the meat"), or
        return any((c.lower_ == "last" and not any(g.dep_ == "prep" for g in c.children))   # "her last breath"
                   or (c.lower_ == "breath" and any(g.lower_ == "last" for g in c.children))
                   for c in verb.children if c.dep_ in ("dobj", "advmod", "npadvmod"))
    words = {c.lower_ for c in verb.subtree if c.i > verb.i and c.i - verb.i <= 4}
    if verb.lower_ in W.PASS_AWAY_VERBS:
        return (any(c.lower_ == "away" and c.i == verb.i + 1 for c in verb.children)   # not "passed the salt away"
                and not any(c.dep_ == "dobj" for c in verb.children))                 # nor "passed away the time"
    return verb.lower_ in W.GIVE_VERBS and "ghost" in words and "up" in words   # the graph's parse has no lemmas


def _kills_self(verb: Token) -> bool:
    """"shot himself", "had hanged herself", "committed suicide": the subject took its own life (not "tried to kill
    himself" or "meant to drown himself": an aim under another verb, no death)."""
    if verb.dep_ == "xcomp":
        return False
    objects = [c for c in verb.children if c.dep_ == "dobj"]
    if verb.lower_ in W.SELF_KILL_VERBS:
        return any(c.lower_ in W.REFLEXIVES for c in objects)
    return verb.lower_ in W.COMMIT_VERBS and any(c.lower_ == "suicide" for c in objects)


def _looks_somewhere(verb: Token) -> bool:
    """"looked up", "looked at her", "appeared at the door": an act; "looked pale", "appeared dead" are not."""
    children = list(verb.children)
    return verb.lower_ in W.LOOK_VERBS and not any(c.dep_ in ("acomp", "attr", "oprd", "xcomp", "ccomp")
                                                   for c in children) \
        and any(c.dep_ in ("prt", "prep") for c in children)


def _is_late(d: ParsedDoc, tok: Token) -> bool:
    """"the late Mr. Bennet": "late" modifying the name, or just before its span."""
    start = d.spans.get(tok.i, (tok.i, tok.i + 1))[0]
    return any(c.dep_ == "amod" and c.lower_ == "late" for c in tok.children) or (
        start > 0 and d.doc[start - 1].lower_ == "late")


def _ghostly(d: ParsedDoc, tok: Token) -> bool:
    """A name that is a ghost's ("Marley's Ghost", "the Ghost of Marley"): the span or its head says so."""
    start, end = d.spans.get(tok.i, (tok.i, tok.i + 1))
    inside = {t.lower_ for t in d.doc[start:end]}
    return bool(inside & W.GHOST_WORDS) or (tok.dep_ == "poss" and tok.head.lower_ in W.GHOST_WORDS)


def chapter_states(docs: Sequence[Doc], mentions: Sequence[Sequence[Mention]], refs: Sequence[dict[int, str]],
                   chunk_indices: Sequence[int], types: dict[str, str] | None = None) -> list[StateFact]:
    """Every state fact of one chapter's parsed passages, in reading order. `mentions[k]`/`refs[k]`: the names and
    resolved pronouns of `docs[k]` (core.kg.offline has them), `chunk_indices[k]` its passage number, `types` the
    chapter's evidence-based type of each name."""
    reader = _Reader()
    for doc, found, resolved, chunk_index in zip(docs, mentions, refs, chunk_indices):
        d = ParsedDoc(doc, found, resolved, chunk_index, types or {})
        for sent in doc.sents:
            reader.sentence(d, sent)
    return reader.out
