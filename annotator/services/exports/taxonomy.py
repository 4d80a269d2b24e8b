"""A taxonomy version as a template dict in the loader's schema (see docs/taxonomy-templates.md).

The same dict feeds the JSON download, the CSV rows and the Markdown codebook, and loading it with
``load_taxonomy`` recreates the version: that is what makes a replication package importable.
"""

from typing import Any

from taxonomy.models import Category, Dimension, TaxonomyVersion


def _category(category: Category, children: dict[int | None, list[Category]]) -> dict[str, Any]:
    item: dict[str, Any] = {"code": category.code, "name": category.name}
    if category.definition:
        item["definition"] = category.definition
    if category.examples:
        item["examples"] = list(category.examples)
    if category.provenance:
        item["provenance"] = category.provenance
    if category.distributed_specific is not None:
        item["distributed_specific"] = category.distributed_specific
    if category.aliases:
        item["aliases"] = list(category.aliases)
    kids = children.get(category.pk, [])
    # The loader's default: leaves selectable, nodes not; write the flag only where it differs.
    if category.selectable != (not kids):
        item["selectable"] = category.selectable
    if category.deprecated:
        item["deprecated"] = True
    if kids:
        item["children"] = [_category(child, children) for child in kids]
    return item


def version_template(*, version: TaxonomyVersion, dimension_keys: list[str] | None = None) -> dict[str, Any]:
    """The version as template JSON (two queries). ``dimension_keys`` keeps only those dimensions."""
    taxonomy = version.taxonomy
    dimensions = list(Dimension.objects.filter(version=version).order_by("order", "key"))
    if dimension_keys is not None:
        wanted = set(dimension_keys)
        dimensions = [d for d in dimensions if d.key in wanted]
    children: dict[tuple[int, int | None], list[Category]] = {}
    for category in Category.objects.filter(dimension__in=dimensions).order_by("order", "name", "pk"):
        children.setdefault((category.dimension_id, category.parent_id), []).append(category)
    kept = {d.key for d in dimensions}
    out_dimensions = []
    for dimension in dimensions:
        tree = {parent: items for (dim_id, parent), items in children.items() if dim_id == dimension.pk}
        item: dict[str, Any] = {"key": dimension.key, "name": dimension.name}
        if dimension.help_text:
            item["help_text"] = dimension.help_text
        if dimension.multi_valued:
            item["multi_valued"] = True
        if not dimension.required:
            item["required"] = False
        item["order"] = dimension.order
        if dimension.level_names:
            item["level_names"] = list(dimension.level_names)
        applies = {key: codes for key, codes in (dimension.applies_when or {}).items() if key in kept}
        if applies:
            item["applies_when"] = applies
        item["categories"] = [_category(root, tree) for root in tree.get(None, [])]
        out_dimensions.append(item)
    template: dict[str, Any] = {"schema_version": 1, "slug": taxonomy.slug, "name": taxonomy.name}
    for field in ("description", "citation", "license", "attribution"):
        if getattr(taxonomy, field):
            template[field] = getattr(taxonomy, field)
    if version.changelog:
        template["changelog"] = version.changelog
    template["dimensions"] = out_dimensions
    return template
