"""The words the offline extractor's coreference and typing rules read: pronouns, honorifics and first names with a
gender, prepositions and verbs of place and motion, speech verbs, people nouns and the nouns only a person owns.

Small, hand-written lists for nineteenth- and early twentieth-century English fiction, like core.kg.given_names;
`prior_gender` and `is_place_name` read a name with them.
"""
from __future__ import annotations

from core.kg.evidence import PLACE_WORDS
from core.kg.names import parse_name

# Verbs of saying as the parser sees them after a quotation ("said Lydia"): their subject is a speaker, a character.
SPEECH_VERBS = frozenset({"said", "says", "cried", "cries", "replied", "replies", "answered", "exclaimed", "asked",
                          "added", "continued", "observed", "returned", "rejoined", "whispered", "shouted",
                          "muttered", "murmured", "called", "thought", "laughed", "sighed", "smiled", "repeated",
                          "declared", "remarked", "began", "interrupted", "resumed", "inquired", "enquired"})

MALE, FEMALE = "m", "f"
THIRD_PERSON: dict[str, str] = {"he": MALE, "him": MALE, "his": MALE, "himself": MALE,
                                "she": FEMALE, "her": FEMALE, "hers": FEMALE, "herself": FEMALE}
REFLEXIVE = frozenset({"himself", "herself"})
POSSESSIVE = frozenset({"his", "hers"})     # "her" is possessive when its dependency says so
FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself"})
SECOND_PERSON = frozenset({"you", "your", "yours", "yourself", "thee", "thou", "thy", "thine"})
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
OBJECT_DEPS = frozenset({"dobj", "pobj", "dative", "attr", "oprd"})

MALE_HONORIFICS = frozenset({"Mr.", "Sir", "Lord", "King", "Prince", "Duke", "Count", "Baron", "Uncle", "Father",
                             "Brother", "Master", "Monsieur", "Colonel", "Captain", "Major", "General", "Lieutenant",
                             "Sergeant", "Admiral", "Inspector", "Rev.", "Professor"})
FEMALE_HONORIFICS = frozenset({"Mrs.", "Miss", "Ms.", "Lady", "Dame", "Madam", "Madame", "Mademoiselle", "Queen",
                               "Princess", "Duchess", "Countess", "Baroness", "Aunt", "Mother", "Sister"})
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

# After these prepositions a name is a place ("in Seattle", "at Longbourn"); "to"/"from"/"toward" only after a verb
# of motion ("went to Dawson"; "said to Perrault" is a person).
PLACE_PREPOSITIONS = frozenset({"in", "at", "into", "near", "within", "inside", "throughout", "across", "through",
                                "around", "beyond", "outside"})
DIRECTION_PREPOSITIONS = frozenset({"to", "from", "toward", "towards", "for"})
MOTION_VERBS = frozenset("""go goes went gone going come comes came coming return returns returned returning travel
travels travelled traveled travelling journey journeyed sail sails sailed sailing drive drove driven ride rode ridden
walk walked walking run ran arrive arrived arriving move moved removed remove hurry hurried set start started
started leave left leaving head headed fly flew flown bound march marched proceed proceeded retire retired
""".split())
PLACE_SUFFIXES = PLACE_WORDS | frozenset({"sound", "river", "lake", "mountain", "mountains", "valley", "bay", "island",
                                         "islands", "creek", "pass", "range", "sea", "ocean", "city", "town", "county",
                                         "inlet", "harbour", "harbor", "hill", "hills", "bridge", "church",
                                         "cathedral", "college", "gardens", "garden", "row", "crescent", "terrace",
                                         "mount", "forest", "wood", "moor", "heath", "station", "inn", "hotel",
                                         "palace", "cove", "point", "falls", "canyon", "gulch"})
SPEECH_LEMMAS = SPEECH_VERBS | frozenset("""say says said cry cries cried reply replies replied answer answers answered
exclaim exclaimed ask asks asked add adds added continue continued observe observed return returned rejoin rejoined whisper
whispered shout shouted mutter muttered murmur murmured call called think thought laugh laughed sigh sighed smile
smiled repeat repeated declare declared remark remarked begin began interrupt interrupted resume resumed inquire
inquired enquire enquired growl growled snarl snarled yell yelled roar roared scream screamed demand demanded
retort retorted protest protested explain explained cry sob sobbed groan groaned grunt grunted urge urged tell told
""".split())
# Unnamed people ("the man in the red sweater", "the driver asked"): they compete for a pronoun like a name does,
# and when they win, the pronoun stays unresolved instead of going to the nearest named character.
MALE_NOUNS = frozenset("""man men boy father husband gentleman brother son uncle king lord fellow master sir lad
priest monk prince duke stranger-man chap grandfather nephew""".split())
FEMALE_NOUNS = frozenset("""woman women girl mother wife lady sister daughter aunt queen maid maiden princess duchess
widow niece grandmother mistress madam nurse""".split())
UNNAMED = ""          # the name of an unnamed person's entry
# What only a person (or an animal character) has: "Buck's master", "Elizabeth's sister", "Darcy's pride".
PERSONAL_NOUNS = frozenset("""hand hands eyes eye face head voice heart mind arm arms shoulder shoulders lips mouth
cheek cheeks brow hair neck feet foot back side ear ears teeth throat body father mother wife husband sister brother
son daughter uncle aunt cousin niece nephew master mistress friend friends servant maid children child family wedding
marriage death life letter name opinion feelings temper pride manners surprise astonishment anger
""".split())


def prior_gender(name: str) -> str | None:
    """Gender from the honorific or the first name alone ("Mrs. Bennet" f, "Sir William" m, "Lydia" f)."""
    parts = parse_name(name)
    if parts.honorific in MALE_HONORIFICS:
        return MALE
    if parts.honorific in FEMALE_HONORIFICS:
        return FEMALE
    first = parts.core[0].capitalize() if parts.core else ""
    if first in FEMALE_NAMES:
        return FEMALE
    if first in MALE_NAMES:
        return MALE
    return None


def is_place_name(name: str) -> bool:
    parts = parse_name(name).core
    return len(parts) >= 2 and parts[-1].lower() in PLACE_SUFFIXES
