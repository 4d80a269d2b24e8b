"""The changelog of a version, written from its lineage edges (Markdown), and the history of a taxonomy."""

from collections import Counter

from taxonomy.models import Category, CategoryLineage, Taxonomy, TaxonomyVersion

Op = CategoryLineage.Operation


def _q(name: str) -> str:
    return f"'{name}'"


def _names(names: list[str]) -> str:
    quoted = [_q(n) for n in names]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _line(operation: str, edges: list[CategoryLineage]) -> str:
    first = edges[0]
    note = f" ({first.note})" if first.note and operation not in (Op.MOVE, Op.ALIAS) else ""
    if operation == Op.ADD:
        return f"added {_q(first.to_name)}{note}"
    if operation == Op.RENAME:
        return f"renamed {_q(first.from_name)} to {_q(first.to_name)}{note}"
    if operation == Op.REDEFINE:
        return f"re-defined {_q(first.to_name)}{note}"
    if operation == Op.MOVE:
        return f"moved {_q(first.to_name)} {first.note}".rstrip()
    if operation == Op.MERGE:
        sources = [e.from_name for e in edges]
        return f"merged {_names(sources)} into {_q(first.to_name)}{note}"
    if operation == Op.SPLIT:
        return f"split {_q(first.from_name)} into {_names([e.to_name for e in edges])}{note}"
    if operation == Op.DEPRECATE:
        return f"deprecated {_q(first.from_name)}{note}"
    if operation == Op.ALIAS:
        return f"added aliases {first.note} to {_q(first.to_name)}"
    return f"{operation} {_q(first.from_name or first.to_name)}"


def version_change_lines(*, version: TaxonomyVersion) -> dict[str, list[str]]:
    """{dimension key: ["merged 'hang' and 'timeout' into 'hang and timeout'", ...]} in the order made."""
    edges = list(version.lineage.exclude(operation=Op.COPY).order_by("at", "id"))
    groups: dict = {}
    for item in edges:
        groups.setdefault(item.group, []).append(item)
    lines: dict[str, list[str]] = {}
    for group in groups.values():
        # A merge's edges share the target; the merged-into category itself has no edge of its own.
        lines.setdefault(group[0].dimension_key, []).append(_line(group[0].operation, group))
    return lines


def version_changelog_markdown(*, version: TaxonomyVersion) -> str:
    """Markdown changelog of one version: counts per dimension, then each change in the order made."""
    lines = version_change_lines(version=version)
    if not lines and version.based_on_id is None:
        return version.changelog
    names = dict(version.dimensions.values_list("key", "name"))
    out = []
    base = f" (from v{version.based_on.number})" if version.based_on_id else ""
    out.append(f"## v{version.number}{base}")
    counts = _active_counts(version)
    before = _active_counts(version.based_on) if version.based_on_id else {}
    for key, name in names.items():
        if key not in lines and counts.get(key) == before.get(key):
            continue
        out.append("")
        out.append(f"### {name}: {before.get(key, 0)} → {counts.get(key, 0)} categories")
        out.extend(f"- {line}" for line in lines.get(key, []))
    if len(out) == 1:
        out.append("")
        out.append("No changes.")
    return "\n".join(out)


def _active_counts(version: TaxonomyVersion) -> dict[str, int]:
    rows = Category.objects.filter(dimension__version=version, deprecated=False, selectable=True).values_list(
        "dimension__key", flat=True
    )
    return dict(Counter(rows))


def taxonomy_history_markdown(*, taxonomy: Taxonomy, include_drafts: bool = False) -> str:
    """Every version's changelog, newest first: how the published taxonomy emerged."""
    versions = taxonomy.versions.select_related("based_on").order_by("-number")
    if not include_drafts:
        versions = versions.filter(status=TaxonomyVersion.Status.PUBLISHED)
    parts = [f"# {taxonomy.name}: history"]
    for version in versions:
        parts.append(_version_heading(version))
        text = version.changelog.strip()
        if text.startswith(f"## v{version.number}"):  # a generated changelog starts with its own heading
            text = text.partition("\n")[2].strip()
        parts.append(text or ("First version." if version.based_on_id is None else "No changes."))
    return "\n\n".join(parts)


def _version_heading(version: TaxonomyVersion) -> str:
    base = f" (from v{version.based_on.number})" if version.based_on_id else ""
    when = f", published {version.published_at:%Y-%m-%d}" if version.published_at else ", draft"
    return f"## v{version.number}{base}{when}"


def version_publish_preview(*, version: TaxonomyVersion) -> dict:
    """What publishing the draft would fix for good, counted: each edit operation (one merge or split counts
    once, as it reads in the changelog) and the selectable categories per dimension before and after."""
    edges = list(version.lineage.exclude(operation=Op.COPY).values_list("group", "operation"))
    operations = Counter(dict(edges).values())
    before = _active_counts(version.based_on) if version.based_on_id else {}
    after = _active_counts(version)
    names = dict(version.dimensions.values_list("key", "name"))
    return {
        "version": version.number,
        "based_on": version.based_on.number if version.based_on_id else None,
        "operations": {op.value: operations.get(op.value, 0) for op in Op if op != Op.COPY},
        "dimensions": [
            {"key": key, "name": name, "before": before.get(key, 0), "after": after.get(key, 0)}
            for key, name in names.items()
        ],
        "changelog": version_changelog_markdown(version=version),
    }
