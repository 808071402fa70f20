"""The NARCO prompts (Xu et al., section 3.2), written out from the paper's description of its two stages.

Question generation takes two turns, a human-guided chain of thought: first list the concrete parts of the prior
passage that are background or cause of something in the current one, then turn each into a question that arises
from the current passage and is answered by the prior one. Self-verification then answers each question on the two
passages joined without their boundary and must quote the supporting sentences, so a question whose evidence is not
in the prior passage (self-answerable, or hallucinated) can be discarded.
"""
from __future__ import annotations

QG_TURN1 = """Here are two passages from a story. The prior passage comes earlier in the story than the current passage.

Prior passage:
{prior}

Current passage:
{current}

List the concrete parts of the prior passage that are the background or the cause of specific events or situations \
in the current passage, each with a brief explanation. Write one numbered item per connection. If nothing in the \
current passage depends on the prior passage, write "None"."""

QG_TURN2 = """Now convert each connection you listed into a question. Each question must ask about the cause or \
background of something that happens in the current passage, must be answered by the corresponding part of the \
prior passage, and must not be answerable from the current passage alone. Write one numbered question per line and \
nothing else."""

VERIFY = """Given the context below and a related question, determine whether the question is answerable from the \
context. If it is, reason out the answer and quote the original sentences of the key supporting evidence.

Context:
{context}

Question: {question}

Reply in exactly this format:
Answerable: yes or no
Answer: a short answer
Evidence: the supporting sentences, copied word for word from the context"""

# Generation limits per call: long enough for a few numbered items, short enough that a looping small model
# cannot run up the bill.
TURN1_MAX_TOKENS = 256
TURN2_MAX_TOKENS = 160
VERIFY_MAX_TOKENS = 160
MAX_QUESTIONS_PER_PAIR = 5
