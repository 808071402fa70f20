"""Alias evidence read off the names themselves (the offline path's names-graph edges).

Proposed links, strongest first; core.kg.resolve still applies every merge guard to each:

- title:   "Miss Elizabeth Bennet" ~ "Elizabeth Bennet"; "Sir William" ~ "Sir William Lucas"; "Elizabeth Bennet" ~
           "Miss Elizabeth" (honorifics that go with first names), when only one entity fits.
- surname: "George Wickham" ~ "Mr. Wickham", when only one entity is called honorific + Wickham, none of them a
           married woman's title ("Mrs. Chester" / "May Chester" are mother and daughter), and not `stale_gap`
           chapters apart.
- place:   "Netherfield House" ~ "Netherfield" when nobody is called honorific + Netherfield.
- name:    a one-word name ("Darcy", "Jane") joins the entity whose names use it as a surname or first name; with
           several candidates, only the most-mentioned one with `dominance` times the runner-up's mentions
           ("Darcy" -> Mr. Darcy over Miss Darcy; "Bennet" stays alone between Mr. Bennet and Miss Bennet). Never a
           "Mrs." form ("Fezziwig" is not Mrs. Fezziwig), never a full name first seen long after a much-used name
           ("Mary King" is not the "Mary" of chapter 2). It joins once: a one-word name already inside an entity is
           never a bridge between two entities.
- nickname: the same for a familiar form ("Lizzy", "Eliza" -> Elizabeth; "Kitty" -> Catherine), when no full name
           has the word itself ("Bob" is Bob Dahl's, not Robert's).
- "Miss Eliza" ~ "Eliza" once "Eliza" has joined an entity (not for "Mrs.").
- spelling: two spellings of one name that differ only in hyphens, spaces, apostrophes or case ("Sol-leks" ~
           "Solleks", "MacDonald" ~ "Mac Donald"), or in the honorific's spelling ("Cap O'Hara" ~ "Captain O'Hara").
- plural:  a people or a thing named in the singular and the plural ("Moors" ~ "Moor", "Skookum Benches" ~ "Skookum
           Bench", "Esquimaux" ~ "Esquimau"), never a family ("the Bennets" is not Mr. Bennet: a surname of someone's
           full name, or a first name, is left alone) and never a name with an honorific.
- short:   a place's familiar short form, from a small list ("Frisco" ~ "San Francisco"), when both occur.
- demonym: a people and the adjective formed from its name ("Moors" ~ "Moorish", "Arabs" ~ "Arabic"), never a
           person's name or a family (nor a "-man" noun: "the Frenchman" of a story is one man).
- place:   also a political unit "of" a place ("Empire of Morocco" ~ "Morocco"; never "Gulf of Mexico" ~ "Mexico").
- name:    also a first name after an epithet ("Tiny Tim" ~ "Tim").

The first-name and surname links (name, nickname, surname) are for people: a name the text types as a place, a
group or a thing ("Africa", "Asia", "Yukon", "Dyea") never joins a longer name by its first or last word ("North
Africa", "Asia Minor", "Yukon Trail", "Dyea Canon" are other places), and the "Y" of "X of Y" is no surname ("Bohemia"
is not the King of Bohemia).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from core.kg.names import canonical_honorific, parse_name, surname, title_class
from core.kg.given_names import formal_forms, given_name_gender, is_first_name, is_given_name, same_given_name


@dataclass(frozen=True)
class MergeGuards:
    """When two names may not be merged (the resolver's guards, core.kg.resolve); here, beside the proposals that read
    them, so neither module needs the other's."""
    max_degree: int = 3        # KGScore: no merge when both nodes have more edges than this
    dominance: float = 5.0     # a bare name joins the likeliest of several candidates only with this margin
    stale_gap: int = 10        # a much-used bare name does not take a surname that first appears this much later
    stale_mentions: int = 20   # ... "much-used": this many mentions before


PLACE_WORDS = frozenset({"house", "park", "hall", "lodge", "manor", "court", "castle", "abbey", "place", "street",
                         "square", "lane", "road", "farm", "cottage", "grange", "parsonage", "rectory", "woods"})
# Last words that make a name a place (core.kg.coref_words.is_place_name reads these too).
PLACE_SUFFIXES = PLACE_WORDS | frozenset({"sound", "river", "lake", "mountain", "mountains", "valley", "bay", "island",
                                         "islands", "creek", "pass", "range", "sea", "ocean", "city", "town", "county",
                                         "inlet", "harbour", "harbor", "hill", "hills", "bridge", "church",
                                         "cathedral", "college", "gardens", "garden", "row", "crescent", "terrace",
                                         "mount", "forest", "wood", "moor", "heath", "station", "inn", "hotel",
                                         "palace", "cove", "point", "falls", "canyon", "gulch", "canon", "trail",
                                         "minor", "rapids", "saloon", "camp", "crossing", "mile", "fingers"})
# Place words after a name that make another place when the name alone is far commoner: "Fresno Street" is in Fresno
# ("on Maple" may be Maple Street; a house, a park or a farm is often called by its name alone: "Netherfield").
THOROUGHFARES = frozenset({"street", "square", "lane", "road"})
# Place words after a name that is, alone, the same place ("Kynance Cove" is Kynance, "Lizard Point" the Lizard,
# "Stewart River" the Stewart); other place words make another place ("Dyea Canon", "Yukon Trail", "Asia Minor").
SAME_PLACE_SUFFIXES = frozenset({"cove", "bay", "point", "island", "isle", "river", "creek", "valley", "head"})
# Titles written after a name ("Ali Bey", "Osman Pasha"): alone, one is a title, no first name or surname.
POSTFIX_TITLES = frozenset({"Bey", "Pasha", "Effendi", "Agha", "Aga", "Khan", "Sahib", "Esq.", "Esquire"})
# Titles a woman takes from her husband's name: a full name with the same surname may be her child's.
MARRIED_TITLES = frozenset({"Mrs.", "Madame", "Lady", "Dame", "Duchess", "Countess", "Baroness"})
# Ranks that alone name their only holder ("the Professor": Professor Bhaer; "Colonel" alone is no name at all).
TITLE_WORDS = frozenset({"Professor", "Inspector", "Sergeant", "Lieutenant", "Major", "General", "Admiral", "Rev."})
# Honorifics used with a given name ("Miss Elizabeth", "Sir William", "Lady Catherine").
FIRST_NAME_TITLES = frozenset({"Miss", "Master", "Sir", "Lady", "Lord", "Dame", "Aunt", "Uncle", "Cousin"})
# A man's honorifics: "John Brooke" is "Mr. Brooke"; "Mrs. Brooke" is his wife, not a reason to doubt it.
MAN_TITLES = frozenset({"Mr.", "Sir", "Lord", "Dr.", "Professor", "Rev.", "Colonel", "Captain", "Major", "General",
                        "Lieutenant", "Sergeant", "Admiral", "Inspector", "Master", "Monsieur", "Uncle"})
# Honorifics only a woman has.
WOMEN_TITLES = frozenset({"Miss", "Mrs.", "Ms.", "Madame", "Mademoiselle", "Lady", "Dame", "Duchess", "Countess",
                          "Baroness", "Queen", "Princess", "Mother", "Sister", "Aunt"})
# Honorifics only a man has (a doctor, a professor or a captain may be a woman: "Dr. Elsie Inglis").
MEN_ONLY_TITLES = frozenset({"Mr.", "Sir", "Lord", "Master", "Monsieur", "Uncle", "King", "Prince", "Duke", "Count",
                             "Baron", "Father", "Brother"})
# A political unit "of" a place is that place ("the Empire of Morocco", "the City of London"); a sea, gulf or bay
# "of" a place is not ("the Gulf of Mexico").
POLITY_WORDS = frozenset({"empire", "kingdom", "city", "republic", "state", "province", "county", "duchy",
                          "principality", "town", "isle", "island", "colony", "territory", "sultanate"})
# Epithets before a first name that make a byname of it ("Tiny Tim" is the Tim of the book, "Little Nell" its Nell).
EPITHETS = frozenset({"Tiny", "Little", "Big", "Fat", "Long", "Lame", "Poor", "Honest", "Black", "Red", "Wee", "Mad",
                      "Lazy", "Handsome", "Bold"})
# Familiar short forms of places (the alias evidence of a nickname, for places): short -> full.
PLACE_SHORT_FORMS = {"Frisco": "San Francisco", "Philly": "Philadelphia", "Chi": "Chicago", "Brum": "Birmingham",
                     "Frisco Bay": "San Francisco Bay", "Noo Yawk": "New York", "Gotham": "New York"}
PERSON_KINDS = (None, "character")   # kind_of values a person's name can have (None: no evidence yet)

class KindOf(Protocol):
    """The type the text gives a name so far (None: no evidence; with `confident`, none short of a clear majority)."""

    def __call__(self, name: str, confident: bool = False) -> str | None: ...


def _no_kind(name: str, confident: bool = False) -> str | None:
    return None


@dataclass(frozen=True)
class Proposal:
    a: str
    b: str
    kind: str
    refused: str | None = None   # set when the proposal itself was judged unsafe (ambiguous, stale)


class _Index:
    def __init__(self, names: list[str], first: dict[str, int] | None = None) -> None:
        self.names = set(names)
        self.family_first: dict[str, int] = {}   # surname -> the first chapter any name carrying it was seen
        self.by_epithet: dict[str, list[str]] = defaultdict(list)     # "Tim" -> ["Tiny Tim"]
        self.by_first: dict[str, list[str]] = defaultdict(list)       # first core word of multi-word names
        self.by_surname: dict[str, list[str]] = defaultdict(list)     # surname of multi-word names
        self.hon_single: dict[str, list[str]] = defaultdict(list)     # core word of honorific + one word
        self.by_familiar: dict[str, list[str]] = defaultdict(list)    # given word (lower) -> names using it
        self.by_familiar_of: dict[str, list[str]] = defaultdict(list)  # formal name -> names using a familiar form
        self.by_title: dict[str, list[str]] = defaultdict(list)       # "Professor" -> ["Professor Bhaer"]
        for name in names:
            parts = parse_name(name)
            if parts.honorific in TITLE_WORDS:
                self.by_title[parts.honorific].append(name)
            if len(parts.core) >= 2 and "of" in parts.core:
                continue  # "King of Bohemia", "Ghost of Christmas Past": no first name or surname to share
            family = surname(name) if len(parts.core) >= 2 else parts.core[0] if parts.honorific else None
            if family and first is not None:
                self.family_first[family] = min(self.family_first.get(family, first[name]), first[name])
            if (len(parts.core) == 2 and not parts.honorific and parts.core[0] in EPITHETS
                    and is_given_name(parts.core[1])):
                self.by_epithet[parts.core[1]].append(name)
            if len(parts.core) >= 2:
                self.by_first[parts.core[0]].append(name)
                self.by_surname[surname(name) or ""].append(name)
                self._familiar(parts.core[0], name)
            elif parts.honorific:
                self.hon_single[parts.core[0]].append(name)
                if parts.honorific in ("Miss", "Master"):
                    self._familiar(parts.core[0], name)
            else:
                self._familiar(parts.core[0], name)

    def _familiar(self, word: str, name: str) -> None:
        self.by_familiar[word.lower()].append(name)
        for formal in formal_forms(word):
            self.by_familiar_of[formal].append(name)


def propose_links(first: dict[str, int], totals: Counter[str], find: Callable[[str], str],
                  members: dict[str, list[str]], chapter: int, guards: MergeGuards,
                  kind_of: KindOf = _no_kind) -> list[Proposal]:
    """Links among all names seen so far, in a fixed order (so a replay is deterministic). `kind_of`: the type the
    text gives a name so far (None: no evidence), which keeps the people's rules to people."""
    names = sorted(first)
    index = _Index(names, first)
    out: list[Proposal] = []
    for name in names:
        out.extend(_title_links(name, index, find, first, totals, guards))
    for name in names:
        out.extend(_surname_links(name, index, find, first, guards, members))
        out.extend(_place_links(name, index, totals, kind_of))
        out.extend(_familiar_full_links(name, index, find))
    out.extend(_form_links(names, index, kind_of))
    for name in names:
        parts = parse_name(name)
        if parts.is_bare and len(members[find(name)]) == 1:
            proposal = _bare_link(name, index, first, totals, find, guards, kind_of)
            if proposal:
                out.append(proposal)
        elif (parts.honorific not in (None, "Mrs.", "Madame") and len(parts.core) == 1
              and parts.core[0] in index.names):
            bare = parts.core[0]
            if len(members[find(bare)]) > 1:
                out.append(Proposal(name, bare, "title"))
    return out


def _unique(candidates: list[str], find: Callable[[str], str], own: str) -> str | None:
    roots = {find(c) for c in candidates} - {find(own)}
    if len(roots) != 1:
        return None
    root = roots.pop()
    return min(c for c in candidates if find(c) == root)


def _is_place(name: str) -> bool:
    return parse_name(name).core[-1].lower() in PLACE_WORDS


def place_shaped(name: str) -> bool:
    """A multi-word name ending in a place word ("Hatherley Farm", "Yukon Trail", "Dyea Canon")."""
    core = parse_name(name).core
    return len(core) >= 2 and core[-1].lower() in PLACE_SUFFIXES


def _title_links(name: str, index: _Index, find: Callable[[str], str], first: dict[str, int],
                 totals: Counter[str], guards: MergeGuards) -> list[Proposal]:
    parts = parse_name(name)
    out: list[Proposal] = []
    if _is_place(name) or place_shaped(name):
        return out  # "Lucas Lodge" is a house, not a Lucas; "Rufford County" no Lord Rufford
    if parts.honorific and len(parts.core) >= 2:
        plain = " ".join(parts.core)
        if plain in index.names and parts.honorific != "Mrs.":  # "Mrs. John Brooke" is John Brooke's wife
            out.append(Proposal(name, plain, "title"))
        short = [n for n in index.hon_single.get(parts.core[0], [])
                 if title_class(parse_name(n).honorific) == title_class(parts.honorific)]
        target = _unique(short, find, name)
        if target:
            out.append(Proposal(name, target, "title"))
    elif not parts.honorific and len(parts.core) >= 2:
        given = parts.core[0]
        if given in index.names and _is_stale(given, name, first, totals, guards, index):
            return out  # "Amy Curtis" arrives long after "Amy": "Miss Amy" is more likely the old Amy
        titled = [n for n in index.hon_single.get(given, []) if parse_name(n).honorific in FIRST_NAME_TITLES]
        target = _unique(titled, find, name)
        if target:
            out.append(Proposal(name, target, "title"))
    return out


def _surname_links(name: str, index: _Index, find: Callable[[str], str], first: dict[str, int],
                   guards: MergeGuards, members: dict[str, list[str]] | None = None) -> list[Proposal]:
    parts = parse_name(name)
    if len(parts.core) < 2 or _is_place(name):
        return []
    last = surname(name) or ""
    forms = index.hon_single.get(last, [])
    gender = None if parts.honorific else given_name_gender(parts.core[0])
    if gender == "m":
        forms = [f for f in forms if parse_name(f).honorific in MAN_TITLES]  # "John Brooke": Mr., not Mrs. Brooke
    elif gender == "f":   # "Elizabeth Wells" (a housemaid) is not "Mr. Wells" (the solicitor); "Dr. Inglis" may be
        forms = [f for f in forms if parse_name(f).honorific not in MEN_ONLY_TITLES]   # Elsie Inglis
    if gender and members is not None:   # "John Inglis" is not "Dr. Inglis" when she is Dr. Elsie Inglis
        forms = [f for f in forms if _gender_of(members[find(f)]) in (None, gender)]
    if any(parse_name(f).honorific in MARRIED_TITLES for f in forms):
        return []  # "Mrs. Chester" and "May Chester": a mother and her daughter as often as one woman
    if is_given_name(last):  # "London Lydia": "Miss Lydia" uses Lydia as a first name, not a surname
        forms = [f for f in forms if parse_name(f).honorific not in FIRST_NAME_TITLES]
    if parts.honorific:
        if parts.honorific == "Miss":
            return []  # "Miss Bennet" is the eldest daughter, "Miss Elizabeth Bennet" a younger one
        forms = [f for f in forms if title_class(parse_name(f).honorific) == title_class(parts.honorific)]
    target = _unique(forms, find, name)
    given = parts.core[0]
    if (target and not parts.honorific and first[name] - first[target] > guards.stale_gap
            and not first.get(given, first[name]) <= first[target]):
        # "Tommy Bangs", 30 chapters after Dr. Bangs; but "John Brooke" joins the two names used since chapter 5
        return [Proposal(name, target, "surname", refused="stale")]
    return [Proposal(name, target, "surname")] if target else []


def _familiar_full_links(name: str, index: _Index, find: Callable[[str], str]) -> list[Proposal]:
    """A full name with a familiar form of another full name's first name and the same surname: "Jim Vane" is
    "James Vane", "Johnny Johnson" is "John Michael Johnson" (when only one entity fits)."""
    target = _unique(_familiar_full_forms(name, index), find, name)
    if not target or {find(n) for n in _familiar_full_forms(target, index)} - {find(target)} != {find(name)}:
        return []   # one person both ways: "Teddy Laurence" beside a Theodore and an Edward Laurence joins neither
    return [Proposal(name, target, "nickname")]


def _familiar_full_forms(name: str, index: _Index) -> list[str]:
    parts = parse_name(name)
    if parts.honorific or len(parts.core) < 2 or _is_place(name):
        return []
    given = parts.core[0]
    return [n for n in index.by_surname.get(surname(name) or "", [])
            if n != name and not parse_name(n).honorific and parse_name(n).core[0] != given
            and same_given_name(parse_name(n).core[0], given)]


def _place_links(name: str, index: _Index, totals: Counter[str] | None = None,
                 kind_of: KindOf = _no_kind) -> list[Proposal]:
    """"Netherfield House" ~ "Netherfield", "Kynance Cove" ~ "Kynance", "Santa Clara Valley" ~ "Santa Clara": a
    place word (PLACE_WORDS, SAME_PLACE_SUFFIXES; a street or a square only after a name the text uses no more than
    twice as often, THOROUGHFARES) after a name nobody carries as a surname ("Lucas Lodge" stays apart from the Lucas
    family) nor the text calls a person ("Qornt Hall" is the house of Qornt, a character)."""
    parts = parse_name(name)
    if (not parts.honorific and len(parts.core) >= 3 and parts.core[1] == "of"
            and parts.core[0].lower() in POLITY_WORDS):
        base = " ".join(parts.core[2:])   # "Empire of Morocco" ~ "Morocco" (not "Gulf of Mexico")
        return [Proposal(name, base, "place")] if base in index.names and not index.hon_single.get(base) else []
    last = parts.core[-1].lower() if parts.core else ""
    if (parts.honorific or len(parts.core) < 2 or last not in PLACE_WORDS | SAME_PLACE_SUFFIXES
            or (len(parts.core) > 2 and last in PLACE_WORDS and last not in SAME_PLACE_SUFFIXES)):
        return []
    base = " ".join(parts.core[:-1])
    if base not in index.names or index.hon_single.get(base) or kind_of(base, confident=True) == "character":
        return []
    if last in THOROUGHFARES and totals is not None and totals[base] > 2 * totals[name]:
        return []   # "Fresno" (46 mentions) is the town of "Fresno Street" (3); "Maple" may be Maple Street
    return [Proposal(name, base, "place")]


def _bare_link(name: str, index: _Index, first: dict[str, int], totals: Counter[str], find: Callable[[str], str],
               guards: MergeGuards, kind_of: KindOf = _no_kind) -> Proposal | None:
    person = (kind_of(name, confident=True) in PERSON_KINDS or is_given_name(name) or bool(index.hon_single.get(name))
              or (is_first_name(name) and any(kind_of(c) in PERSON_KINDS for c in index.by_first.get(name, ()))))
    # ("Erin" of "Erin Grant", a given name of the long list before a person's surname, though "in Erin" typed it)
    if not person or name in POSTFIX_TITLES:
        return None  # "Africa", "Yukon": a place's name is no first name or surname of "North Africa" (but "Bhaer",
        # however a chapter typed it, is Mr. Bhaer's); "Bey" is a title
    as_surname = [] if is_given_name(name) else index.by_surname.get(name, [])  # "London Lydia" is no Lydia
    if not any(parse_name(n).honorific in WOMEN_TITLES for n in index.hon_single.get(name, ())):
        as_surname = [c for c in as_surname if not _a_woman(c)]
    # a surname alone names a man of the family, not a woman of it ("Beaufort", the father of "Caroline Beaufort"),
    # unless the book titles it as a woman's ("Miss Inglis" and "Elsie Inglis"; "Mr. Inglis" is her father)
    # "Fezziwig" alone is not "Mrs. Fezziwig": a bare surname names the man of the house, if anyone
    titled = [n for n in index.hon_single.get(name, []) if parse_name(n).honorific not in ("Mrs.", "Madame")]
    direct = {c for c in set(index.by_first.get(name, [])) | set(as_surname) | set(titled)
              | set(index.by_title.get(canonical_honorific(name) or "", []))   # "the Professor": Professor Bhaer
              | set(index.by_epithet.get(name, []))
              if (kind_of(c) in PERSON_KINDS or parse_name(c).honorific) and not place_shaped(c)
              and not _wife_of(c)}
    # ("Chichen-Itza Uxmal" is two places, "Hatherley Farm" a farm: neither is a person's full name)
    stale = {c for c in direct if _is_stale(name, c, first, totals, guards, index)}
    direct -= stale
    familiar: set[str] = set(index.by_familiar_of.get(name.lower(), []))   # "Catherine" -> "Kitty"
    for formal in formal_forms(name):                                        # "Lizzy" -> "Elizabeth ..."
        familiar.update(index.by_familiar.get(formal, []))
    familiar -= stale
    candidates = (direct or familiar) - {name}   # a full name with this very word beats a familiar form's: "Bob" is
    if not candidates:                           # Bob Dahl's, not Robert's
        if stale:
            return Proposal(name, min(stale), "name", refused="stale")
        return None
    own = find(name)
    score: Counter[str] = Counter()
    for c in candidates:
        root = find(c)
        if root != own:
            score[root] += max(totals[c], 1)
    if not score:
        return None
    ranked = score.most_common()
    if len(ranked) > 1 and ranked[0][1] < guards.dominance * ranked[1][1]:
        return Proposal(name, ranked[0][0], "name", refused="ambiguous")
    root = ranked[0][0]
    in_root = sorted((c for c in candidates if find(c) == root), key=lambda c: (-totals[c], c))
    target = in_root[0]
    kind = "nickname" if all(c in familiar for c in in_root) else "name"
    return Proposal(name, target, kind)


def spelling_key(name: str) -> str:
    """A name without case, hyphens, spaces and apostrophes: "Sol-leks" and "Solleks" share "solleks"."""
    return "".join(ch for ch in name.casefold() if ch.isalnum())


def singular(word: str) -> list[str]:
    """The singulars a capitalised plural may have: "Moors" -> Moor, "Benches" -> Bench, "Esquimaux" -> Esquimau."""
    out = []
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        out.append(word[:-2])
    if (word.endswith("s") and not word.endswith("ss")) or (word.endswith("x") and word[-2:-1] == "u"):
        out.append(word[:-1])
    return [w for w in out if len(w) >= 3]


def _form_links(names: list[str], index: _Index, kind_of: KindOf) -> list[Proposal]:
    """The spelling, plural and short-form links of the module docstring."""
    out: list[Proposal] = []
    by_key: dict[str, list[str]] = defaultdict(list)
    for name in names:
        parts = parse_name(name)   # "Cap O'Hara" and "Captain O'Hara": one honorific in two spellings
        by_key[spelling_key(" ".join((parts.honorific or "", *parts.core)))].append(name)
    for same in by_key.values():
        out.extend(Proposal(a, same[0], "spelling") for a in same[1:])
    def person(full: str) -> bool:
        parts = parse_name(full)
        return bool(parts.honorific) or is_given_name(parts.core[0]) or kind_of(full) == "character"
    family = {last for last, full in index.by_surname.items() if any(person(f) for f in full)} | set(index.hon_single)
    for name in names:
        parts = parse_name(name)
        if parts.honorific or not parts.core:
            continue
        for one in singular(parts.core[-1]):
            other = " ".join((*parts.core[:-1], one))
            if other == name or other not in index.names or parse_name(other).honorific:
                continue
            if len(parts.core) == 1 and (other in family or is_given_name(other)):
                continue  # "the Bennets" are a family, "Williams" is not William
            out.append(Proposal(name, other, "plural"))
        full = PLACE_SHORT_FORMS.get(name)
        if full and full in index.names and kind_of(full) not in ("character",):
            out.append(Proposal(name, full, "short"))
        if len(parts.core) == 1:
            out.extend(Proposal(name, people, "demonym") for people in _demonym_of(name, index, family))
    return out


def _demonym_of(name: str, index: _Index, family: set[str]) -> list[str]:
    """The people a one-word adjective is formed from, when the text names them: "Moorish" and "Moors", "Arabic" and
    "Arabs", "Danish" and "Danes", "Serbian" and "Serbs"; never a person's name ("Frank" and "Frankish") or a family.
    (Not a "-man" noun: "the Frenchman" of a story is often one man, not the French.)"""
    if name.endswith("ish") or name.endswith("ic"):
        stem = name[:-3] if name.endswith("ish") else name[:-2]
        stems = [stem + "s", stem + "es"]   # "Moors", "Danes"
    elif name.endswith("ian") and len(name) > 6 and not is_first_name(name):   # not "Christian", "Damian"
        stems = [name[:-3] + "s"]           # "Serbian" and "Serbs", "Croatian" and "Croats"
    else:
        return []
    return [s for s in stems if s != name and len(s) >= 4 and s in index.names and s not in family
            and not is_given_name(s) and not is_given_name(s[:-1]) and not index.hon_single.get(s)]


def _is_stale(bare: str, candidate: str, first: dict[str, int], totals: Counter[str], guards: MergeGuards,
              index: _Index | None = None) -> bool:
    """A full name first seen long after a much-used one-word name: "Mary King" (ch. 39) is not the "Mary" of 30
    mentions since chapter 2; "Caroline Bingley" (ch. 21) can still be the "Caroline" of a few mentions; nor is
    "Lydia Bennet" (ch. 47) when the Bennets were there when Lydia first was (ch. 1)."""
    if not (len(parse_name(candidate).core) >= 2 and first[candidate] - first[bare] > guards.stale_gap
            and totals[bare] >= guards.stale_mentions):
        return False
    family = surname(candidate)
    return index is None or not family or index.family_first.get(family, first[candidate]) > first[bare]


def _a_woman(name: str) -> bool:
    """A full name with a woman's given name or a woman's title: "Caroline Beaufort", "Aunt Patsy Perkins"."""
    parts = parse_name(name)
    return len(parts.core) >= 2 and (given_name_gender(parts.core[0]) == "f" if not parts.honorific
                                     else parts.honorific in WOMEN_TITLES)


def _wife_of(name: str) -> bool:
    """"Mrs. John Brooke": John Brooke's wife, not a John."""
    parts = parse_name(name)
    return parts.honorific in ("Mrs.", "Madame") and len(parts.core) >= 2 and given_name_gender(parts.core[0]) == "m"


def _gender_of(names: list[str]) -> str | None:
    """The sex an entity's names give it ("Dr. Inglis" beside "Dr. Elsie Inglis": a woman), if they agree."""
    found = {g for parts in map(parse_name, names)
             for g in ("f" if parts.honorific in WOMEN_TITLES else "m" if parts.honorific in MEN_ONLY_TITLES else None,
                       given_name_gender(parts.core[0]) if len(parts.core) >= 2 else None) if g}
    return found.pop() if len(found) == 1 else None
