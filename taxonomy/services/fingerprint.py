"""What a taxonomy version says, as one comparable value: two versions with equal content are the same version.

Loading a template again must not publish a duplicate version, whether the template comes back byte for byte,
re-serialised by an export, or with another changelog. So the comparison covers the dimensions and their
category trees (names, definitions, examples, flags, aliases), sorted, and nothing about the file or its history.
"""

import hashlib
import json
from typing import Any

from taxonomy.models import Category, Dimension, TaxonomyVersion
from taxonomy.template_schema import CategoryRecord, TemplateRecord

CATEGORY_FIELDS = (
    "code",
    "name",
    "definition",
    "examples",
    "provenance",
    "distributed_specific",
    "aliases",
    "selectable",
    "deprecated",
)
DIMENSION_FIELDS = ("key", "name", "help_text", "multi_valued", "required", "level_names", "applies_when")


def _digest(dimensions: list[dict[str, Any]]) -> str:
    canonical = json.dumps(sorted(dimensions, key=lambda d: d["key"]), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _record_category(record: CategoryRecord) -> dict[str, Any]:
    node = {name: getattr(record, name) for name in CATEGORY_FIELDS}
    node["children"] = sorted((_record_category(child) for child in record.children), key=lambda c: c["code"])
    return node


def template_fingerprint(record: TemplateRecord) -> str:
    """The content of a parsed template (see module docstring)."""
    return _digest(
        [
            {
                **{name: getattr(dimension, name) for name in DIMENSION_FIELDS},
                "categories": sorted(
                    (_record_category(category) for category in dimension.categories), key=lambda c: c["code"]
                ),
            }
            for dimension in record.dimensions
        ]
    )


def version_fingerprint(version: TaxonomyVersion) -> str:
    """The content of a stored version, comparable with template_fingerprint."""
    dimensions = list(Dimension.objects.filter(version=version).values("pk", *DIMENSION_FIELDS))
    rows = Category.objects.filter(dimension__version=version).values(
        "pk", "parent_id", "dimension_id", *CATEGORY_FIELDS
    )
    children: dict[int | None, list[dict]] = {}
    roots: dict[int, list[dict]] = {}
    for row in rows:
        if row["parent_id"] is None:
            roots.setdefault(row["dimension_id"], []).append(row)
        else:
            children.setdefault(row["parent_id"], []).append(row)

    def node(row: dict) -> dict[str, Any]:
        found = {name: row[name] for name in CATEGORY_FIELDS}
        found["children"] = sorted((node(child) for child in children.get(row["pk"], [])), key=lambda c: c["code"])
        return found

    return _digest(
        [
            {
                **{name: dimension[name] for name in DIMENSION_FIELDS},
                "categories": sorted((node(row) for row in roots.get(dimension["pk"], [])), key=lambda c: c["code"]),
            }
            for dimension in dimensions
        ]
    )


def version_with_content(*, taxonomy_id: int, record: TemplateRecord, drafts: bool = False) -> TaxonomyVersion | None:
    """The newest published version of the taxonomy whose content equals the template's (with `drafts`, a draft
    of equal content too). A published version never changes, so its stored checksum answers without reading it."""
    wanted = template_fingerprint(record)
    versions = TaxonomyVersion.objects.filter(taxonomy_id=taxonomy_id).order_by("-number")
    for version in versions:
        if version.is_published and version.source_sha256 == record.sha256:
            return version
        if (version.is_published or drafts) and version_fingerprint(version) == wanted:
            return version
    return None
