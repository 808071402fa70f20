"""ZIP containers (EPUB, Word .docx): the directory is checked before anything is decompressed, and XML parts are
parsed with entities, DTDs and the network off.

The checks bound what reading can cost: at most MAX_UNPACKED_BYTES unpacked, neither a member nor the whole archive
compressed more than MAX_RATIO times, at most MAX_MEMBERS files. Python's zipfile never returns more than a member's
declared size, so a member that lies about its size cannot inflate past it either.
"""
from __future__ import annotations

import io
import zipfile

from lxml import etree

from core.ingest.errors import IngestError
from core.ingest.xhtml import DOCTYPE

MAX_UNPACKED_BYTES = 200 * 1024 * 1024
MAX_RATIO = 200
MAX_MEMBERS = 10_000
_RATIO_CHECK_BYTES = 5 * 1024 * 1024  # small members may compress very well legitimately (CSS, blank pages)
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, KeyError, NotImplementedError)
_XML_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=True,
                              remove_comments=True, remove_pis=True)


def check_archive(data: bytes, kind: str, damaged: str) -> list[zipfile.ZipInfo]:
    """The members of the ZIP in `data`, after the size, count and compression-ratio checks; `kind` names the file
    in messages ("EPUB"), `damaged` is the message for a ZIP that cannot be read at all."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
    except ZIP_ERRORS as exc:
        raise IngestError(damaged) from exc
    if len(infos) > MAX_MEMBERS:
        raise IngestError(f"This {kind} holds {len(infos):,} files, more than a book needs: it was not imported.")
    unpacked = sum(info.file_size for info in infos)
    if unpacked > MAX_UNPACKED_BYTES:
        raise IngestError(f"This {kind} would unpack to {unpacked / 1e6:,.0f} MB, more than the "
                          f"{MAX_UNPACKED_BYTES // 2**20} MB limit: it was not imported.")
    # Per file, and for the archive as a whole: eight 4.9 MB chapters of repeated markup slip under the per-file
    # check (small files are not checked) yet inflate 100 KB into 40 MB of text and half a gigabyte of memory.
    packed = sum(info.compress_size for info in infos)
    bombs = [(info.file_size, info.compress_size) for info in infos] + [(unpacked, packed)]
    if any(size > _RATIO_CHECK_BYTES and size > MAX_RATIO * max(1, compressed) for size, compressed in bombs):
        raise IngestError(f"This {kind} contains a suspiciously compressed file (a 'zip bomb'): it was not imported.")
    return infos


def parse_xml(content: bytes) -> etree._Element:
    """A package XML part, hardened: entities are never resolved, nothing is fetched, huge trees are refused.

    The DOCTYPE is cut first: such a part never needs one, and its internal subset can only hold entity tricks
    (nested entities, the "billion laughs", make libxml2 stop at its amplification limit, and in recover mode that
    loses everything after them). References to the entities it declared are then dropped as undefined.
    """
    root = etree.fromstring(DOCTYPE.sub(rb"\1", content, count=1), _XML_PARSER)
    if root is None:
        raise ValueError("unparseable XML part")
    return root
