"""English given names: familiar forms (hypocorisms) and a short list of common given names.

The familiar forms are the offline path's evidence that "Lizzy" or "Eliza" is Elizabeth and "Meg" is Margaret (weak
evidence: every merge guard still applies). The given names are typing evidence: the small spaCy model often labels
"Lydia" or "Charlotte" a place or an organisation, and a name that starts with a known given name is a character.
Both cover nineteenth- and early twentieth-century English fiction and are deliberately short. `is_first_name`
reads a far longer list, the given names of 23 European and American locales that Faker (MIT) ships ("Delphine",
"Christophe", "Danielle"), for one job only: typing a name the NER model calls an organization and no sentence
types otherwise (core.kg.offline.chapter_types).
"""
from __future__ import annotations

import importlib
from functools import lru_cache

FORMAL_TO_FAMILIAR: dict[str, tuple[str, ...]] = {
    "Elizabeth": ("Lizzy", "Lizzie", "Liz", "Eliza", "Beth", "Bethy", "Bess", "Bessie", "Betsy", "Betty", "Libby",
                  "Lisbeth"),
    "Friedrich": ("Fritz",),
    "Margaret": ("Meg", "Maggie", "Peggy", "Madge", "Margery", "Marjorie", "Meggy"),
    "Catherine": ("Kitty", "Kate", "Katie", "Cathy", "Kit", "Kittie"),
    "Katherine": ("Kitty", "Kate", "Katie", "Kathy", "Kit"),
    "Josephine": ("Jo", "Josie"),
    "Theodore": ("Teddy", "Theo"),
    "Mary": ("Polly", "Molly", "Mamie", "Minnie"),
    "Sarah": ("Sally", "Sadie"),
    "Anne": ("Annie", "Nan", "Nanny"),
    "Ann": ("Annie", "Nan"),
    "Jane": ("Jenny", "Jennie", "Janey"),
    "Frances": ("Fanny",),
    "Caroline": ("Carrie", "Caro"),
    "Harriet": ("Hattie", "Hetty"),
    "Georgiana": ("Georgie",),
    "Louisa": ("Lou", "Louie"),
    "Isabella": ("Bella",),
    "Eleanor": ("Nell", "Nelly", "Ellie"),
    "Helen": ("Nell", "Nelly"),
    "Dorothy": ("Dolly", "Dot"),
    "Susan": ("Sue", "Susie", "Sukey"),
    "Lydia": ("Liddy",),
    "Matilda": ("Tilly", "Maud"),
    "Rebecca": ("Becky",),
    "Victoria": ("Vicky",),
    "Charlotte": ("Lottie",),
    "Amelia": ("Milly",),
    "Henrietta": ("Etta", "Hetty"),
    "William": ("Will", "Bill", "Billy", "Willy", "Willie"),
    "John": ("Jack", "Johnny"),
    "Robert": ("Bob", "Bobby", "Rob", "Robin"),
    "Richard": ("Dick", "Dickie", "Rick"),
    "Edward": ("Ned", "Ted", "Eddie", "Teddy"),
    "Henry": ("Harry", "Hal"),
    "James": ("Jim", "Jimmy", "Jem", "Jamie"),
    "Charles": ("Charlie", "Charley"),
    "Thomas": ("Tom", "Tommy"),
    "Frederick": ("Fred", "Freddy", "Freddie"),
    "Alexander": ("Alec", "Sandy"),
    "Benjamin": ("Ben", "Benny"),
    "Samuel": ("Sam", "Sammy"),
    "Joseph": ("Joe", "Joey"),
    "Christopher": ("Kit", "Chris"),
    "Nicholas": ("Nick",),
    "Michael": ("Mike", "Mick"),
    "Francis": ("Frank",),
    "George": ("Georgie",),
    "Laurence": ("Laurie", "Larry"),
    "Lawrence": ("Laurie", "Larry"),
    "Ebenezer": ("Eb",),
    "Abraham": ("Abe",),
    "Daniel": ("Dan", "Danny"),
    "David": ("Davy",),
    "Peter": ("Pete",),
    "Timothy": ("Tim",),
    "Frederic": ("Fred",),
}


COMMON_GIVEN_NAMES = frozenset("""
Abigail Ada Adam Adela Adelaide Agatha Agnes Albert Alfred Alice Alicia Allan Amelia Amy Andrew Angela Ann Anna Anne
Annie Anthony Arabella Archibald Arthur Augusta Augustus Barbara Basil Beatrice Belle Benjamin Bertha Betsy Bob
Caroline Cecil Cecilia Cecily Charles Charlotte Christina Christopher Clara Clarissa Clement Constance Cynthia Daisy
Daniel David Diana Dick Dinah Dorian Dorothea Dorothy Edgar Edith Edmund Edward Edwin Eleanor Elinor Eliza Elizabeth
Ellen Elsie Emily Emma Ernest Esther Ethel Eugene Evelyn Fanny Felix Flora Florence Frances Francis Frank Fred
Frederick Geoffrey George Georgiana Georgina Gerald Gertrude Gilbert Grace Guy Hannah Harold Harriet Harry Hector
Helen Henrietta Henry Herbert Hester Hetty Horace Hugh Ida Isaac Isabel Isabella Jack Jacob James Jane Janet Jasper
Jemima Jenny Jessie Jim Joan Jo Joe John Joseph Josephine Joshua Julia Juliet Julius Kate Katherine Catherine Kitty
Laura Laurence Lawrence Leonard Lewis Lily Lizzy Lionel Louisa Louise Lucy Lydia Mabel Madeline Margaret Maria
Marian Marianne Martha Mary Matilda Matthew Maud Meg Michael Mildred Miriam Molly Nancy Ned Nell Nelly Nicholas
Olive Oliver Olivia Patience Patrick Paul Peggy Penelope Percy Peter Philip Phoebe Polly Priscilla Rachel Ralph
Rebecca Richard Robert Rose Rosa Rosamond Ruth Sally Samuel Sarah Sibyl Sophia Sophie Stephen Susan Susanna Sylvia
Thomas Theodore Tim Timothy Tom Ursula Victor Victoria Violet Walter Wilfred William Winifred
""".split())


def is_given_name(word: str) -> bool:
    """True for a known given name or familiar form ("Lydia", "Lizzy"); the check is case-sensitive on purpose."""
    return word in COMMON_GIVEN_NAMES or bool(formal_forms(word)) or word in FORMAL_TO_FAMILIAR


@lru_cache(maxsize=1)
def _familiar_index() -> dict[str, frozenset[str]]:
    index: dict[str, set[str]] = {}
    for formal, familiar in FORMAL_TO_FAMILIAR.items():
        for nick in familiar:
            index.setdefault(nick.lower(), set()).add(formal.lower())
    return {k: frozenset(v) for k, v in index.items()}


def formal_forms(word: str) -> frozenset[str]:
    """Lower-case formal given names of which `word` is a familiar form ("Lizzy" -> {"elizabeth"})."""
    return _familiar_index().get(word.lower(), frozenset())


def same_given_name(a: str, b: str) -> bool:
    """True when two given names are equal or one is a familiar form of the other (or both of one formal name)."""
    la, lb = a.lower(), b.lower()
    if la == lb:
        return True
    fa, fb = formal_forms(la) | {la}, formal_forms(lb) | {lb}
    return bool(fa & fb)


# First names with a gender (core.kg.coref_words.prior_gender; alias evidence: John Brooke is Mr. Brooke, not Mrs.)
FEMALE_NAMES = frozenset("""
Abigail Ada Adela Adelaide Agatha Agnes Alice Alicia Amelia Amy Angela Ann Anna Anne Annie Arabella Augusta Barbara
Beatrice Belle Bertha Beth Betsy Betty Caroline Catherine Cecilia Cecily Charlotte Christina Clara Clarissa Constance
Cynthia Daisy Diana Dinah Dorothea Dorothy Edith Eleanor Elinor Eliza Elizabeth Ellen Elsie Emily Emma Esther Ethel
Evelyn Fanny Flora Florence Frances Georgiana Georgina Gertrude Grace Hannah Harriet Helen Henrietta Hester Hetty Ida
Irene Isabel Isabella Jane Janet Jemima Jenny Jessie Joan Josephine Julia Juliet Kate Katherine Kitty Laura Lizzy
Lily Louisa Louise Lucy Lydia Mabel Madeline Margaret Maria Marian Marianne Martha Mary Matilda Maud Meg Mercedes
Mildred Miriam Molly Nancy Nell Nelly Olive Olivia Patience Peggy Penelope Phoebe Polly Priscilla Rachel Rebecca Rose
Rosa Rosamond Ruth Sally Sarah Sibyl Sophia Sophie Susan Susanna Sylvia Ursula Victoria Violet Winifred
""".split())
MALE_NAMES = frozenset("""
Adam Albert Alfred Allan Andrew Anthony Archibald Arthur Augustus Basil Benjamin Bob Cecil Charles Christopher Clement
Daniel David Dick Dorian Edgar Edmund Edward Edwin Ernest Eugene Felix Francis Frank Fred Frederick Geoffrey George
Gerald Gilbert Guy Harold Harry Hector Henry Herbert Horace Hugh Isaac Jack Jacob James Jasper Jim Joe John Joseph
Joshua Julius Laurence Lawrence Leonard Lewis Lionel Matthew Michael Ned Nicholas Oliver Patrick Paul Percy Peter
Philip Ralph Richard Robert Samuel Stephen Theodore Thomas Tim Timothy Tom Victor Walter Wilfred William Sherlock
Ebenezer Hal Fritz Teddy Laurie
""".split())


def given_name_gender(word: str) -> str | None:
    """"m" or "f" for a first name of the lists above, else None."""
    word = word.capitalize()
    return "f" if word in FEMALE_NAMES else "m" if word in MALE_NAMES else None


# Faker's person providers whose given names are written in the Latin alphabet and met in fiction in English.
FIRST_NAME_LOCALES = ("en_US", "en_GB", "en_IE", "en_NZ", "fr_FR", "fr_BE", "de_DE", "de_AT", "it_IT", "es_ES",
                      "es_MX", "pt_PT", "pt_BR", "nl_NL", "sv_SE", "no_NO", "da_DK", "fi_FI", "pl_PL", "cs_CZ",
                      "hu_HU", "ro_RO", "hr_HR")


@lru_cache(maxsize=1)
def _first_names() -> frozenset[str]:
    out: set[str] = set()
    for locale in FIRST_NAME_LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except (ImportError, AttributeError):   # Faker missing or reorganised: the short list alone
            continue
        for attr in ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary"):
            out.update(n for n in getattr(provider, attr, ()) if isinstance(n, str) and n.isalpha() and n[:1].isupper())
    return frozenset(out)


def is_first_name(word: str) -> bool:
    """A given name of any of FIRST_NAME_LOCALES ("Delphine", "Dennis"), or of the short list: wider and looser than
    is_given_name ("Florence" and "Jordan" are places too), so only for a name no sentence types."""
    return is_given_name(word) or word in _first_names()
