"""Ties, attributes and homes from one token's place in the parse (core.kg.states calls `read_token` on each token).

Patterns, with the parse the small English model gives them:
- ties: "Jane, Elizabeth's sister" (appos + poss), "his sister Jane" (poss + appos), "Jane was the sister of
  Elizabeth" (copula + of), "X married Y", "X was married to Y";
- attributes: "her blue eyes", "X had blue eyes", "X's hair was red", "his gold hair" (eyes and hair colour), "X was
  tall", "X, a tall man", "his little figure", "Short as he was" (height), "X was sixteen", "X, a girl of fifteen",
  "X, aged twenty" (age), "X was a doctor", "X, the lawyer" (profession), "X was French", "X, a Frenchman"
  (nationality);
- homes: "X was born in P", "X, a native of P", "X's native P" (birthplace), "X lived at P", "X lived at a house in
  P", "X's house in P", "X's house on the edge of P", "X of P" (home), "X moved to P", "X left P", "X went to P" (a
  move, or a visit: either makes a new home no contradiction).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from core.kg import state_words as W
from core.kg.state_base import Emit, ParsedDoc, verb_cues

if TYPE_CHECKING:  # pragma: no cover
    from spacy.tokens import Span, Token

BE = W.forms("be is was were been being am are 's ’s become became becomes seemed seems")
MAX_AGE = 110
PAST_WORDS = W.forms("when since ago till until then once before after")


def _named(d: ParsedDoc, tok: Token | None) -> tuple[str, bool] | None:
    return None if tok is None else d.name(tok)


def _child(tok: Token, *deps: str) -> Token | None:
    return next((c for c in tok.children if c.dep_ in deps), None)


def _subject(verb: Token) -> Token | None:
    return _child(verb, "nsubj", "nsubjpass")


def _quoted(d: ParsedDoc, tok: Token) -> list[str]:
    return ["quote"] if d.depth[tok.i] > 0 else []


def _place(d: ParsedDoc, tok: Token | None) -> str | None:
    """A named place: the mention at `tok`, else its run of proper nouns ("New York"); None for "a cottage"."""
    if tok is None:
        return None
    if tok.lower_ in W.PLACE_PART_NOUNS and (part_of := _prep_object(tok, ("of",))) is not None:
        tok = part_of   # "on the edge of Hampstead Heath", "on the banks of the Thames"
    found = d.name(tok)
    if found is not None:
        return found[0]
    if tok.pos_ != "PROPN":
        return None
    words = [c.text for c in tok.lefts if c.dep_ == "compound" and c.pos_ == "PROPN"] + [tok.text]
    return " ".join(words)


def _prep_object(tok: Token, preps: tuple[str, ...]) -> Token | None:
    for c in tok.children:
        if c.dep_ == "prep" and c.lower_ in preps:
            return _child(c, "pobj")
    return None


def _holder(d: ParsedDoc, noun: Token) -> tuple[Token, tuple[str, bool]] | None:
    """Whom a describing noun is about: "Jane, the sister" (appos), "Jane was a sister" (copula), "sister Jane"."""
    head = noun.head
    if noun.dep_ in ("appos", "compound") and (found := d.name(head)):
        if sum(1 for c in head.children if c.dep_ in ("appos", "conj")) > 1 or any(
                c.dep_ == "conj" for c in noun.children):
            return None   # "There were Sherlock Holmes, the hydraulic engineer, Inspector Bradstreet, ...": a list
        return head, found
    if noun.dep_ in ("attr", "acomp", "oprd") and head.lower_ in BE and (subj := _subject(head)) is not None:
        if found := d.name(subj):
            return head, found
    for c in noun.children:
        if c.dep_ == "appos" and (found := d.name(c)):
            return noun, found
    return None


def _explicit(*found: tuple[str, bool]) -> bool:
    return all(f[1] for f in found)


def read_token(emit: Emit, d: ParsedDoc, sent: Span, tok: Token, words: frozenset[str]) -> None:
    """Every fact `tok` anchors (a tie noun, a colour's noun, a number, a place verb, a name with "of")."""
    low = tok.lower_
    if low in W.TIES:
        _tie(emit, d, sent, tok)
    elif low in W.MARRY_VERBS:
        _marriage(emit, d, sent, tok)
    elif low in W.EYE_WORDS or low in W.HAIR_WORDS:
        _colour(emit, d, sent, tok)
    elif low in W.PROFESSIONS or low in W.NATIONALITIES or low in W.PERSON_NOUNS:
        _description(emit, d, sent, tok, words)
    elif low in W.HEIGHTS:
        _copula_adjective(emit, d, sent, tok)
    elif low in W.FIGURE_NOUNS:
        _figure(emit, d, sent, tok)
    elif low in W.BIRTH_WORDS or low in W.NATIVE_WORDS:
        _birth(emit, d, sent, tok)
    elif low in W.LIVE_VERBS or low in W.HOME_NOUNS:
        _home(emit, d, sent, tok)
    elif low in W.MOVE_VERBS:
        _move(emit, d, sent, tok)
    elif low == "aged":
        if (found := d.name(tok.head)) and (age := _age_of(_child(tok, "dobj", "npadvmod", "attr", "nummod"))):
            emit(d, sent, found[0], "attr", "age", str(age), _quoted(d, tok), found[1])
    if tok.like_num or low in W.NUMBER_WORDS:
        _age(emit, d, sent, tok, words)
    if (found := d.name(tok)) and tok.pos_ == "PROPN":
        _of_place(emit, d, sent, tok, found)


def _tie(emit: Emit, d: ParsedDoc, sent: Span, noun: Token) -> None:
    owner = _named(d, _child(noun, "poss")) or _named(d, _prep_object(noun, ("of",)))
    holder = _holder(d, noun)
    if owner is None or holder is None or owner[0] == holder[1][0]:
        return
    key = noun.lower_
    after = "".join(t.text for t in noun.doc[noun.i + 1:noun.i + 4]).lower()
    if after.startswith("-in-law"):
        key += "-in-law"
    if any(c.lower_ in ("step", "half", "foster", "god") for c in noun.lefts) or noun.i > 0 and (
            noun.doc[noun.i - 1].lower_ in ("-", "step", "half", "foster")):
        return   # a step-, half- or foster-relation: not the tie these words alone would say
    cues = _quoted(d, noun) + verb_cues(holder[0]) if holder[0] is not noun else _quoted(d, noun)
    emit(d, sent, holder[1][0], "tie", key, owner[0], cues, _explicit(owner, holder[1]))


def _marriage(emit: Emit, d: ParsedDoc, sent: Span, verb: Token) -> None:
    if verb.dep_ == "acomp":   # "X was married to Y"
        subject, other = _subject(verb.head), _prep_object(verb, ("to",))
        cue_verb = verb.head
    else:
        subject, other = _subject(verb), _child(verb, "dobj") or _prep_object(verb, ("to",))
        cue_verb = verb
    a, b = _named(d, subject), _named(d, other)
    if a and b and a[0] != b[0]:
        emit(d, sent, a[0], "tie", "spouse", b[0], _quoted(d, verb) + verb_cues(cue_verb), _explicit(a, b))


def _colour(emit: Emit, d: ParsedDoc, sent: Span, noun: Token) -> None:
    """Eye or hair colour: "her blue eyes", "X had blue eyes", "X's hair was red", "X with blue eyes"."""
    table = W.EYE_COLOURS if noun.lower_ in W.EYE_WORDS else W.HAIR_COLOURS
    owner = _named(d, _child(noun, "poss"))
    if owner is None and noun.dep_ == "dobj" and noun.head.lower_ in ("had", "has", "have"):
        owner = _named(d, _subject(noun.head))
    if owner is None and noun.dep_ == "pobj" and noun.head.lower_ == "with":   # "a White Rabbit with pink eyes",
        bearer = noun.head.head                                                 # "Jo, a tall girl with grey eyes"
        owner = _named(d, bearer)
        if owner is None and bearer.lower_ in W.PERSON_NOUNS and (held := _holder(d, bearer)) is not None:
            owner = held[1]
    if owner is None:
        return
    colours = [c.lower_ for c in noun.children if c.dep_ in ("amod", "compound") and c.lower_ in table]
    if not colours and noun.dep_ == "nsubj" and noun.head.lower_ in BE:
        colours = [c.lower_ for c in noun.head.children if c.dep_ == "acomp" and c.lower_ in table]
    classes = {table[c] for c in colours}
    if len(classes) == 1:
        key = "eyes" if table is W.EYE_COLOURS else "hair"
        cues = _quoted(d, noun) + verb_cues(noun.head)
        if noun.dep_ != "nsubj" or noun.head.lower_ not in BE:   # "X's brown eyes had lost none of their quickness"
            cues = [c for c in cues if c != "perfect"]         # describes the eyes whatever the clause's tense
        emit(d, sent, owner[0], "attr", key, colours[-1], cues, owner[1])


def _description(emit: Emit, d: ParsedDoc, sent: Span, noun: Token, words: frozenset[str]) -> None:
    """"X, the doctor", "X was a Frenchman", "X, a tall man", "X, a French girl", and an age: "X, a lad of twelve",
    "for a girl of fourteen, X looked grown-up"."""
    holder = _holder(d, noun)
    if holder is None and noun.lower_ in W.PERSON_NOUNS and noun.dep_ == "pobj" and noun.head.lower_ == "for" \
            and noun.head.dep_ == "prep" and (verb := noun.head.head).pos_ in ("VERB", "AUX") \
            and (age := _age_of(_prep_object(noun, ("of",)))) and (found := _named(d, _subject(verb))):
        emit(d, sent, found[0], "attr", "age", str(age), _quoted(d, noun) + verb_cues(verb), found[1])
        return
    if holder is None or noun.dep_ == "compound" or holder[1][0].startswith("the ") or not (
            noun.is_lower or noun.is_title and noun.lower_ in W.NATIONALITIES):
        return   # "Judge Miller" is a name with a title; "the clerk" a description, not a named person ("a Scotchman")
    verb, (name, explicit) = holder
    cues = _quoted(d, noun) + (verb_cues(verb) if verb is not noun else [])
    if verb.lower_ in ("become", "became", "becomes") or any(c.lower_ in W.CHANGE_WORDS for c in noun.children):
        cues.append("change")
    low = noun.lower_
    owned = noun.dep_ in ("attr", "oprd") and any(c.dep_ == "poss" and (c.pos_ == "PROPN" or c.lower_ in
                                                                       W.POSSESSIVES) for c in noun.children)
    if low in W.PROFESSIONS and not owned:   # "Henry was my only nurse" in an illness: a role, not his trade (but
        # "Dr. Wilkins, Mrs. Inglethorp's own doctor" says what he is)
        emit(d, sent, name, "attr", "profession", low, cues, explicit)
    if low in W.NATIONALITIES:
        value = W.NATIONALITIES[low]
        if noun.i >= 2 and noun.doc[noun.i - 1].text == "-" and noun.doc[noun.i - 2].lower_ in W.NATIONALITIES:
            value = f"{W.NATIONALITIES[noun.doc[noun.i - 2].lower_]}-{value}"     # "a French-Canadian"
        emit(d, sent, name, "attr", "nationality", value, cues, explicit)
    for c in noun.children:
        if c.dep_ == "amod" and c.lower_ in W.HEIGHTS and low in W.PERSON_NOUNS:
            emit(d, sent, name, "attr", "height", W.HEIGHTS[c.lower_], cues, explicit)
        elif c.dep_ == "amod" and c.lower_ in W.NATIONALITIES and low in W.PERSON_NOUNS:
            emit(d, sent, name, "attr", "nationality", W.NATIONALITIES[c.lower_], cues, explicit)
    if low in W.PERSON_NOUNS and (age := _age_of(_prep_object(noun, ("of",)))):
        emit(d, sent, name, "attr", "age", str(age), cues, explicit)


def _copula_adjective(emit: Emit, d: ParsedDoc, sent: Span, adj: Token) -> None:
    """"X was tall" (no "too", no "short of breath"); "Short and round as he was, ..." (the concessive "as")."""
    if adj.lower_ not in W.HEIGHTS:
        return
    if adj.dep_ != "acomp":
        if (held := _concessive(d, adj)) is not None:
            verb, (name, explicit) = held
            cues = [c for c in verb_cues(verb) if c not in ("belief", "memory")]   # the clause it heads
            emit(d, sent, name, "attr", "height", W.HEIGHTS[adj.lower_], _quoted(d, adj) + cues, explicit)
        return
    if adj.head.lower_ not in BE:
        return
    if any(c.dep_ in ("prep", "advmod", "conj") for c in adj.children):
        return
    found = _named(d, _subject(adj.head))
    if found:
        emit(d, sent, found[0], "attr", "height", W.HEIGHTS[adj.lower_], _quoted(d, adj) + verb_cues(adj.head),
             found[1])


def _concessive(d: ParsedDoc, adj: Token) -> tuple[Token, tuple[str, bool]] | None:
    """"Short (and round) as he was": the "as ... was" clause under the adjective or its conjunct, and its subject."""
    for part in (adj, *(c for c in adj.children if c.dep_ == "conj")):
        for verb in part.children:
            if verb.lower_ in BE and verb.dep_ == "advcl" and any(
                    c.dep_ == "mark" and c.lower_ == "as" for c in verb.children) and (
                    found := _named(d, _subject(verb))):
                return verb, found
    return None


def _figure(emit: Emit, d: ParsedDoc, sent: Span, noun: Token) -> None:
    """"his tall figure", "her little, slight frame": the possessor's height."""
    owner = _named(d, _child(noun, "poss"))
    heights = {W.FIGURE_HEIGHTS[c.lower_] for c in noun.children if c.dep_ == "amod" and c.lower_ in W.FIGURE_HEIGHTS}
    if owner is not None and len(heights) == 1:
        emit(d, sent, owner[0], "attr", "height", heights.pop(), _quoted(d, noun), owner[1])


def _age_of(tok: Token | None) -> int | None:
    if tok is None:
        return None
    words = tok.lower_.replace("-", " ").split()
    if tok.text.isdigit():
        value = int(tok.text)
    elif words and all(w in W.NUMBER_WORDS for w in words):
        value = sum(W.NUMBER_WORDS[w] for w in words)
    else:
        return None
    for c in tok.children:   # "twenty-one": the model splits it into "twenty" + "one" (compound or quantmod)
        if c.dep_ in ("compound", "quantmod", "nummod") and c.lower_ in W.NUMBER_WORDS:
            value += W.NUMBER_WORDS[c.lower_]
    return value if 1 < value <= MAX_AGE else None


def _age(emit: Emit, d: ParsedDoc, sent: Span, num: Token, words: frozenset[str]) -> None:
    """"X was sixteen", "X was twenty years old", "X is thirty years of age" (not "when she was ten")."""
    head = num
    if num.head.lower_ in W.AGE_UNITS and num.dep_ == "nummod":
        unit = num.head
        of = _prep_object(unit, ("of",))
        if not any(c.lower_ == "old" for c in unit.children) and unit.head.lower_ != "old" and not (
                of is not None and of.lower_ == "age"):
            return
        head = unit.head if unit.head.lower_ == "old" else unit
    elif any(c.dep_ not in ("punct", "compound", "quantmod", "cc", "conj") for c in num.children):
        return   # ("was sixteen, and very pretty": the age and more)
    if head.dep_ not in ("acomp", "attr") or head.head.lower_ not in BE:
        return
    verb = head.head
    found = _named(d, _subject(verb))
    age = _age_of(num)
    if not found or age is None:
        return
    cues = _quoted(d, num) + verb_cues(verb)
    if words & PAST_WORDS or verb.dep_ in ("advcl", "relcl", "ccomp") or any(
            c.dep_ == "mark" or c.dep_ == "advcl" and any(m.dep_ == "mark" for m in c.children)
            for c in verb.children):
        cues.append("past")   # "since he was four", "she was ten when he died", "the age she was then": no
        # present age ("was sixteen, being plump and fair" is one)
    emit(d, sent, found[0], "attr", "age", str(age), cues, found[1])


def _birth(emit: Emit, d: ParsedDoc, sent: Span, tok: Token) -> None:
    """"X was born in P", "X, born at P", "X was a native of P", "his native Vermont"."""
    if tok.lower_ == "native" and tok.dep_ == "amod":
        found, place = _named(d, _child(tok.head, "poss")), _place(d, tok.head)
    elif tok.lower_ == "born":
        found = _named(d, tok.head if tok.dep_ == "acl" else _subject(tok))
        place = _place(d, _prep_object(tok, ("in", "at")))
    else:
        holder = _holder(d, tok)
        found = holder[1] if holder else None
        place = _place(d, _prep_object(tok, ("of",)))
    if found and place and place != found[0]:
        emit(d, sent, found[0], "born", "", place, _quoted(d, tok) + verb_cues(tok), found[1])


def _home(emit: Emit, d: ParsedDoc, sent: Span, tok: Token) -> None:
    """"X lived at P", "X's house in P", "X's estate, P"."""
    if tok.lower_ in W.LIVE_VERBS:
        found, where = _named(d, _subject(tok)), _prep_object(tok, ("in", "at"))
        place = _place(d, where)
        if place is None and where is not None and where.lower_ in W.HOME_NOUNS:   # "at a big house in P"
            place = _place(d, _prep_object(where, ("in", "at", "near", "on")))
        cue_verb = tok
    else:
        found = _named(d, _child(tok, "poss"))
        place = _place(d, _prep_object(tok, ("in", "at", "of", "on", "near")) or _child(tok, "appos"))
        cue_verb = tok.head
    cues = _quoted(d, tok) + verb_cues(cue_verb)
    if tok.lower_ in W.HOME_NOUNS:
        cues = [c for c in cues if c != "perfect"]   # "X's house in P had been full": still X's house
    if found and place and place != found[0]:
        emit(d, sent, found[0], "home", "", place, cues, found[1])


def _move(emit: Emit, d: ParsedDoc, sent: Span, verb: Token) -> None:
    found = _named(d, _subject(verb))
    if not found:
        return
    place = _place(d, _prep_object(verb, ("to", "into", "for", "in", "at")) or _child(verb, "dobj"))
    if place or verb.lower_ in W.RELOCATE_VERBS:
        emit(d, sent, found[0], "move", verb.lower_, place or "", _quoted(d, verb) + verb_cues(verb), found[1])


def _of_place(emit: Emit, d: ParsedDoc, sent: Span, tok: Token, found: tuple[str, bool]) -> None:
    """"Mr. Darcy of Pemberley", "Sir William Lucas, of Lucas Lodge": a home, when P is a place and no person."""
    pobj = _prep_object(tok, ("of",))
    place = _place(d, pobj)
    if pobj is None or place is None or pobj.pos_ != "PROPN" or place == found[0] or place in found[0]:
        return   # "the Ghost of Christmas Past" is one name
    if d.types.get(place, "location") not in ("location", "organization") or " " not in found[0]:
        return
    emit(d, sent, found[0], "home", "of", place, _quoted(d, tok), found[1], 0.8)
