"""Edits that change how many categories there are: merge several into one, split one into several.

The categories merged away or split keep existing in the draft, deprecated, so labels that still
point at them (until they are carried over or re-labelled) never dangle; lineage edges say where
they went.
"""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

from core.errors import DomainError
from taxonomy.models import Category, CategoryLineage

from .categories import version_of_category
from .common import category_in, check_name_free, clean_name, edge, finish_edit, lock_draft, next_order, unique_code

Op = CategoryLineage.Operation


@dataclass(frozen=True)
class SplitPart:
    name: str
    definition: str = ""


@transaction.atomic
def categories_merge(
    *,
    categories: Sequence[Category | int],
    actor,
    name: str = "",
    definition: str = "",
    into: Category | int | None = None,
    expected_revision: int | None = None,
    note: str = "",
) -> Category:
    """Merge two or more categories: into one of them (`into`), or into a new category called `name`.

    Labels of the merged categories are carried to the result automatically; their names become aliases
    and their subcategories move under the result.
    """
    pks = list(dict.fromkeys(c.pk if isinstance(c, Category) else int(c) for c in categories))
    if len(pks) < 2:
        raise DomainError("Choose at least two categories to merge.")
    locked = lock_draft(version=version_of_category(pks[0]), actor=actor, expected_revision=expected_revision)
    sources = [category_in(locked, pk) for pk in pks]
    dimension = sources[0].dimension
    if any(s.dimension_id != dimension.pk for s in sources):
        raise DomainError("Only categories of the same dimension can be merged.")
    if any(s.deprecated for s in sources):
        raise DomainError("A deprecated category cannot be merged; choose current categories.")
    group = uuid.uuid4()
    if into is not None:
        target = category_in(locked, into)
        if target.pk not in pks:
            raise DomainError("The category to merge into must be one of those chosen.")
        if name.strip() and clean_name(name) != target.name:
            check_name_free(dimension, clean_name(name), except_pks=pks)
            target.aliases = [*target.aliases, target.name]
            target.name = clean_name(name)
    else:
        name = clean_name(name)
        parents = {s.parent_id for s in sources}
        parent_id = parents.pop() if len(parents) == 1 else None
        check_name_free(dimension, name, except_pks=pks)  # the merged ones lose their name
        target = Category.objects.create(
            dimension=dimension,
            parent_id=parent_id,
            code=unique_code(dimension, name),
            name=name,
            order=next_order(dimension, parent_id),
        )
    merged = [s for s in sources if s.pk != target.pk]
    if definition.strip():
        target.definition = definition.strip()
    elif not target.definition:
        target.definition = "\n\n".join(s.definition for s in sources if s.definition)
    known = {a.casefold() for a in target.aliases} | {target.name.casefold()}
    for source in merged:
        for alias in [source.name, *source.aliases]:
            if alias.casefold() not in known:
                target.aliases.append(alias)
                known.add(alias.casefold())
        target.examples = [*target.examples, *(e for e in source.examples if e not in target.examples)]
        target.distributed_specific = target.distributed_specific or source.distributed_specific
    target.save()
    Category.objects.filter(parent__in=[s.pk for s in merged]).update(parent=target)
    for source in merged:
        source.deprecated = True
        source.selectable = False
        source.save(update_fields=["deprecated", "selectable"])
        edge(
            version=locked,
            operation=Op.MERGE,
            dimension_key=dimension.key,
            actor=actor,
            source=source,
            target=target,
            group=group,
            note=note,
        )
    finish_edit(locked)
    return target


@transaction.atomic
def category_split(
    *,
    category: Category | int,
    actor,
    parts: Sequence[SplitPart | dict],
    expected_revision: int | None = None,
    note: str = "",
) -> list[Category]:
    """Split one category into two or more new ones beside it.

    Which part an existing label belongs to cannot be known, so labels of a split category are queued
    for re-labelling when a study moves to the new version.
    """
    parts = [p if isinstance(p, SplitPart) else SplitPart(**p) for p in parts]
    names = [clean_name(p.name) for p in parts]
    if len(names) < 2:
        raise DomainError("A split needs at least two new categories.")
    if len({n.casefold() for n in names}) != len(names):
        raise DomainError("The new categories of a split need different names.")
    locked = lock_draft(version=version_of_category(category), actor=actor, expected_revision=expected_revision)
    source = category_in(locked, category)
    if source.deprecated:
        raise DomainError(f"'{source.name}' is deprecated; only current categories can be split.")
    if source.children.filter(deprecated=False).exists():
        raise DomainError(f"'{source.name}' has categories under it; split or move those instead.")
    dimension = source.dimension
    for n in names:
        if n.casefold() != source.name.casefold():
            check_name_free(dimension, n)
    source.deprecated = True
    source.selectable = False
    source.save(update_fields=["deprecated", "selectable"])
    group = uuid.uuid4()
    created = []
    for part, part_name in zip(parts, names, strict=True):
        child = Category.objects.create(
            dimension=dimension,
            parent_id=source.parent_id,
            code=unique_code(dimension, part_name),
            name=part_name,
            definition=part.definition.strip(),
            distributed_specific=source.distributed_specific,
            order=next_order(dimension, source.parent_id),
        )
        created.append(child)
        edge(
            version=locked,
            operation=Op.SPLIT,
            dimension_key=dimension.key,
            actor=actor,
            source=source,
            target=child,
            group=group,
            note=note,
        )
    finish_edit(locked)
    return created
