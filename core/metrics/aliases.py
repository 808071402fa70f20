"""Character names: cleaning NER surface forms and the default alias resolver.

An alias resolver is any `Callable[[str], str | None]`: given a cleaned surface form ("Lizzy", "Mr. Darcy") it
returns the character's canonical name, or None when the mention is not a character. The knowledge-graph work
provides one built from a work's alias graph; until a work has one, `build_default_resolver` gives a careful
name-shape heuristic over the names seen in the same work:

* a surname-only or first-name-only mention ("Darcy", "Elizabeth") joins the one full name (or honorific form)
  it can belong to, or the clearly dominant one when several could claim it;
* honorific forms ("Mr. Bingley") join only a full name with the *same* honorific ("Mr. Charles Bingley"); first-
  name honorifics ("Miss Elizabeth", "Sir William") may also join a full name with that first name;
* different honorifics ("Mr. Bennet", "Mrs. Bennet", "Miss Bennet") and two different full names are never
  merged: a wrong merge hides a dropped character, a missed merge only splits one.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping

AliasResolver = Callable[[str], "str | None"]

# Spelling variants of a title, mapped to one written form.
HONORIFICS: dict[str, str] = {
    "mr": "Mr.", "mister": "Mr.", "mrs": "Mrs.", "miss": "Miss", "ms": "Ms.", "master": "Master", "dr": "Dr.",
    "doctor": "Dr.", "sir": "Sir", "lady": "Lady", "lord": "Lord", "dame": "Dame", "madam": "Madam",
    "madame": "Madame", "mme": "Madame", "mlle": "Mademoiselle", "mademoiselle": "Mademoiselle",
    "monsieur": "Monsieur", "m": "Monsieur", "captain": "Captain", "capt": "Captain", "colonel": "Colonel",
    "col": "Colonel", "general": "General", "major": "Major", "lieutenant": "Lieutenant", "lt": "Lieutenant",
    "sergeant": "Sergeant", "professor": "Professor", "prof": "Professor", "rev": "Rev.", "reverend": "Rev.",
    "father": "Father", "aunt": "Aunt", "uncle": "Uncle", "cousin": "Cousin", "inspector": "Inspector",
    "detective": "Detective", "mother": "Mother", "sister": "Sister", "brother": "Brother", "king": "King",
    "queen": "Queen", "prince": "Prince", "princess": "Princess", "count": "Count", "countess": "Countess",
    "duke": "Duke", "duchess": "Duchess",
}
# Titles that English puts before a first name ("Sir William", "Miss Elizabeth", "Aunt Josephine"); the others
# ("Mr.", "Colonel") take a surname, so "Colonel Fitzwilliam" must not join "Fitzwilliam Darcy".
FIRST_NAME_HONORIFICS = frozenset({"Miss", "Sir", "Lady", "Dame", "Master", "Aunt", "Uncle", "Cousin", "Sister",
                                   "Brother", "King", "Queen", "Prince", "Princess"})
NOT_CHARACTERS = frozenset({"god", "heaven", "lord", "christ", "jesus", "providence", "christmas"})
MAX_NAME_WORDS = 5

_EDGE_PUNCT = "\"'“”‘’`_*()[]{}<>,;:!?-—–. \t\n"
_POSSESSIVE = re.compile(r"(?:'s|')$")


def _first_letter(word: str) -> str:
    return next((c for c in word if c.isalpha()), "")


def clean_surface(text: str) -> str | None:
    """A surface form fit for resolution: whitespace collapsed, quotes and possessives stripped, leading
    lowercase words ("dear Lizzy", "poor Jane") dropped, shouting caps lowered, honorifics spelled one way.
    None when nothing name-like is left (lowercase, digits, initials only, too long, a bare title)."""
    words = text.replace("’", "'").split()
    while words and not _first_letter(words[0]).isupper():
        words.pop(0)
    if not words or len(words) > MAX_NAME_WORDS:
        return None
    words[-1] = _POSSESSIVE.sub("", words[-1])
    words = [w for w in (w.strip(_EDGE_PUNCT) for w in words) if w]
    if not words or any(ch.isdigit() for w in words for ch in w) or all(len(w) == 1 for w in words):
        return None
    words = [w.capitalize() if w.isupper() and len(w) > 1 else w for w in words]
    title = HONORIFICS.get(words[0].rstrip(".").lower())
    if title and len(words) > 1:
        words[0] = title
    name = " ".join(words)
    if not name[:1].isupper() or (title and len(words) == 1) or name.lower() in NOT_CHARACTERS:
        return None
    return name


def split_name(name: str) -> tuple[str | None, tuple[str, ...]]:
    """("Mr.", ("Charles", "Bingley")) for "Mr. Charles Bingley"; (None, ("Jane",)) for "Jane"."""
    words = name.split()
    title = HONORIFICS.get(words[0].rstrip(".").lower()) if len(words) > 1 else None
    return (title, tuple(words[1:])) if title else (None, tuple(words))


class _Groups:
    """Union-find over names, remembering how often each group is mentioned."""

    def __init__(self, counts: Mapping[str, int]) -> None:
        self.parent = {n: n for n in counts}
        self.count = dict(counts)

    def root(self, name: str) -> str:
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def join(self, name: str, into: str) -> None:
        a, b = self.root(name), self.root(into)
        if a != b:
            self.parent[a] = b
            self.count[b] += self.count[a]


def _attach(groups: _Groups, name: str, candidates: set[str], dominance: float | None) -> None:
    """Join `name` to the single candidate group, or to one that outweighs all the others `dominance` times."""
    roots = {groups.root(c) for c in candidates if c != name}
    if len(roots) == 1:
        groups.join(name, roots.pop())
    elif roots and dominance:
        ranked = sorted(roots, key=lambda r: (-groups.count[r], r))
        if groups.count[ranked[0]] >= dominance * sum(groups.count[r] for r in ranked[1:]):
            groups.join(name, ranked[0])


def _display(members: list[str], counts: Mapping[str, int]) -> str:
    """The fullest name of a group: most name words; then "Elizabeth Bennet" over "Miss Elizabeth Bennet" but
    "Mr. Darcy" over "Darcy"; then the most mentioned."""
    def key(n: str) -> tuple[int, bool, int, str]:
        title, words = split_name(n)
        return (-len(words), (title is None) == (len(words) == 1), -counts[n], n)
    return min(members, key=key)


def alias_groups(surface_counts: Mapping[str, int], dominance: float = 3.0) -> dict[str, str]:
    """{cleaned surface form: canonical name} for every name in `surface_counts` (cleaned forms and counts)."""
    counts: Counter[str] = Counter()
    for surface, count in surface_counts.items():
        name = clean_surface(surface)
        if name:
            counts[name] += count
    groups = _Groups(counts)
    parsed = {n: split_name(n) for n in counts}
    full = {n: p for n, p in parsed.items() if len(p[1]) >= 2}

    # 1. The same full name with and without one title is one person; with two different titles it is not.
    by_words: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for n, (_, words) in full.items():
        by_words[words].append(n)
    for variants in by_words.values():
        if len({parsed[v][0] for v in variants} - {None}) <= 1:
            for v in variants[1:]:
                groups.join(v, variants[0])

    # 2. "Mr. Bingley" joins "Mr. Charles Bingley"; "Sir William" joins "(Sir) William Lucas".
    for n, (title, words) in parsed.items():
        if title and len(words) == 1:
            w = words[0]
            cands = {f for f, (t, fw) in full.items() if t == title and fw[-1] == w}
            if title in FIRST_NAME_HONORIFICS:
                cands |= {f for f, (t, fw) in full.items() if t in (None, title) and fw[0] == w}
            _attach(groups, n, cands, dominance=None)

    # 3. A bare "Darcy" or "Elizabeth" joins the one group it can belong to (or the dominant one).
    for n, (title, words) in parsed.items():
        if title is None and len(words) == 1:
            w = words[0]
            cands = {f for f, (_, fw) in full.items() if w in (fw[0], fw[-1])}
            cands |= {h for h, (t, hw) in parsed.items() if t and hw == (w,)}
            _attach(groups, n, cands, dominance)

    members: dict[str, list[str]] = defaultdict(list)
    for n in counts:
        members[groups.root(n)].append(n)
    canonical = {root: _display(ms, counts) for root, ms in members.items()}
    return {n: canonical[groups.root(n)] for n in counts}


def build_default_resolver(surface_counts: Mapping[str, int], dominance: float = 3.0) -> AliasResolver:
    """The resolver used when a work has no alias graph: `alias_groups` over the names seen in the work; a name
    never seen before resolves to its own cleaned form."""
    mapping = alias_groups(surface_counts, dominance)

    def resolve(surface: str) -> str | None:
        name = clean_surface(surface)
        return mapping.get(name, name) if name else None
    return resolve


def build_graph_resolver(entities: Iterable[tuple[str, str, Iterable[str]]], fallback: AliasResolver,
                         character_type: str = "character") -> AliasResolver:
    """Resolution through a work's alias graph, given as (label, type, names) per entity.

    A name the graph holds resolves to its entity's label if the entity is a character ("Lizzy" -> "Elizabeth
    Bennet"), and to None if it is not (a house or town that NER took for a person is dropped). Names the graph
    does not hold go to `fallback` (usually the default resolver).
    """
    mapping: dict[str, str | None] = {}
    for label, kind, names in entities:
        for alias in (label, *names):
            key = clean_surface(alias)
            if key:
                mapping[key] = label if kind == character_type else None

    def resolve(surface: str) -> str | None:
        key = clean_surface(surface)
        if not key:
            return None
        return mapping[key] if key in mapping else fallback(surface)
    return resolve
