"""Which component a changed file belongs to: a repository's path patterns, first match wins.

Patterns are globs on the path from the repository root: ``*`` and ``?`` stay within one folder,
``**`` spans folders (``**/`` also matches no folder at all), and ``[...]`` is a character set. A
pattern that names a folder also covers everything beneath it, so ``deepspeed/runtime/zero`` and
``deepspeed/runtime/zero/**`` mean the same. Matching is case-sensitive, as paths in git are.

Pure: no Django, so the importer, the pages and the findings report share one reading of a rule.
The rules are matched with RE2, whose time is linear in the path whatever the pattern: with Python's
backtracking engine a pattern such as ``*a*a*a*b`` takes minutes on one long file name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

MAX_PATTERN_LENGTH = 500
MAX_COMPONENT_LENGTH = 200
MAX_RULES = 300  # per repository: the compiled set stays within RULES_MEMORY
RULES_MEMORY = 64 << 20


class PatternError(ValueError):
    """A pattern that cannot be a path glob; the message says what to change."""


@dataclass(frozen=True, slots=True)
class Rule:
    pattern: str
    component: str


def _translate(pattern: str) -> str:
    """The regular expression of one glob (without anchors)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "]") else i + 1)
            if end < 0:
                raise PatternError(f"“{pattern}” opens a character set with [ that is never closed with ].")
            body = pattern[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\").replace("/", "") + "]")
            i = end + 1
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def pattern_clean(pattern: str) -> str:
    """The pattern as stored (trimmed, no leading ./ or /), or PatternError saying what is wrong."""
    if not isinstance(pattern, str):
        raise PatternError("A pattern is a text such as deepspeed/runtime/zero/**.")
    cleaned = pattern.strip()
    while cleaned.startswith("./"):
        cleaned = cleaned[2:]
    cleaned = cleaned.lstrip("/")
    if not cleaned:
        raise PatternError("A pattern cannot be empty: give a path such as deepspeed/runtime/zero/**.")
    if len(cleaned) > MAX_PATTERN_LENGTH:
        raise PatternError(f"A pattern has at most {MAX_PATTERN_LENGTH} characters.")
    if any(ord(c) < 32 or c == "\x7f" for c in cleaned):
        raise PatternError("A pattern cannot hold control characters.")
    if "\\" in cleaned:
        raise PatternError("Paths use / between folders; a pattern cannot hold a backslash.")
    if ".." in cleaned.split("/"):
        raise PatternError("A pattern is a path inside the repository: it cannot hold a .. folder.")
    _translate(cleaned)
    return cleaned


def component_clean(component: str) -> str:
    if not isinstance(component, str) or not component.strip():
        raise PatternError("Name the component, e.g. ZeRO-3.")
    cleaned = " ".join(component.split())
    if len(cleaned) > MAX_COMPONENT_LENGTH:
        raise PatternError(f"A component's name has at most {MAX_COMPONENT_LENGTH} characters.")
    return cleaned


class ComponentMatcher:
    """All rules of one repository compiled into one RE2 set; answers are cached per path."""

    def __init__(self, rules: Iterable[Rule | tuple[str, str]]):
        self.rules = [rule if isinstance(rule, Rule) else Rule(*rule) for rule in rules]
        self._set = None
        if self.rules:
            import re2  # imported where used: a worker that never maps a fix's files does not load RE2

            options = re2.Options()
            options.dot_nl = True
            options.max_mem = RULES_MEMORY
            # A set answers which patterns match in one pass over the path; the first rule among them wins.
            self._set = re2.Set.FullMatchSet(options)
            for rule in self.rules:
                self._set.Add(f"{_translate(rule.pattern).rstrip('/')}(?:/.*)?")
            self._set.Compile()
        self._cache: dict[str, str | None] = {}

    def component_of(self, path: str) -> str | None:
        """The component of one file, or None when no rule covers it."""
        try:
            return self._cache[path]
        except KeyError:
            pass
        matched = self._set.Match(path) if self._set is not None else None
        found = self.rules[min(matched)].component if matched else None
        self._cache[path] = found
        return found

    def components_of(self, paths: Iterable[str]) -> tuple[str, ...]:
        """The components a change touched, sorted by name, each once."""
        return tuple(sorted({c for c in map(self.component_of, paths) if c is not None}))

    def unmapped(self, paths: Iterable[str]) -> list[str]:
        return [path for path in paths if self.component_of(path) is None]
