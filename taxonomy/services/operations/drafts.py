"""Starting a draft from a published version, and publishing a draft with its generated changelog."""

import uuid

from django.db import transaction
from django.db.models import Max

from core.errors import DomainError, PermissionDeniedError
from taxonomy.models import Category, CategoryLineage, Dimension, TaxonomyVersion
from taxonomy.services.versions import version_publish

from .common import EDIT_DENIED, can_edit_taxonomy, finish_edit, lock_draft


@transaction.atomic
def version_draft_from(*, version: TaxonomyVersion, actor) -> TaxonomyVersion:
    """A new draft copying the version's dimensions and categories (same lineage ids, "copy" edges).

    If a draft based on this version exists already it is returned, so two owners starting to edit
    at once end up in the same draft (and its revision counter keeps them from overwriting each other).
    """
    if not can_edit_taxonomy(actor):
        raise PermissionDeniedError(EDIT_DENIED)
    # Lock order as in every edit: version rows first. The base version is locked so that two
    # simultaneous calls cannot both create a draft.
    base = TaxonomyVersion.objects.select_for_update(of=("self",)).select_related("taxonomy").get(pk=version.pk)
    if not base.is_published:
        raise DomainError(f"v{base.number} is still a draft: edit it directly.")
    existing = TaxonomyVersion.objects.filter(based_on=base, status=TaxonomyVersion.Status.DRAFT).first()
    if existing is not None:
        return existing
    number = (TaxonomyVersion.objects.filter(taxonomy=base.taxonomy).aggregate(m=Max("number"))["m"] or 0) + 1
    draft = TaxonomyVersion.objects.create(taxonomy=base.taxonomy, number=number, based_on=base)
    dimensions = {}
    for old in base.dimensions.order_by("order", "key"):
        dimensions[old.pk] = Dimension.objects.create(
            version=draft,
            key=old.key,
            name=old.name,
            help_text=old.help_text,
            multi_valued=old.multi_valued,
            required=old.required,
            order=old.order,
            level_names=old.level_names,
            applies_when=old.applies_when,
        )
    copies = _copy_categories(base, dimensions)
    copy_edges_record(version=draft, pairs=copies, actor=actor)
    draft.changelog = ""
    return draft


def copy_edges_record(*, version: TaxonomyVersion, pairs: list[tuple[Category, Category]], actor) -> None:
    """One "copy" lineage edge per (category of the base version, its copy in `version`)."""
    group = uuid.uuid4()
    CategoryLineage.objects.bulk_create(
        [
            CategoryLineage(
                version=version,
                operation=CategoryLineage.Operation.COPY,
                group=group,
                dimension_key=new.dimension.key,
                from_category=old,
                to_category=new,
                from_lineage_id=old.lineage_id,
                to_lineage_id=new.lineage_id,
                from_name=old.name,
                to_name=new.name,
                actor=actor if getattr(actor, "is_authenticated", False) else None,
            )
            for old, new in pairs
        ],
        batch_size=1000,
    )


def _copy_categories(base: TaxonomyVersion, dimensions: dict[int, Dimension]) -> list[tuple[Category, Category]]:
    """Copy level by level (parents before children), one bulk insert per depth."""
    olds = list(Category.objects.filter(dimension__version=base).order_by("pk"))
    children: dict[int | None, list[Category]] = {}
    for old in olds:
        children.setdefault(old.parent_id, []).append(old)
    pairs: list[tuple[Category, Category]] = []
    level = [(old, None) for old in children.get(None, [])]
    while level:
        news = Category.objects.bulk_create(
            [
                Category(
                    dimension=dimensions[old.dimension_id],
                    parent=parent,
                    code=old.code,
                    name=old.name,
                    definition=old.definition,
                    examples=list(old.examples),
                    provenance=old.provenance,
                    distributed_specific=old.distributed_specific,
                    aliases=list(old.aliases),
                    lineage_id=old.lineage_id,
                    deprecated=old.deprecated,
                    order=old.order,
                    selectable=old.selectable,
                )
                for old, parent in level
            ]
        )
        pairs.extend((old, new) for (old, _), new in zip(level, news, strict=True))
        level = [(child, new) for (old, _), new in zip(level, news, strict=True) for child in children.get(old.pk, [])]
    return pairs


@transaction.atomic
def version_publish_with_changelog(
    *, version: TaxonomyVersion, actor, expected_revision: int | None = None
) -> TaxonomyVersion:
    """Publish a draft from the editor: the changelog generated from its lineage is fixed with it."""
    locked = lock_draft(version=version, actor=actor, expected_revision=expected_revision)
    finish_edit(locked)
    return version_publish(version=locked)
