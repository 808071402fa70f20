"""What a question asks for, from its wording: a person, a place, a time, a number, a name, a reason, a manner, a
yes or no, who someone is, a whole-story summary or a retelling (core.qa.extract reads the answer of that type)."""
from __future__ import annotations

import re

_CREATIVE = re.compile(r"^\W*(imagine|retell|rewrite|narrate|compose|write)\b|\bas an? (news|newspaper|diary|poem|"
                       r"letter|story|song|speech|monologue|journal)", re.I)
_SUMMARY = re.compile(r"\b(summari[sz]e|describe|how (does|did) .+ (change|develop|evolve|grow)|in what ways?|"
                      r"what role|significance|"
                      r"how (is|are|was|were) .+ (depicted|portrayed|characteri[sz]ed|presented)|"
                      r"what is the nature|overall|throughout the (story|novel|narrative|book)|illustrate|"
                      r"what are some|what connections)\b", re.I)
# "Who is Spitz?", "Who was Mr. Utterson?": the question asks who someone is, not for another person's name
IDENTITY = re.compile(r"^\W*(?i:who)\s+(?i:is|was|are|were)\s+(?P<name>(?:the\s+)?[A-Z][\w'\u2019.-]*"
                       r"(?:\s+(?:(?:of|de|du|the|van|von|la|le)\s+)*[A-Z][\w'\u2019.-]*)*)\s*\?*\s*$")
_WH_WORD = re.compile(r"\b(who|whom|whose|where|when|why|how|what|which)\b\s*(\w+)?\s*(\w+)?", re.I)
_WHAT_NOUNS: dict[str, frozenset[str]] = {
    "time": frozenset("year years time day date century month age season hour period era".split()),
    "place": frozenset("place city town country region island river county village location street house "
                       "land state province".split()),
    "person": frozenset("character person man woman men women people individual figure king queen group tribe "
                        "family members member officer persons".split()),
    "number": frozenset("number percentage amount sum".split())}
# "What is the first name of the person who ...?", "What was the name of the town ...?": a name question takes
# its type from the kind of name (first / last / full ... are people's) or the noun after "of"
NAME_OF = re.compile(r"\b(?:what|which)(?:['\u2019]s|\s+is|\s+was|\s+are|\s+were)?\s+(?:the\s+)?"
                      r"(?:(first|last|full|given|family|maiden|middle|christian|sur)\s*)?names?\s+of\s+"
                      r"(?:the\s+|a\s+|an\s+|his\s+|her\s+|their\s+)?(\w+)?(?:\s+(\w+))?", re.I)
_PERSON_NAME_NOUNS = frozenset("""boy girl wife husband son daughter father mother brother sister friend uncle aunt
lover widow child captain doctor narrator protagonist author singer actor actress artist player""".split())
_HOW_NUMBER = frozenset("many much long old far often large big tall".split())
_YESNO = re.compile(r"^\s*(is|are|was|were|did|does|do|has|had|have|can|could|will|would|should)\b", re.I)

def question_type(question: str) -> str:
    """person | place | time | number | name | creative | summary | reason | manner | yesno | thing: a retelling or a
    whole-story cue anywhere, else a question for a name (a person's or a place's by the noun after "name of", else
    "name": any proper name), else the question's first wh-word (and the noun after what/which), else yes/no from a
    leading auxiliary."""
    if _CREATIVE.search(question):
        return "creative"
    if _SUMMARY.search(question):
        return "summary"
    if IDENTITY.match(question):
        return "identity"
    named = NAME_OF.search(question)
    if named is not None:
        after = [w.lower() for w in named.groups()[1:] if w]
        if named.group(1) or any(w in _WHAT_NOUNS["person"] or w in _PERSON_NAME_NOUNS for w in after):
            return "person"
        if any(w in _WHAT_NOUNS["place"] for w in after):
            return "place"
        return "name"   # the name of a ship, a painting, a people: any proper name
    m = _WH_WORD.search(question)
    if m is None:
        return "yesno" if _YESNO.match(question) else "thing"
    wh, nxt = m.group(1).lower(), [w.lower() for w in m.groups()[1:] if w]
    simple = {"who": "person", "whom": "person", "whose": "person", "where": "place", "when": "time",
              "why": "reason"}
    if wh in simple:
        return simple[wh]
    if wh == "how":
        return "number" if nxt and nxt[0] in _HOW_NUMBER else "manner"
    for kind, nouns in _WHAT_NOUNS.items():
        if any(w in nouns for w in nxt):
            return kind
    return "thing"
