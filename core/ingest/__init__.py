"""Reading books: .txt, .md, .epub, .docx and .pdf files to titled chapters of plain text, and chapters to passages.

Only the names below are public; everything else in the package is an implementation detail.
"""
from core.ingest.chunking import chunk_text
from core.ingest.errors import IngestError
from core.ingest.models import ParsedBook, RawChapter
from core.ingest.reader import read_book
from core.ingest.sentences import split_sentences

__all__ = ["IngestError", "ParsedBook", "RawChapter", "chunk_text", "read_book", "split_sentences"]
