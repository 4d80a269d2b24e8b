"""Find the sections of an issue body, and the one describing the reporter's environment.

Templates give sections as bold lines (`**ds_report output**`, DeepSpeed and Megatron-LM)
or as headings (`### Environment`, Colossal-AI forms). The environment is what a rater
most often looks for, so the issue page shows it on its own.
"""

import re
from dataclasses import dataclass

from .placeholders import split_placeholders

_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_ATX_RE = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_BOLD_LINE_RE = re.compile(r"^\s{0,3}(?:\*\*|__)(.+?)(?:\*\*|__)\s*:?\s*$")
_ENV_TITLE_RE = re.compile(r"ds_report|environment|system info|\bversions?\b|\benv\b|setup info", re.IGNORECASE)
# Printed by `ds_report` itself: recognised even when pasted without a heading.
_DS_REPORT_MARKERS = ("DeepSpeed C++/CUDA extension op report", "DeepSpeed general environment info")
_EMPTY_ANSWERS = {"", "_no response_", "no response", "n/a", "none", "-"}


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    body: str  # Markdown, without the heading line


def _clean_title(raw: str) -> str:
    title = re.sub(r"\s*\(please complete the following information\)\s*", " ", raw, flags=re.IGNORECASE)
    return title.strip().rstrip(":").strip()


def split_sections(markdown: str) -> list[Section]:
    """The body split at section headings (outside code fences); text before the first is titled ""."""
    sections: list[Section] = []
    title, lines = "", []
    fence: str | None = None
    for line in markdown.replace("\r\n", "\n").split("\n"):
        if (match := _FENCE_RE.match(line)) is not None:
            marker = match.group(1)
            if fence is None:
                fence = marker[0] * len(marker)
            elif marker.startswith(fence):
                fence = None
        elif fence is None and (match := _ATX_RE.match(line) or _BOLD_LINE_RE.match(line)):
            if title or "".join(lines).strip():
                sections.append(Section(title, "\n".join(lines).strip("\n")))
            title, lines = _clean_title(match.group(1)), []
            continue
        lines.append(line)
    if title or "".join(lines).strip():
        sections.append(Section(title, "\n".join(lines).strip("\n")))
    return sections


def _has_answer(body: str) -> bool:
    """False when the section holds nothing but template placeholders or "_No response_"."""
    kept = "".join(piece for piece, placeholder in split_placeholders(body) if not placeholder)
    return " ".join(kept.split()).casefold() not in _EMPTY_ANSWERS and bool(re.search(r"\w", kept))


def environment_sections(markdown: str) -> list[Section]:
    """Sections that describe the environment (ds_report output, System info, Environment) with content."""
    if not markdown:
        return []
    found = [s for s in split_sections(markdown) if _ENV_TITLE_RE.search(s.title) and _has_answer(s.body)]
    if not found and any(marker in markdown for marker in _DS_REPORT_MARKERS):
        found = [s for s in split_sections(markdown) if any(m in s.body for m in _DS_REPORT_MARKERS)]
        found = [Section("ds_report output", s.body) for s in found]
    return found
