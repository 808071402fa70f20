"""The words the offline extractor's coreference and typing rules read: pronouns, honorifics and first names with a
gender, prepositions and verbs of place and motion, speech verbs, people nouns and the nouns only a person owns.

Small, hand-written lists for nineteenth- and early twentieth-century English fiction, like core.kg.given_names;
`prior_gender` and `is_place_name` read a name with them.
"""
from __future__ import annotations

from core.kg.evidence import PLACE_SUFFIXES, PLACE_WORDS  # noqa: F401 - PLACE_WORDS re-exported
from core.kg.given_names import FEMALE_NAMES, MALE_NAMES, is_given_name
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
# After these prepositions a name is a place ("in Seattle", "at Longbourn"); "to"/"from"/"toward" only after a verb
# of motion ("went to Dawson"; "said to Perrault" is a person).
PLACE_PREPOSITIONS = frozenset({"in", "at", "into", "near", "within", "inside", "throughout", "across", "through",
                                "around", "beyond", "outside"})
DIRECTION_PREPOSITIONS = frozenset({"to", "from", "toward", "towards", "for"})
# Verbs aimed "at" someone: "growled at Thomas Reed", "laughed at Curly" name no place.
AT_PERSON_VERBS = frozenset("""look looks looked looking stare stares stared staring glance glanced gaze gazed laugh
laughs laughed laughing smile smiles smiled smiling growl growls growled snarl snarled bark barked shout shouted
yell yelled scream screamed wink winked nod nodded frown frowned sneer sneered point pointed aim aimed fire fired
shoot shot throw threw thrown snap snapped wave waved grin grinned scowl scowled glare glared peer peered jeer
jeered rush rushed sprang spring leap leaped leapt fly flew strike struck swear swore curse cursed""".split())
MOTION_VERBS = frozenset("""go goes went gone going come comes came coming return returns returned returning travel
travels travelled traveled travelling journey journeyed sail sails sailed sailing drive drove driven ride rode ridden
walk walked walking run ran arrive arrived arriving move moved removed remove hurry hurried set start started
started leave left leaving head headed fly flew flown bound march marched proceed proceeded retire retired
""".split())
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


# Nouns said of a written work "of" it ("the publication of the Sentimental Journey", "a translator of Tristram
# Shandy", "the author of Waverley"): the name after them is a book, a poem, a paper, not a person or a place.
WORK_NOUNS = frozenset("""publication translation translations translator translators edition editions author authors
copy copies reader readers reviewer reviewers sequel reprint reprints publisher publishers manuscript perusal
printing imitation imitations imitator imitators recension""".split())


# Animals a named character may be ("Curly, a good-natured Newfoundland", "Toots, the Japanese pug", "two native
# huskies, Teek and Koona", "Nig was a huge black dog"): a name in apposition with one of these, or said to be one, is
# a character (issue 37: the dogs of The Call of the Wild were typed as places and an organization).
ANIMAL_NOUNS = frozenset("""dog dogs husky huskies pug pugs hound hounds terrier terriers setter setters collie collies
bloodhound mastiff spaniel retriever pointer newfoundland bernard sheepdog hairless puppy pup pups bitch cur mongrel
cat cats kitten kittens horse horses mare stallion pony ponies steed charger colt filly mule mules donkey ass cow bull
ox oxen calf pig hog sheep goat wolf wolves fox bear lion tiger elephant monkey ape bird birds parrot raven crow owl
eagle hawk canary magpie goose duck mouse mice rat rabbit hare squirrel frog toad turtle tortoise snake serpent
creature beast brute animal""".split())
# People nouns an apposition or a predicate may name ("Perrault, a French-Canadian courier", "Manuel was a gardener").
PERSON_APPOSITIONS = MALE_NOUNS | FEMALE_NOUNS | frozenset("""person child children baby friend courier driver helper
servant gardener cook maid partner companion fellow youngster stranger giant dwarf""".split())


def _inflections(stems: str) -> frozenset[str]:
    """A verb's stem with its regular -s, -ed and -ing forms (irregular forms are listed beside the stems)."""
    out: set[str] = set()
    for stem in stems.split():
        out.add(stem)
        out.add(stem + ("es" if stem.endswith(("s", "sh", "ch", "x")) else "s"))
        base = stem[:-1] if stem.endswith("e") else stem
        out.add(base + "ed")
        out.add(base + "ing")
    return frozenset(out)


# What only a living being does: the subject of one of these verbs ("Curly rushed", "Koona howled") acts, which a
# place, a firm or a weapon does not. Verbs a place or a thing can take as subject (run, lie, stand, rise) are left out.
ANIMATE_VERBS = _inflections("""bark growl snarl whine whimper howl yelp bite lick sniff smell wag leap spring rush
fight attack kill hunt eat drink sleep dream wake laugh cry weep smile frown grin sigh sob scream shout yell whisper
mutter speak talk ask answer reply say think know believe remember forget learn understand want wish hope love hate
like fear dread despise envy trust obey refuse decide try attempt watch look stare glare gaze listen hear notice
recognize resent sulk pant crawl creep limp stagger stumble scramble plunge dash bolt flee chase follow accompany
greet thank beg pray marry kiss embrace hug nod shrug wink tell inform warn explain confess admit promise apologize
apologise persuade convince realize realise wonder discover insist confront befriend seduce flirt murder shoot rescue
""") | frozenset("""ate eaten drank drunk slept dreamt dreamed woke woken said spoke spoken thought knew known believed
understood leapt leaped sprang sprung fought bit bitten fled saw seen heard felt caught stole stolen wept told shot
married marries worried worries""".split())
# People's names ending in "land" (first names and surnames), which the "-land" place rule must leave alone.
LAND_NAMES = frozenset({"Roland", "Rowland", "Leland", "Garland", "Copeland", "Cleland", "Newland", "Ackland",
                        "Kirkland", "Sutherland", "Strickland", "Rutland", "Loveland"})
# A first word that makes a name a place ("Lake Bennett", "Mount Vesuvius", "Cape Horn", "Fort Sumter").
PLACE_PREFIXES = frozenset({"lake", "mount", "mt.", "cape", "fort", "port", "isle", "loch", "lac", "monte", "mont",
                            "sierra", "rio", "gulf", "strait", "straits"})


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


# The Sun, the Moon, the planets and the best-known moons and asteroids: places in a story ("on Venus", "back to
# Earth"), whatever a chapter's NER labels said of a one-word name (the small spaCy model often calls them people).
CELESTIAL_BODIES = frozenset("""Sun Moon Mercury Venus Earth Mars Jupiter Saturn Uranus Neptune Pluto Luna Terra
Callisto Ganymede Io Europa Titan Triton Phobos Deimos Ceres Vesta Pallas Juno""".split())


def is_celestial_body(name: str) -> bool:
    """"Venus", "Callisto", "Earth": one word, no honorific, in CELESTIAL_BODIES."""
    parts = parse_name(name)
    return not parts.honorific and len(parts.core) == 1 and parts.core[0] in CELESTIAL_BODIES


# Words that make a name a body of people ("the Army", "the Triplanet Patrol", "Lex Industries") or a publication
# ("Galaxy Magazine"): one such word alone, or as a longer name's last word.
BODY_WORDS = frozenset({"army", "navy", "police", "government", "parliament", "senate", "congress", "council",
                        "committee", "commission", "federation", "alliance", "league", "patrol", "corps", "fleet",
                        "militia", "church", "company", "society", "association", "bureau", "department", "ministry",
                        "agency", "academy", "university", "college", "industries", "corporation", "inc.", "ltd."})
PUBLICATION_WORDS = frozenset({"magazine", "journal", "gazette", "chronicle", "herald", "tribune"})
# Made things, as a longer name's last word: "the Dixon Ray Rifle", "the Time Machine", "a Colt Revolver".
THING_WORDS = frozenset({"rifle", "rifles", "pistol", "pistols", "revolver", "revolvers", "gun", "guns", "carbine",
                         "musket", "cannon", "blaster", "blasters", "machine", "engine", "locomotive", "telescope"})
# Offices held by one person, as a longer name's last word ("the Prime Minister", "the Zone Commandant", "Attorney
# General") or its first before "of" ("the Commandant of Space Research", "the Minister of War"): a character.
OFFICE_WORDS = frozenset({"minister", "president", "chancellor", "secretary", "ambassador", "commandant",
                          "commissioner", "governor", "general", "admiral", "marshal", "premier", "senator", "mayor",
                          "consul", "inspector", "superintendent", "sergeant", "lieutenant", "director", "treasurer",
                          "viceroy", "sultan", "emperor", "bey", "pasha"})
# Words that make a longer name an event: its last word ("the Revolutionary War", "the French Revolution", "the
# Boston Massacre"; not after "of": "The Art of War" is a book) or its first before "of" ("Battle of Waterloo").
EVENT_WORDS = frozenset({"war", "wars", "battle", "revolution", "rebellion", "uprising", "siege", "massacre",
                         "crusade", "crusades", "mutiny", "insurrection", "armistice"})
# The feasts and seasons a story counts its time by ("at Michaelmas", "before Christmas"): events, never people or
# places; also with "Day", "Eve", "Night" or "Sunday" after them ("Christmas Eve", "Easter Sunday").
FEASTS = frozenset({"christmas", "michaelmas", "candlemas", "lammas", "martinmas", "hallowmas", "whitsun",
                    "whitsuntide", "easter", "eastertide", "lent", "shrovetide", "yuletide", "epiphany", "pentecost",
                    "advent", "midsummer", "twelfth-night"})


def shape_type(name: str) -> str | None:
    """A type a name's shape gives, whatever a chapter's NER labels said: an event ("Revolutionary War", "Battle of
    Waterloo", a feast: "Michaelmas", "Christmas Eve"), an organization ("Army", "Outer Planets Alliance"), a
    publication or a made thing, an object ("Galaxy Magazine", "Dixon Ray Rifle", "Time Machine"), an office, a
    character ("Prime Minister", "Commandant of Space Research"), or
    a people, a character ("Earthmen", "Frenchman", "the Headless Horseman": a last word in "-man" or "-men" that is
    no first name). None otherwise."""
    parts = parse_name(name)
    if parts.honorific or not parts.core:
        return None
    last = parts.core[-1].lower()
    words = [w.lower() for w in parts.core]
    if words[0] in FEASTS and (len(words) == 1 or words[1:] in (["day"], ["eve"], ["night"], ["sunday"])):
        return "event"
    if len(parts.core) >= 2 and (last in EVENT_WORDS and parts.core[-2].lower() != "of"   # not "Rules of War"
                                 or parts.core[0].lower() in EVENT_WORDS and parts.core[1].lower() == "of"):
        return "event"
    if (last in PUBLICATION_WORDS or last in THING_WORDS) and len(parts.core) >= 2:
        return "object"
    if len(parts.core) >= 2 and (last in OFFICE_WORDS and parts.core[-2].lower() != "of"
                                 or words[0] in OFFICE_WORDS and words[1] == "of"):
        return "character"
    if last in BODY_WORDS:
        return "organization"
    word = parts.core[-1]   # "Frenchman"; "the Headless Horseman": a name whose last word is one
    if (len(word) >= 6 and word[:1].isupper() and word.endswith(("man", "men")) and not is_given_name(word)
            and not (len(parts.core) >= 2 and parts.core[0].lower() in PLACE_PREFIXES)):
        return "character"
    return None


def is_place_name(name: str) -> bool:
    """A place by its shape: a place word at the end ("Queen Charlotte Sound", "Santa Clara Valley") or the start
    ("Lake Bennett", "Mount Vesuvius"), or one word ending in "land" that is no first name ("Sunland", "Northland";
    not "Roland")."""
    parts = parse_name(name)
    core = parts.core
    if len(core) >= 2:
        return core[-1].lower() in PLACE_SUFFIXES or (core[0].lower() in PLACE_PREFIXES and not parts.honorific)
    word = core[0] if core else ""
    return (not parts.honorific and len(word) >= 6 and word.lower().endswith("land") and word[:1].isupper()
            and not is_given_name(word) and word not in LAND_NAMES)
