"""What every edit operation shares: the permission, the version lock, revision check and lineage edges."""

import uuid

from django.db.models import Max
from django.utils.text import slugify

from core.errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError
from core.permissions import can_manage_taxonomies
from taxonomy.models import Category, CategoryLineage, Dimension, TaxonomyVersion
from taxonomy.services.versions import version_ensure_draft

CONFLICT_MESSAGE = "This draft was changed by someone else; reload to see their changes, then try again."


EDIT_DENIED = "Only taxonomy maintainers and staff can change a taxonomy."


def can_edit_taxonomy(user) -> bool:
    """Taxonomy maintainers and staff: a taxonomy is shared by every team's studies."""
    return can_manage_taxonomies(user)


def lock_draft(*, version: TaxonomyVersion, actor, expected_revision: int | None) -> TaxonomyVersion:
    """Lock the version row (always the first lock an edit takes), check draft status and revision."""
    if not can_edit_taxonomy(actor):
        raise PermissionDeniedError(EDIT_DENIED)
    locked = TaxonomyVersion.objects.select_for_update(of=("self",)).select_related("taxonomy").get(pk=version.pk)
    version_ensure_draft(version=locked)
    if expected_revision is not None and locked.edit_revision != expected_revision:
        raise ConflictError(CONFLICT_MESSAGE)
    return locked


def finish_edit(locked: TaxonomyVersion) -> TaxonomyVersion:
    """Bump the revision (we hold the row lock) and regenerate the changelog from the lineage."""
    from taxonomy.services.changelog import version_changelog_markdown

    locked.edit_revision += 1
    locked.changelog = version_changelog_markdown(version=locked)
    locked.save(update_fields=["edit_revision", "changelog", "updated_at"])
    return locked


def category_in(locked: TaxonomyVersion, category: Category | int) -> Category:
    """Re-read a category under the version lock, refusing one of another version."""
    pk = category.pk if isinstance(category, Category) else int(category)
    found = Category.objects.select_related("dimension").filter(pk=pk, dimension__version=locked).first()
    if found is None:
        raise NotFoundError(f"Category {pk} is not part of v{locked.number} of this taxonomy; reload the page.")
    return found


def dimension_in(locked: TaxonomyVersion, key: str) -> Dimension:
    found = Dimension.objects.filter(version=locked, key=key).first()
    if found is None:
        raise NotFoundError(f"v{locked.number} has no dimension '{key}'.")
    return found


def clean_name(name: str) -> str:
    name = " ".join((name or "").split())
    if not name:
        raise DomainError("Give the category a name.", field="name")
    if len(name) > 200:
        raise DomainError("A category name has at most 200 characters.", field="name")
    return name


def check_name_free(dimension: Dimension, name: str, *, except_pk: int | None = None, except_pks=()) -> None:
    clash = Category.objects.filter(dimension=dimension, name__iexact=name, deprecated=False)
    excluded = [*except_pks, *([except_pk] if except_pk is not None else [])]
    if excluded:
        clash = clash.exclude(pk__in=excluded)
    if clash.exists():
        raise DomainError(f"'{dimension.name}' already has a category named '{name}'; choose another name.")


def unique_code(dimension: Dimension, name: str) -> str:
    base = slugify(name)[:100] or "category"
    taken = set(Category.objects.filter(dimension=dimension, code__startswith=base).values_list("code", flat=True))
    code, n = base, 1
    while code in taken:
        n += 1
        code = f"{base}-{n}"
    return code


def next_order(dimension: Dimension, parent_id: int | None) -> int:
    top = Category.objects.filter(dimension=dimension, parent_id=parent_id).aggregate(m=Max("order"))["m"]
    return 0 if top is None else top + 1


def edge(
    *,
    version: TaxonomyVersion,
    operation: str,
    dimension_key: str,
    actor,
    source: Category | None = None,
    target: Category | None = None,
    source_name: str | None = None,
    group: uuid.UUID | None = None,
    note: str = "",
) -> CategoryLineage:
    """One lineage edge; names are copied so the edge reads well whatever happens to the rows later."""
    return CategoryLineage.objects.create(
        version=version,
        operation=operation,
        group=group or uuid.uuid4(),
        dimension_key=dimension_key,
        from_category=source,
        to_category=target,
        from_lineage_id=source.lineage_id if source else None,
        to_lineage_id=target.lineage_id if target else None,
        from_name=source_name if source_name is not None else (source.name if source else ""),
        to_name=target.name if target else "",
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        note=note,
    )
