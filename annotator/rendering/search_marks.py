"""Marking where a search matched: the text escaped, every match of a term wrapped in <mark>. Pure Python."""

import re
from html import escape


def highlight_terms(text: str, terms: list[str]) -> str:
    """HTML of ``text`` with each case-insensitive occurrence of any term in <mark> (longest terms first)."""
    wanted = sorted({term for term in terms if term.strip()}, key=len, reverse=True)
    if not text or not wanted:
        return escape(text, quote=False)
    pattern = re.compile("|".join(re.escape(term) for term in wanted), re.IGNORECASE)
    out, pos = [], 0
    for match in pattern.finditer(text):
        out.append(escape(text[pos : match.start()], quote=False))
        out.append(f"<mark>{escape(match.group(0), quote=False)}</mark>")
        pos = match.end()
    out.append(escape(text[pos:], quote=False))
    return "".join(out)
