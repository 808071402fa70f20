"""English function words, pronouns, auxiliaries and titles: the words that say nothing about what a text is about.
Each user adds its own few (KID's trie the speech verbs, the answer-support check the fillers of short answers)."""
from __future__ import annotations

ENGLISH = frozenset("""a an the and or but if of at by for with about against between into through during before
after above below to from up down in out on off over under again further then once here there when where why how all
any both each few more most other some such no nor not only own same so than too very can will just don should now
is am are was were be been being have has had having do does did doing i me my myself we our ours ourselves you your
yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves
what which who whom this that these those would could shall may might must mr mrs miss""".split())
