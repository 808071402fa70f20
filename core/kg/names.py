"""Names: normalising a surface form, and reading its parts (honorific, first name, surname).

"Lady Catherine's" -> "Lady Catherine"; "Mr Darcy" -> "Mr. Darcy"; "the Bennets" -> "Bennets"; "_Lizzy_" -> "Lizzy".
A name's parts drive the alias evidence in core.kg.resolve: "Mr. Darcy" and "Darcy" share a surname, "Elizabeth
Bennet" and "Elizabeth" a first name, and honorifics keep "Mr. Bennet" and "Mrs. Bennet" apart.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# Canonical spelling of each honorific; the keys are lower-case and without the trailing full stop.
HONORIFICS: dict[str, str] = {
    "mr": "Mr.", "mister": "Mr.", "mrs": "Mrs.", "missus": "Mrs.", "miss": "Miss", "ms": "Ms.", "mx": "Mx.",
    "lady": "Lady", "lord": "Lord", "sir": "Sir", "dame": "Dame", "madam": "Madam", "madame": "Madame",
    "mme": "Madame", "mademoiselle": "Mademoiselle", "mlle": "Mademoiselle", "monsieur": "Monsieur", "m": "Monsieur",
    "dr": "Dr.", "doctor": "Dr.", "prof": "Professor", "professor": "Professor", "rev": "Rev.", "reverend": "Rev.",
    "colonel": "Colonel", "col": "Colonel", "captain": "Captain", "capt": "Captain", "cap": "Captain", "major": "Major",
    "general": "General", "lieutenant": "Lieutenant", "lieut": "Lieutenant", "sergeant": "Sergeant",
    "admiral": "Admiral", "inspector": "Inspector", "king": "King", "queen": "Queen", "prince": "Prince",
    "princess": "Princess", "duke": "Duke", "duchess": "Duchess", "count": "Count", "countess": "Countess",
    "baron": "Baron", "baroness": "Baroness", "aunt": "Aunt", "uncle": "Uncle", "cousin": "Cousin", "father": "Father",
    "mother": "Mother", "brother": "Brother", "sister": "Sister", "saint": "St.", "st": "St.", "master": "Master",
}
# Honorifics of other languages that say what an English one says: "Monsieur Poirot" is "Mr. Poirot", "Mademoiselle
# Cynthia" is "Miss Cynthia". Names keep the book's spelling; only comparisons of honorifics read them as one.
TITLE_CLASSES: dict[str, str] = {"Monsieur": "Mr.", "Madame": "Mrs.", "Mademoiselle": "Miss"}
# Honorifics that stand alone as a way of addressing someone; never a name by themselves.
ADDRESS_WORDS = frozenset({"mr", "mrs", "miss", "ms", "sir", "madam", "madame", "lady", "lord", "dr", "mamma", "mama",
                           "papa", "ma'am", "maam", "mother", "father", "aunt", "uncle", "master", "mister", "missus",
                           "monsieur", "mademoiselle", "god", "heaven", "heavens", "oh", "ah", "o", "alas", "yes", "no",
                           "chapter", "volume", "book", "part", "i", "ii", "iii", "iv", "v", "the", "a", "an",
                           "colonel", "captain", "doctor", "king", "queen", "prince", "princess", "brother", "sister",
                           "cousin"})
# Lower-case surname particles: "Lady Catherine de Bourgh" has the surname "de Bourgh".
PARTICLES = frozenset({"de", "du", "van", "von", "der", "den", "la", "le", "di", "da", "del", "della", "of", "ten",
                       "ter", "st."})
# Abbreviated particles that join the next word into one surname ("Neville St. Clair", "Mrs. St. Clair").
SURNAME_PREFIXES = frozenset({"St.", "Ste."})
# Words a model sometimes includes at the start of a name span: forms of address and interjections.
LEADING_NOISE = frozenset({"my", "dear", "dearest", "good", "poor", "oh", "ah", "come", "yes", "no", "well", "nay",
                           "console", "tell", "ask", "see", "thank", "thanks", "pray", "hello", "goodbye", "bless",
                           "old", "young"})
# Common nouns that an "Old" or "Young" before them makes an epithet: "the Old Man", "Young Master" keep the adjective.
EPITHET_NOUNS = frozenset({"man", "woman", "boy", "girl", "fellow", "chap", "gentleman", "lady", "lad", "lass", "maid",
                           "master", "mistress", "soul", "one", "un", "timer"})
_BREAK = re.compile(r"--|—|–|[!?:;\"“”]")
_JOINED = re.compile(r",| and | if | or | but | with | to | from | in | at | by | for ")
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_EDGE_JUNK = re.compile(r"^[\s\"'“”‘’_*()\[\],;:.!?-]+|[\s\"“”‘_*()\[\],;:!?-]+$")
_SPACES = re.compile(r"\s+")
MAX_NAME_CHARS = 60
MAX_NAME_WORDS = 6


@dataclass(frozen=True)
class NameParts:
    honorific: str | None   # canonical spelling ("Mr."), or None
    core: tuple[str, ...]    # the words after the honorific, particles included ("Catherine", "de", "Bourgh")

    @property
    def is_bare(self) -> bool:
        """One word and no honorific: "Darcy", "Lizzy" (could be a first name or a surname)."""
        return self.honorific is None and len(self.core) == 1

    @property
    def is_full(self) -> bool:
        """A first name and a surname: "Elizabeth Bennet", "Sir William Lucas"."""
        return len(self.core) >= 2


def title_class(honorific: str | None) -> str | None:
    """The English honorific that `honorific` stands for ("Monsieur" -> "Mr."); itself when it is English."""
    return TITLE_CLASSES.get(honorific, honorific) if honorific else honorific


def canonical_honorific(word: str) -> str | None:
    """"mr" / "Mr" / "Mr." -> "Mr."; "Professor" -> "Professor"; None for a word that is no honorific."""
    return HONORIFICS.get(word.lower().rstrip("."))


ROMAN_NUMERAL = re.compile(r"M{0,4}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")   # in capitals


def _recased(words: list[str]) -> list[str]:
    """Words written in capitals in their usual case: a name all in capitals title-cased ("WILLIAM COLLINS" in a
    letter), but a regnal or serial numeral after a word ("HENRY IV", of I, V, X, L and C) and a word with a digit
    ("MI6") kept as written; in a name that is not all capitals, a word in capitals is an abbreviation or a numeral
    and stays ("King Edward VI", "World War II", "US Army"). A name of one word in capitals is title-cased, whatever
    it abbreviates: "BUCK" opening a chapter is Buck, and no list says that "FBI" is not a word."""
    all_caps = all(w.isupper() or not any(ch.isalpha() for ch in w) for w in words)

    def kept(k: int, w: str) -> bool:
        numeral = k > 0 and set(w.rstrip(".")) <= set("IVXLC") and bool(ROMAN_NUMERAL.fullmatch(w.rstrip(".")))
        return not (w.isupper() and len(w) > 1) or not all_caps or any(ch.isdigit() for ch in w) or numeral
    return [w if kept(k, w) else w.title() for k, w in enumerate(words)]


def normalize_name(text: str) -> str | None:
    """The canonical spelling of a surface name, or None when it is not usable as an entity name."""
    text = _SPACES.sub(" ", text.replace("\u00a0", " ")).strip()
    text = _BREAK.split(text, maxsplit=1)[0]  # "Mr. Darcy:--but" -> "Mr. Darcy"
    if _JOINED.search(text):
        return None  # "Mary and Kitty", "Matlock, Chatsworth", "Longbourn if Lydia": two names, or none
    text = _EDGE_JUNK.sub("", text)
    text = _POSSESSIVE.sub("", text).strip()
    text = _EDGE_JUNK.sub("", text)
    if text.lower().startswith("the "):
        text = text[4:]
    words = [w.strip("_*") for w in text.split(" ") if w.strip("_*")]
    words = _recased(words)
    written = words
    while words and words[0].lower() in LEADING_NOISE:
        words = words[1:]  # "Dear Lizzy", "MY DEAR HARRIET"
    if len(words) == 1 and words[0].lower() in EPITHET_NOUNS and len(written) > 1 \
            and written[-2].lower() in ("old", "young"):
        words = written[-2:]  # "the Old Man" is the skipper's epithet, not "Man"
    if not words or len(words) > MAX_NAME_WORDS:
        return None
    honorific = canonical_honorific(words[0]) if len(words) > 1 else None
    if honorific:
        words[0] = honorific
    name = " ".join(words)
    core = words[1:] if honorific else words
    if any(canonical_honorific(w) and len(w) > 1 and w[0].isupper() and w.lower() not in PARTICLES
           for w in core[:-1] if w.endswith(".")) or any(w[:1].islower() and w.lower() not in PARTICLES
                                                         for w in core[1:]):
        return None  # "Meg Mr. Brooke", "Jo let Laurie", "Mrs. March bein": two names run together, or a phrase;
        # "St." inside a name is the surname's particle ("Mrs. St. Clair", "Neville St. Clair")
    if len(name) > MAX_NAME_CHARS or not core:
        return None
    if not any(ch.isupper() for ch in core[0][:1]) and not any(w[:1].isupper() for w in core):
        return None
    if len(core) == 1 and (core[0].lower().rstrip(".") in ADDRESS_WORDS or len(core[0].rstrip(".")) < 2):
        return None
    if not any(ch.isalpha() for ch in name) or len({w.lower() for w in core}) < len(core):
        return None  # "Scrooge Scrooge": a repetition, not a name
    return name


@lru_cache(maxsize=65536)
def parse_name(name: str) -> NameParts:
    """Honorific and core words of a normalised name ("Sir William Lucas" -> Sir, (William, Lucas))."""
    words = name.split(" ")
    honorific = canonical_honorific(words[0]) if len(words) > 1 else None
    if honorific:
        words = words[1:]
    # "St." after the first word is a surname's particle: "Mr. St. Clair" is Mr. + "St. Clair", like "Mr. Darcy"
    core: list[str] = []
    for i, w in enumerate(words):
        if i > 0 and words[i - 1] in SURNAME_PREFIXES and core[-1] == words[i - 1] and (i > 1 or honorific):
            core[-1] = f"{core[-1]} {w}"
        else:
            core.append(w)
    return NameParts(honorific, tuple(core))


def surname(name: str) -> str | None:
    """The family-name part: the core word of "Mr. Darcy", the last word (with particles) of "Catherine de Bourgh"."""
    parts = parse_name(name)
    if not parts.core:
        return None
    if len(parts.core) == 1:
        return parts.core[0]
    words = list(parts.core[1:])
    for i, w in enumerate(words):
        if w.lower() in PARTICLES and i < len(words) - 1:
            return " ".join(words[i:])
    return words[-1]
