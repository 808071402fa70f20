"""The Write page's continuation modes in plain words (the papers' names in the help) and KID's settings row."""
from __future__ import annotations

import streamlit as st

from core.write.kid import KidParams

MODES = {"plain": "Text only", "kg-prompt": "Facts in the prompt", "kg-block": "Story notes in the prompt",
         "kid": "Fact-steered words (KID)"}
MODE_HELP = ("**Text only**: the model reads the text above and goes on. **Facts in the prompt**: the work's facts "
             "closest to your last paragraph are put before it (Andrus et al.). **Story notes in the prompt**: a note "
             "on the story's people, places and events from its graph comes first (Remember Me). **Fact-steered "
             "words (KID)**: the embedded model writes word by word, nudged toward the names and things of the "
             "closest facts; it runs in the background (minutes for 150 tokens), with progress and a Stop.")
METHODS = {"logits": "Word choices (fast)", "kv": "Model memory (much slower)"}


def kid_params(temperature: float, length: int) -> KidParams:
    """KID's settings, in words a writer can act on (the paper's names in the help)."""
    k1, k2, k3, k4, k5 = st.columns(5)
    return KidParams(
        hops=k1.number_input("How far to follow facts", 1, 4, 2, key="kid_hops",
                             help="1: facts about the names in your text; 2: also facts about what those facts "
                                  "name, and so on (the paper's hops)."),
        steps=k2.number_input("Nudges per word", 0, 10, 3, key="kid_steps",
                              help="How many times each word choice is pushed toward the facts; 0 turns steering off "
                                   "(plain sampling). The paper's policy-update steps."),
        strength=k3.number_input("Nudge strength", 0.0, 5.0, 0.5, 0.1, key="kid_strength",
                                 help="How big each push is; a cap keeps the text close to what the model would "
                                      "write anyway."),
        variant=k4.selectbox("Steering method", list(METHODS), format_func=METHODS.__getitem__, key="kid_variant",
                             help="Word choices: the paper's update of the next-word probabilities, on the fast "
                                  "runtime that writes plain text. Model memory: the released code's change to the "
                                  "model's memory of the text; it needs gradients, so it runs on the slower "
                                  "transformers copy of the model (loaded first: up to half a minute)."),
        seed=k5.number_input("Seed", 0, 2**31 - 1, 0, key="kid_seed", help="The same seed writes the same text."),
        temperature=temperature, max_tokens=length)
