"""A taxonomy as a Markdown codebook and as flat CSV rows, from a plain dict.

The dict has the shape of a taxonomy template (see docs/taxonomy-templates.md): ``name``, ``slug``,
``version``, ``description``, ``citation``, ``license`` and ``dimensions``, each dimension with ``key``,
``name``, ``help_text``, ``multi_valued`` and a tree of ``categories`` (``code``, ``name``, ``definition``,
``examples``, ``provenance``, ``distributed_specific``, ``aliases``, ``deprecated``, ``children``). Missing
fields are treated as empty.

Layout of the codebook: one ``##`` section per dimension; each category is a heading one level deeper than
its parent (``###`` for top-level categories, at most ``######``; deeper ones become bold paragraphs), with
its fields as a bullet list under it. Headings give every category an anchor that a paper or a rater's
guideline can link to. Text from the taxonomy is escaped so that it prints as written; examples that are
web addresses become links.

Pure Python, no Django.
"""

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

TAXONOMY_CSV_HEADER = [
    "dimension",
    "path",
    "code",
    "name",
    "definition",
    "examples",
    "aliases",
    "distributed_specific",
    "provenance",
    "deprecated",
]
PATH_SEPARATOR = " > "
LIST_SEPARATOR = "; "

# Characters with an inline meaning in CommonMark or GitHub Markdown (emphasis, code, links, HTML,
# entities, tables, strikethrough); every ASCII punctuation character may be escaped with a backslash.
_INLINE = re.compile(r"([\\`*_\[\]<>&|~!])")
# What would start a block (heading, quote, list item, thematic break, setext underline) at a line start.
_BLOCK_START = re.compile(r"([#>+=-])|([0-9]+)([.)])")
_URL = re.compile(r"https?://[^\s<>]+")


def _escape_line(line: str) -> str:
    line = _INLINE.sub(r"\\\1", line)
    match = _BLOCK_START.match(line)
    if match and match.group(1):
        return "\\" + line
    if match:
        return match.group(2) + "\\" + line[len(match.group(2)) :]
    return line


def md_escape(text: Any) -> str:
    """``text`` on one line with every Markdown control character escaped."""
    return _escape_line(" ".join(("" if text is None else str(text)).split()))


def _md_paragraphs(text: Any) -> str:
    """Escaped text keeping its paragraphs (blank-line separated), each paragraph on one line."""
    paragraphs = re.split(r"\n\s*\n", str(text or "").strip())
    return "\n\n".join(md_escape(p) for p in paragraphs if p.strip())


def code_span(text: Any) -> str:
    """``text`` as inline code, fenced with more backticks than it contains (CommonMark's rule)."""
    text = " ".join(str(text or "").split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"


def _example(text: Any) -> str:
    text = str(text or "").strip()
    if _URL.fullmatch(text):
        return f"<{text}>"  # an autolink: CommonMark processes no escapes inside, so the address stays intact
    return md_escape(text)


def _flag(value: Any) -> str:
    return {True: "yes", False: "no"}.get(value, "not stated")


def _category_lines(category: Mapping[str, Any], depth: int, path: list[str]) -> list[str]:
    name = md_escape(category.get("name") or category.get("code") or "")
    code = category.get("code") or ""
    title = f"{name} ({code_span(code)})" if code else name
    marks = []
    if category.get("distributed_specific") is True:
        marks.append("distributed-specific")
    if category.get("deprecated"):
        marks.append("deprecated")
    if marks:
        title += " — *" + ", ".join(marks) + "*"
    level = 3 + depth
    lines = [f"{'#' * level} {title}" if level <= 6 else f"**{title}**", ""]

    fields = []
    if len(path) > 1:
        fields.append("- **Path:** " + md_escape(PATH_SEPARATOR.join(path)))
    fields.append("- **Definition:** " + (md_escape(category.get("definition")) or "*none given*"))
    examples = [e for e in category.get("examples") or [] if str(e).strip()]
    if examples:
        fields.append("- **Examples:**")
        fields.extend("  - " + _example(example) for example in examples)
    aliases = [a for a in category.get("aliases") or [] if str(a).strip()]
    if aliases:
        fields.append("- **Also written as:** " + LIST_SEPARATOR.join(md_escape(a) for a in aliases))
    if "distributed_specific" in category:
        fields.append("- **Distributed-specific:** " + _flag(category.get("distributed_specific")))
    if category.get("provenance"):
        fields.append("- **Provenance:** " + md_escape(category.get("provenance")))
    lines.extend([*fields, ""])

    for child in category.get("children") or []:
        child_name = str(child.get("name") or child.get("code") or "")
        lines.extend(_category_lines(child, depth + 1, [*path, child_name]))
    return lines


def _count(categories: Sequence[Mapping[str, Any]]) -> int:
    return sum(1 + _count(c.get("children") or []) for c in categories)


def markdown_codebook(taxonomy: Mapping[str, Any]) -> str:
    """The taxonomy as a Markdown codebook: metadata, a contents list, then every dimension's category tree."""
    title = md_escape(taxonomy.get("name") or taxonomy.get("slug") or "Taxonomy")
    lines = [f"# {title} — codebook", ""]
    meta = []
    if taxonomy.get("slug"):
        meta.append("- **Identifier:** " + code_span(taxonomy["slug"]))
    if taxonomy.get("version") not in (None, ""):
        meta.append("- **Version:** " + md_escape(taxonomy["version"]))
    if taxonomy.get("citation"):
        meta.append("- **Cite as:** " + md_escape(taxonomy["citation"]))
    if taxonomy.get("license"):
        meta.append("- **Licence:** " + md_escape(taxonomy["license"]))
    if meta:
        lines.extend([*meta, ""])
    if taxonomy.get("description"):
        lines.extend([_md_paragraphs(taxonomy["description"]), ""])

    dimensions = taxonomy.get("dimensions") or []
    if dimensions:
        lines.extend(["## Contents", ""])
        for dimension in dimensions:
            count = _count(dimension.get("categories") or [])
            noun = "category" if count == 1 else "categories"
            lines.append(f"- {md_escape(dimension.get('name') or dimension.get('key'))}: {count} {noun}")
        lines.append("")

    for dimension in dimensions:
        name = md_escape(dimension.get("name") or dimension.get("key") or "")
        key = dimension.get("key")
        lines.extend([f"## {name} ({code_span(key)})" if key else f"## {name}", ""])
        if dimension.get("help_text"):
            lines.extend([_md_paragraphs(dimension["help_text"]), ""])
        if dimension.get("multi_valued"):
            lines.extend(["*Several categories may apply to one issue.*", ""])
        else:
            lines.extend(["*One category per issue.*", ""])
        categories = dimension.get("categories") or []
        if not categories:
            lines.extend(["*No categories yet.*", ""])
        for category in categories:
            lines.extend(_category_lines(category, 0, [str(category.get("name") or category.get("code") or "")]))
    return "\n".join(lines).rstrip("\n") + "\n"


def _join(values: Any) -> str:
    return LIST_SEPARATOR.join(str(v) for v in values or [] if str(v).strip())


def _category_rows(dimension_key: str, categories: Sequence[Mapping[str, Any]], parents: list[str]) -> Iterator[list]:
    for category in categories:
        path = [*parents, str(category.get("name") or category.get("code") or "")]
        yield [
            dimension_key,
            PATH_SEPARATOR.join(path),
            category.get("code") or "",
            category.get("name") or "",
            category.get("definition") or "",
            _join(category.get("examples")),
            _join(category.get("aliases")),
            category.get("distributed_specific"),
            category.get("provenance") or "",
            bool(category.get("deprecated")),
        ]
        yield from _category_rows(dimension_key, category.get("children") or [], path)


def taxonomy_csv_rows(taxonomy: Mapping[str, Any]) -> Iterator[list]:
    """One row per category, depth first, in the columns of ``TAXONOMY_CSV_HEADER`` (the header not included).

    ``distributed_specific`` stays True/False/None and ``deprecated`` True/False, so ``csv_rows`` writes them
    as true/false/empty; examples and aliases are joined with ``"; "``.
    """
    for dimension in taxonomy.get("dimensions") or []:
        yield from _category_rows(str(dimension.get("key") or ""), dimension.get("categories") or [], [])
