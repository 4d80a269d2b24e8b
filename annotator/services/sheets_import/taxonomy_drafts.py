"""The few taxonomy edits an import needs: a draft copy of a version, a new taxonomy, a new category.

They are not the editor's operations (no edit revision to compare: the import holds the version's lock), but
they follow its rules and leave the same trail: "copy" and "add" lineage edges naming the actor and the
generated changelog, so a category that came from a spreadsheet reads in the taxonomy's history like any
other edit. They only ever touch draft versions (checked with ``version_ensure_draft``); a published version
never changes. Taxonomies are shared by every team, so each of them may be done only by a taxonomy
maintainer or staff (``can_edit_taxonomy``); ``actor`` None is the system (a command run without --user).
"""

from django.utils.text import slugify

from core.errors import PermissionDeniedError
from taxonomy.models import Category, CategoryLineage, Dimension, Taxonomy, TaxonomyVersion
from taxonomy.services import version_ensure_draft
from taxonomy.services.operations import can_edit_taxonomy
from taxonomy.services.operations.common import edge, finish_edit
from taxonomy.services.operations.drafts import copy_edges_record

IMPORT_EDIT_DENIED = (
    "Only taxonomy maintainers and staff can change a taxonomy, and this import would {what}. Map the labels "
    "to existing categories, or ask a taxonomy maintainer to add the categories or run the import."
)


def _require_editor(actor, *, what: str) -> None:
    if actor is not None and not can_edit_taxonomy(actor):
        raise PermissionDeniedError(IMPORT_EDIT_DENIED.format(what=what))


def version_draft_copy(*, version: TaxonomyVersion, changelog: str, actor=None) -> TaxonomyVersion:
    """A new draft version with the same dimensions and categories; categories keep their lineage ids."""
    _require_editor(actor, what=f"start a draft of {version.taxonomy.slug}")
    taxonomy = Taxonomy.objects.select_for_update().get(pk=version.taxonomy_id)
    latest = taxonomy.versions.order_by("-number").first()
    draft = TaxonomyVersion.objects.create(
        taxonomy=taxonomy,
        number=latest.number + 1,
        status=TaxonomyVersion.Status.DRAFT,
        changelog=changelog,
        based_on=version,
    )
    for dimension in version.dimensions.all():
        old_pk = dimension.pk
        dimension.pk = None
        dimension.version = draft
        dimension.save()
        _copy_categories(old_dimension_id=old_pk, new_dimension=dimension)
    _copy_edges(base=version, draft=draft, actor=actor)
    return draft


def _copy_edges(*, base: TaxonomyVersion, draft: TaxonomyVersion, actor) -> None:
    """A "copy" edge from each category of the base to its copy (same dimension key and code)."""
    old = {
        (c.dimension.key, c.code): c
        for c in Category.objects.filter(dimension__version=base).select_related("dimension")
    }
    new = Category.objects.filter(dimension__version=draft).select_related("dimension")
    pairs = [(old[(c.dimension.key, c.code)], c) for c in new if (c.dimension.key, c.code) in old]
    copy_edges_record(version=draft, pairs=pairs, actor=actor)


def _copy_categories(*, old_dimension_id: int, new_dimension: Dimension) -> None:
    """Copy a category tree level by level (parents before children), one bulk insert per level."""
    categories = list(Category.objects.filter(dimension_id=old_dimension_id).order_by("pk"))
    new_pk: dict[int | None, int | None] = {None: None}
    level = [c for c in categories if c.parent_id is None]
    while level:
        old_pks = [c.pk for c in level]
        for category in level:
            category.pk = None
            category.dimension = new_dimension
            category.parent_id = new_pk[category.parent_id]
        created = Category.objects.bulk_create(level)
        if any(c.pk is None for c in created):  # backends that cannot return ids
            by_code = dict(Category.objects.filter(dimension=new_dimension).values_list("code", "pk"))
            for category in created:
                category.pk = by_code[category.code]
        new_pk.update(zip(old_pks, [c.pk for c in created], strict=True))
        done = set(old_pks)
        level = [c for c in categories if c.parent_id in done]


def taxonomy_draft_create(*, name: str, description: str, actor=None) -> TaxonomyVersion:
    """A new taxonomy (slug from the name, made unique) with an empty draft version 1."""
    _require_editor(actor, what="create a new taxonomy")
    base = slugify(name)[:70] or "taxonomy"
    slug, n = base, 1
    while Taxonomy.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    taxonomy = Taxonomy.objects.create(slug=slug, name=name, description=description)
    return TaxonomyVersion.objects.create(taxonomy=taxonomy, number=1, changelog=description)


def dimension_add(*, version: TaxonomyVersion, key: str, name: str, actor=None) -> Dimension:
    _require_editor(actor, what=f"add the dimension '{key}' to {version.taxonomy.slug}")
    version_ensure_draft(version=version)
    order = version.dimensions.count()
    return Dimension.objects.create(version=version, key=key, name=name, order=order, required=False)


def category_add(*, dimension: Dimension, name: str, provenance: str, actor=None) -> Category:
    """A new selectable top-level category of a draft version; its code is made from the name."""
    _require_editor(actor, what=f"add the category '{name}' to '{dimension.key}'")
    version_ensure_draft(version=dimension.version)
    base = slugify(name)[:100] or "category"
    taken = set(Category.objects.filter(dimension=dimension).values_list("code", flat=True))
    code, n = base, 1
    while code in taken:
        n += 1
        code = f"{base}-{n}"
    order = Category.objects.filter(dimension=dimension, parent=None).count()
    category = Category.objects.create(dimension=dimension, code=code, name=name, provenance=provenance, order=order)
    version = TaxonomyVersion.objects.select_for_update().get(pk=dimension.version_id)
    edge(
        version=version,
        operation=CategoryLineage.Operation.ADD,
        dimension_key=dimension.key,
        actor=actor,
        target=category,
        note=provenance,
    )
    finish_edit(version)
    return category
