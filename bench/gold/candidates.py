"""Candidate names of a book for writing a gold list by hand: runs of capitalised words in the raw text, most
frequent first, each with a few of its sentences, so a person can read where a name is used and decide what it names.

It reads the text only (never a graph Fabula built), so gold lists written from its output are not tuned to the
system:

    .venv/bin/python bench/gold/candidates.py ../shared/data/novels/txt/little_women_pg514.txt --top 60 --contexts 2
"""
from __future__ import annotations

import argparse
import re
from collections import Counter, defaultdict
from pathlib import Path

# Capitalised words (with inner hyphens or apostrophes), optionally joined by "of"/"de"/"van"/"St.": "Sol-leks",
# "John Thornton", "Lady Catherine de Bourgh", "Neville St. Clair".
NAME = re.compile(r"(?:(?:Mr|Mrs|Ms|Dr|St)\.\s)?[A-Z][\w'’-]*(?:\s(?:(?:of|de|van|von|St\.)\s)?[A-Z][\w'’-]*)*")
SENTENCE_START = re.compile(r"(?:^|[.!?\"“”]\s+)$")
COMMON = frozenset("""The A An And But Or If In On At To Of For With By From As It He She They We I You His Her Their
This That These Those There Then When What Who Why How Yes No Oh Ah Well Now So Not All One Two Chapter CHAPTER My
Our Your Its Is Was Be Do Did Have Had Let Here Where While After Before Upon Though Although Some Every
Each""".split())


def candidates(text: str) -> tuple[Counter[str], dict[str, list[str]]]:
    counts: Counter[str] = Counter()
    contexts: dict[str, list[str]] = defaultdict(list)
    for m in NAME.finditer(text):
        name = m.group(0).rstrip("'’-")
        name = re.sub(r"['’]s$", "", name)
        words = name.split()
        while words and words[0] in COMMON:
            words = words[1:]
        if not words:
            continue
        name = " ".join(words)
        counts[name] += 1
        if len(contexts[name]) < 8:
            start = max(0, m.start() - 90)
            contexts[name].append(" ".join(text[start:m.end() + 90].split()))
    return counts, contexts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("--top", type=int, default=60)
    parser.add_argument("--contexts", type=int, default=2)
    parser.add_argument("--min", type=int, default=3, help="leave out names seen fewer times")
    args = parser.parse_args()
    counts, contexts = candidates(args.book.read_text(encoding="utf-8", errors="replace"))
    for name, n in counts.most_common():
        if n < args.min:
            break
        if args.top <= 0:
            break
        args.top -= 1
        print(f"{n:5d}  {name}")
        step = max(1, len(contexts[name]) // max(args.contexts, 1))
        for ctx in contexts[name][::step][:args.contexts]:
            print(f"         … {ctx} …")


if __name__ == "__main__":
    main()
