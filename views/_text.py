"""Book text on a page: shown literally (markdown and HTML escaped), with the italics a Word import keeps."""
from __future__ import annotations

import re

from core.wording import counted  # noqa: F401 - the pages' counts ("1 flag", "0 flags")

_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]()<>#+-.!|~$"})


def plain(text: str) -> str:
    """Book text for st.markdown shown literally: markdown and HTML characters are escaped, so a book can
    neither format nor inject anything."""
    return text.translate(_MD_SPECIAL)


# "*word*" pairs as a Word import writes italics: an opener not glued to a word before it, a closer not glued after.
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\w*])")


def plain_with_italics(text: str) -> str:
    """`plain`, except that "*...*" pairs are shown as italics (the emphasis a .docx import keeps); what is between
    the marks is escaped like everything else, so italics are all a book can format."""
    out, pos = [], 0
    for m in _EMPHASIS.finditer(text):
        out += [plain(text[pos:m.start()]), "*", plain(m.group(1)), "*"]
        pos = m.end()
    out.append(plain(text[pos:]))
    return "".join(out)
