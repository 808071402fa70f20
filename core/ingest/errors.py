"""The one exception the ingest package raises for bad input."""
from __future__ import annotations


class IngestError(ValueError):
    """Message is shown to the user as-is: one clear sentence saying what is wrong and what to do.

    Every reader wraps the exceptions of the libraries it uses (zipfile, ebooklib, lxml, codecs) in this class, so
    callers need to catch only this one to reject a file without touching anything else.
    """
