"""Small books cut from the shared novels: the first chapters, each its first paragraphs (library tests)."""
from __future__ import annotations

from pathlib import Path

from core.ingest import read_book


def cut_novel(path: Path, chapters: int, words: int) -> str:
    """The first `chapters` chapters of a novel as a .txt book ("Chapter N" headings), each its first paragraphs up
    to about `words` words."""
    parts = []
    for i, chapter in enumerate(read_book(path.name, path.read_bytes()).chapters[:chapters], start=1):
        kept: list[str] = []
        for paragraph in chapter.text.split("\n\n"):
            if sum(len(p.split()) for p in kept) >= words:
                break
            kept.append(paragraph)
        parts.append(f"Chapter {i}\n\n" + "\n\n".join(kept))
    return "\n\n\n".join(parts) + "\n"
