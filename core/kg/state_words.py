"""The words the state extractor (core.kg.states) reads: deaths, kinship, attributes, homes, and the cues that say a
sentence is a memory, a dream, a ghost or a belief rather than the story's present.

The KG parse runs without spaCy's lemmatizer (core.nlp.KG_DISABLE), so verbs are listed with their inflections.
Small, hand-written lists for nineteenth- and early twentieth-century English fiction, like core.kg.coref_words.
"""
from __future__ import annotations


def forms(text: str) -> frozenset[str]:
    return frozenset(text.split())


# ---- death ---------------------------------------------------------------------------------------------------------
# "X died", "X perished": the subject is dead (not with "away"/"down"/"out": a sound dies away, a fire dies down).
DIE_VERBS = forms("die died dies perish perished perishes expire expired drown drowned starve starved")
DIE_NOT_PARTICLES = forms("away down out off")
# English idioms of dying: "X drew her last (breath)", "X breathed his last", "X passed away", "X gave up the ghost".
LAST_BREATH_VERBS = forms("draw drew drawn draws breathe breathed breathes")
PASS_AWAY_VERBS = forms("pass passed passes")
# "X was killed", "Y killed X": the object is dead.
KILL_VERBS = forms("""kill killed kills slay slew slain slays murder murdered murders execute executed strangle
strangled poison poisoned behead beheaded hang hanged assassinate assassinated butcher butchered""")
# "X was found dead", "X lay dead", "X fell dead", "X is no more"
DEAD_WORDS = forms("dead lifeless deceased")
# "the death of X", "X's death", "X's funeral": X is dead by now (a reference back to a death).
DEATH_NOUNS = forms("death murder suicide funeral burial grave corpse")
# "X shot himself", "X had hanged herself": a suicide (not "X tried to kill himself": an aim, no death)
SELF_KILL_VERBS = KILL_VERBS | forms("shoot shot shoots drown drowned drowns hung")
REFLEXIVES = forms("himself herself themselves itself")
COMMIT_VERBS = forms("commit commits committed committing")   # "committed suicide"
GIVE_VERBS = forms("give gives gave given giving")            # "gave up the ghost" (the parse has no lemmas)
# "looked dead" says nothing, "looked up" is an act: these still verbs act with a particle or a place
LOOK_VERBS = forms("look looked looks appear appeared appears")
# A character vanishing in a passage about a death ("the circle closed as Spitz disappeared from view"): a weak
# (inferred) death. The passage must speak of death or killing.
VANISH_VERBS = forms("disappeared vanished sank")
DEATH_CONTEXT = forms("death kill killed killing slain died dead")
# A death only believed or reported: "they thought him dead", "X was supposed to have drowned".
BELIEF_WORDS = forms("""thought think thinks believed believe believes supposed suppose reported rumoured rumored
feared fear fears presumed presume seemed seem seems appeared imagined imagine dreamed dreamt dream pretended pretend
given up for""")
HEDGES = forms("nearly almost half as though if unless perhaps maybe probably would could might should must may shall "
                "will ca wo lest")

# ---- present or not: cues that a dead character's sentence is no contradiction -------------------------------------
MEMORY_WORDS = forms("""remember remembered remembers remembering recall recalled recalls recollect recollected
recollection memory memories reminded remind reminds mourn mourned mourns mourning miss missed misses grieve grieved
grieving lament lamented weep wept think thought thinking dream dreamed dreamt dreams dreaming vision visions fancy
fancied imagine imagined imagining picture pictured long longed ago once formerly former past used""")
GHOST_WORDS = forms("""ghost ghosts spirit spirits phantom phantoms spectre specter apparition shade wraith corpse body
remains grave tomb portrait picture likeness statue image photograph memory voice name legacy heaven""")
# Verbs a dead body is the subject of without acting: "X lay in the snow", "X was buried".
STILL_VERBS = forms("""lie lay lies lying rest rested rests remain remained remains seem seemed seems look looked
appear appeared sleep slept sleeps be is was were been being have had has become became missing gone absent dead
buried repose reposed reposes reposing lain""")

# ---- kinship and social ties ---------------------------------------------------------------------------------------
# noun -> (class, gender). Classes pair up as inverse relations in core.continuity.
TIES: dict[str, tuple[str, str]] = {
    "sister": ("sibling", "f"), "brother": ("sibling", "m"), "father": ("parent", "m"), "mother": ("parent", "f"),
    "papa": ("parent", "m"), "mamma": ("parent", "f"), "son": ("child", "m"), "daughter": ("child", "f"),
    "husband": ("spouse", "m"), "wife": ("spouse", "f"), "uncle": ("auncle", "m"), "aunt": ("auncle", "f"),
    "nephew": ("nibling", "m"), "niece": ("nibling", "f"), "cousin": ("cousin", ""),
    "grandfather": ("grandparent", "m"), "grandmother": ("grandparent", "f"), "grandson": ("grandchild", "m"),
    "granddaughter": ("grandchild", "f"), "servant": ("servant", ""), "maid": ("servant", "f"),
    "valet": ("servant", "m"), "footman": ("servant", "m"), "butler": ("servant", "m"), "master": ("master", "m"),
    "mistress": ("master", "f"), "fiancé": ("betrothed", "m"), "fiancée": ("betrothed", "f"),
    "twin": ("sibling", ""), "stepmother": ("stepparent", "f"), "stepfather": ("stepparent", "m"),
}
MARRY_VERBS = forms("married marries marry wed weds wedded")

# ---- attributes ----------------------------------------------------------------------------------------------------
EYE_WORDS = forms("eye eyes")
HAIR_WORDS = forms("hair locks curls tresses")
# colour word -> class; two values conflict when their classes differ
EYE_COLOURS: dict[str, str] = {
    "blue": "light", "grey": "light", "gray": "light", "green": "light", "violet": "light", "azure": "light",
    "brown": "dark", "black": "dark", "dark": "dark", "hazel": "hazel",
}
HAIR_COLOURS: dict[str, str] = {
    "fair": "fair", "blond": "fair", "blonde": "fair", "golden": "fair", "yellow": "fair", "flaxen": "fair",
    "gold": "fair", "light": "fair", "red": "red", "auburn": "red", "ginger": "red", "sandy": "red",
    "black": "dark", "dark": "dark", "brown": "dark", "raven": "dark", "chestnut": "dark",
    "grey": "grey", "gray": "grey", "white": "grey", "silver": "grey", "grizzled": "grey",
}
HEIGHTS: dict[str, str] = {"tall": "tall", "short": "short", "lanky": "tall", "towering": "tall"}
FIGURE_NOUNS = forms("figure frame stature")   # "his tall figure", "her little frame": a height
FIGURE_HEIGHTS: dict[str, str] = {**HEIGHTS, "little": "short", "small": "short", "diminutive": "short",
                                  "tiny": "short", "giant": "tall", "gigantic": "tall"}
# Possessive pronouns: a profession noun someone owns ("my nurse", "his servant") names a role toward them.
POSSESSIVES = frozenset({"my", "your", "his", "her", "our", "their", "thy"})
PROFESSIONS = forms("""doctor physician surgeon lawyer attorney solicitor barrister clergyman vicar rector curate priest
parson minister soldier sailor merchant banker clerk teacher schoolmaster schoolmistress governess nurse cook butler
coachman gardener farmer blacksmith carpenter tailor painter artist writer poet novelist actor actress detective judge
magistrate housekeeper professor student scientist chemist engineer miner shepherd hunter fisherman innkeeper
shopkeeper baker butcher grocer watchmaker apothecary musician milliner dressmaker""")
NATIONALITIES: dict[str, str] = {
    "english": "English", "englishman": "English", "englishwoman": "English", "french": "French",
    "frenchman": "French", "frenchwoman": "French", "german": "German", "italian": "Italian", "spanish": "Spanish",
    "spaniard": "Spanish", "scotch": "Scottish", "scottish": "Scottish", "scotchman": "Scottish",
    "scotsman": "Scottish", "irish": "Irish", "irishman": "Irish", "american": "American", "russian": "Russian",
    "dutch": "Dutch", "dutchman": "Dutch", "swiss": "Swiss", "welsh": "Welsh", "welshman": "Welsh",
    "austrian": "Austrian", "polish": "Polish", "swede": "Swedish", "swedish": "Swedish", "greek": "Greek",
    "portuguese": "Portuguese", "canadian": "Canadian", "australian": "Australian",
}
# A stated change makes a new profession or home no contradiction: "became a doctor", "moved to London".
CHANGE_WORDS = forms("""became become becomes becoming turned appointed promoted retired former formerly now new
newly made elected ordained enlisted joined gave resigned no longer""")
AGE_UNITS = forms("year years")
NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
NUMBER_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
                     "ninety": 90, "a": 1, "an": 1, "several": 0, "many": 0, "some": 0})

# ---- time passing --------------------------------------------------------------------------------------------------
TIME_PASS_VERBS = forms("passed pass passes elapsed gone went rolled flew slipped")
TIME_LATER_WORDS = forms("later afterwards after since hence")

PERSON_NOUNS = forms("man woman girl boy lad lass fellow lady gentleman child youth maiden person creature")

# ---- homes ---------------------------------------------------------------------------------------------------------
LIVE_VERBS = forms("lived lives live dwelt dwells dwell resided resides reside")
MOVE_VERBS = forms("""moved moves move removed settled settles emigrated returned return returns fled flee went
left leave leaves came sailed travelled traveled journeyed retired""")
RELOCATE_VERBS = forms("moved moves removed settled settles emigrated fled retired")   # a move, wherever to
HOME_NOUNS = forms("home house estate seat residence cottage manor farm lodgings")
# "on the edge of P", "on the banks of P": the place is the one after "of"
PLACE_PART_NOUNS = forms("edge edges outskirts side banks bank shore shores borders border heart centre center "
                         "middle foot top end corner")
BIRTH_WORDS = forms("born")
NATIVE_WORDS = forms("native")
