"""Bytes to clean text: reject binary files, work out the encoding, normalise newlines and Unicode.

Order matters. Byte-order marks are certain, so they come first; then magic numbers of common binary formats (a
PNG starts with bytes that are valid Latin-1, so a decoder alone would happily accept it); then UTF-16 without a
BOM, recognised by its pattern of zero bytes; only then the zero-byte/control-byte test for other binary data, and
finally UTF-8, Windows-1252 and charset-normalizer in that order.
"""
from __future__ import annotations

import codecs
import re
import unicodedata

from charset_normalizer import from_bytes

from core.ingest.errors import IngestError

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: its BOM starts with the UTF-16 LE one
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"RIFF", "a media file"),
    (b"PK\x03\x04", "a ZIP archive (an EPUB or Word file needs its own extension)"),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\x7fELF", "a program"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office document"),
    (b"{\\rtf", "an RTF document"),
    (b"OggS", "an audio file"),
    (b"ID3", "an MP3 file"),
)

# C0 control bytes that never occur in text (tab, newlines, form feed, vertical tab and the DOS end-of-file
# marker 0x1A do, so they are not in this set).
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 11, 12, 13, 26))
# ...and U+FFFE/U+FFFF, which are not characters at all: like the control characters they are not allowed in XML, so
# one in a name would make the GraphML export or an EPUB of the work unreadable.
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\x1a\ufffe\uffff]")
_HIGH_BYTES = bytes(range(128, 256))
_ASCII_LETTERS = bytes(range(65, 91)) + bytes(range(97, 123))
_WESTERN_NON_ASCII_LIMIT = 0.3
MAX_WORD_CHARS = 200  # a "word" longer than this (a run of characters without white space) is not readable text
# A white-space-delimited word of at most MAX_WORD_CHARS characters with a letter or digit in it. The lookahead bounds
# the word before anything else is tried, so a 25 MB file without white space costs one scan, not a quadratic one.
_READABLE_WORD = re.compile(r"(?<!\S)(?=\S{1,%d}(?!\S))\S*?[^\W_]" % MAX_WORD_CHARS)


def decode_text(data: bytes) -> tuple[str, str]:
    """The text in `data` with newlines normalised to "\\n", and the name of the encoding that was used.

    Raises IngestError for empty files, binary files and text whose encoding cannot be worked out.
    """
    if not data.strip():
        raise IngestError("The file is empty: choose a file that contains the book's text.")
    text, encoding = _decode(data)
    text = normalise_text(text)
    if not text.strip():
        raise IngestError("The file contains only blank space: choose a file that contains the book's text.")
    return text, encoding


def has_readable_words(text: str) -> bool:
    """Whether `text` holds at least one word: one line of text does, a 5 MB run of letters without a space does not."""
    return _READABLE_WORD.search(text) is not None


def normalise_text(text: str) -> str:
    """NFC Unicode, "\\n" newlines, form feeds as paragraph breaks, and no stray control characters."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n\n")
    text = text.replace("\f", "\n\n").replace("\ufeff", "")
    return unicodedata.normalize("NFC", strip_controls(text))


def strip_controls(text: str) -> str:
    """`text` without the control characters (other than tab, newline, carriage return and form feed) and the
    noncharacters U+FFFE/U+FFFF that no book means to contain and XML forbids."""
    return _CONTROL_CHARS.sub("", text)


def _decode(data: bytes) -> tuple[str, str]:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            text = _decode_nearly_clean(data[len(bom):], encoding)
            if text is None:
                raise IngestError(f"The file starts like {encoding.upper()} text but is damaged further on: save it "
                                  "again as UTF-8 and retry.")
            return text, encoding
    _reject_known_binary(data)
    utf16 = _guess_utf16(data)
    if utf16 and (text := _decode_nearly_clean(data, utf16)) is not None:
        return text, utf16
    _reject_binary_bytes(data)  # not UTF-16 after all, so zero bytes mean binary data
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    mostly_utf8 = _decode_mostly_utf8(data)
    if mostly_utf8 is not None:
        return mostly_utf8, "utf-8"
    return _decode_single_byte(data)


def _decode_nearly_clean(data: bytes, encoding: str) -> str | None:
    """Strict decoding, except that a few bad code units (a file cut mid-character) become U+FFFD."""
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        text = data.decode(encoding, errors="replace")
        return text if text.count("\ufffd") <= 3 else None


def _reject_known_binary(data: bytes) -> None:
    if data.startswith(b"%PDF"):
        raise IngestError("This file is a PDF, not text: give it the .pdf extension to import it.")
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            raise IngestError(f"This file is {kind}, not text: import a .txt, .md, .epub, .docx or .pdf book.")


def _guess_utf16(data: bytes) -> str | None:
    """UTF-16 without a BOM: in mostly-Latin text every other byte is zero, on the odd side for little-endian."""
    sample = data[:8192]
    pairs = len(sample) // 2
    if pairs < 2:
        return None
    zeros_even = sample[0:pairs * 2:2].count(0)
    zeros_odd = sample[1:pairs * 2:2].count(0)
    if zeros_odd > 0.4 * pairs and zeros_even < 0.05 * pairs:
        return "utf-16-le"
    if zeros_even > 0.4 * pairs and zeros_odd < 0.05 * pairs:
        return "utf-16-be"
    return None


def _reject_binary_bytes(data: bytes) -> None:
    control = len(data) - len(data.translate(None, _CONTROL_BYTES))
    if data.count(0) > len(data) * 0.001 or control > len(data) * 0.02:
        raise IngestError("This file contains binary data, not text: import a .txt, .md, .epub, .docx or .pdf "
                          "book.")


def _fallback_cp1252(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: read an invalid UTF-8 byte as Windows-1252 (Latin-1 where 1252 leaves a gap)."""
    assert isinstance(error, UnicodeDecodeError)
    byte = error.object[error.start:error.start + 1]
    try:
        return byte.decode("cp1252"), error.start + 1
    except UnicodeDecodeError:
        return byte.decode("latin-1"), error.start + 1


codecs.register_error("fabula-cp1252", _fallback_cp1252)


def _decode_mostly_utf8(data: bytes) -> str | None:
    """UTF-8 with a few stray bytes (a file edited in two programs, or cut mid-character) keeps its UTF-8.

    The stray bytes are read as Windows-1252. Only used when valid multi-byte sequences clearly outnumber the
    invalid bytes; otherwise the file is single-byte text that happens to contain a few valid-looking pairs.
    """
    replaced = data.decode("utf-8", errors="replace")
    bad = replaced.count("\ufffd")
    good = sum(1 for ch in replaced if ord(ch) > 127) - bad
    if good < 3 * bad or good < 5:
        return None
    return data.decode("utf-8", errors="fabula-cp1252")


def _decode_single_byte(data: bytes) -> tuple[str, str]:
    """Windows-1252 for Western text; charset-normalizer for everything else (Cyrillic, Greek, CJK code pages).

    Western European text is mostly ASCII with a few accented letters, while text in a non-Latin code page is
    mostly high bytes, so the share of non-ASCII bytes among the letters tells the two apart more reliably than a
    statistical detector does on short files.
    """
    high = len(data) - len(data.translate(None, _HIGH_BYTES))
    letters = high + len(data) - len(data.translate(None, _ASCII_LETTERS))
    if letters and high / letters < _WESTERN_NON_ASCII_LIMIT:
        try:
            return data.decode("cp1252"), "cp1252"
        except UnicodeDecodeError:
            return data.decode("latin-1"), "latin-1"
    best = from_bytes(data).best()
    if best is None or best.encoding is None:
        raise IngestError("The text encoding of this file could not be worked out: save it as UTF-8 and retry.")
    return str(best), best.encoding
