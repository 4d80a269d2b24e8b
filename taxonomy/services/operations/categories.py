"""Edits of one category in a draft: add, rename, re-define, move, deprecate, add aliases."""

from collections.abc import Sequence

from django.db import transaction

from core.errors import DomainError, NotFoundError
from taxonomy.models import Category, CategoryLineage, TaxonomyVersion

from .common import (
    category_in,
    check_name_free,
    clean_name,
    dimension_in,
    edge,
    finish_edit,
    lock_draft,
    next_order,
    unique_code,
)

Op = CategoryLineage.Operation


def _strings(values: Sequence[str]) -> list[str]:
    return [" ".join(str(v).split()) for v in values if str(v).strip()]


@transaction.atomic
def category_add(
    *,
    version: TaxonomyVersion,
    actor,
    dimension_key: str,
    name: str,
    parent: Category | int | None = None,
    definition: str = "",
    aliases: Sequence[str] = (),
    examples: Sequence[str] = (),
    expected_revision: int | None = None,
    note: str = "",
) -> Category:
    locked = lock_draft(version=version, actor=actor, expected_revision=expected_revision)
    dimension = dimension_in(locked, dimension_key)
    name = clean_name(name)
    check_name_free(dimension, name)
    parent_obj = category_in(locked, parent) if parent is not None else None
    if parent_obj is not None and parent_obj.dimension_id != dimension.pk:
        raise DomainError(f"'{parent_obj.name}' is in another dimension; choose a parent in '{dimension.name}'.")
    category = Category.objects.create(
        dimension=dimension,
        parent=parent_obj,
        code=unique_code(dimension, name),
        name=name,
        definition=definition.strip(),
        aliases=list(dict.fromkeys(_strings(aliases))),
        examples=list(dict.fromkeys(_strings(examples))),
        order=next_order(dimension, parent_obj.pk if parent_obj else None),
    )
    edge(version=locked, operation=Op.ADD, dimension_key=dimension.key, actor=actor, target=category, note=note)
    finish_edit(locked)
    return category


@transaction.atomic
def category_rename(
    *, category: Category | int, actor, name: str, expected_revision: int | None = None, note: str = ""
) -> Category:
    """Rename in place (the lineage id stays): labels follow automatically; the old name becomes an alias."""
    version = version_of_category(category)
    locked = lock_draft(version=version, actor=actor, expected_revision=expected_revision)
    found = category_in(locked, category)
    name = clean_name(name)
    if name == found.name:
        raise DomainError(f"'{name}' is already the name of this category.", field="name")
    check_name_free(found.dimension, name, except_pk=found.pk)
    old = found.name
    if old.casefold() not in {a.casefold() for a in found.aliases}:
        found.aliases = [*found.aliases, old]
    found.name = name
    found.save(update_fields=["name", "aliases"])
    edge(
        version=locked,
        operation=Op.RENAME,
        dimension_key=found.dimension.key,
        actor=actor,
        source=found,
        target=found,
        source_name=old,
        note=note,
    )
    finish_edit(locked)
    return found


@transaction.atomic
def category_redefine(
    *,
    category: Category | int,
    actor,
    definition: str,
    examples: Sequence[str] | None = None,
    expected_revision: int | None = None,
    note: str = "",
) -> Category:
    version = version_of_category(category)
    locked = lock_draft(version=version, actor=actor, expected_revision=expected_revision)
    found = category_in(locked, category)
    found.definition = definition.strip()
    if examples is not None:
        found.examples = list(dict.fromkeys(_strings(examples)))
    found.save(update_fields=["definition", "examples"])
    edge(
        version=locked,
        operation=Op.REDEFINE,
        dimension_key=found.dimension.key,
        actor=actor,
        source=found,
        target=found,
        note=note,
    )
    finish_edit(locked)
    return found


@transaction.atomic
def category_move(
    *,
    category: Category | int,
    actor,
    parent: Category | int | None,
    expected_revision: int | None = None,
    note: str = "",
) -> Category:
    """Re-parent within the dimension (None: to the top level). A category cannot move under itself."""
    version = version_of_category(category)
    locked = lock_draft(version=version, actor=actor, expected_revision=expected_revision)
    found = category_in(locked, category)
    new_parent = category_in(locked, parent) if parent is not None else None
    if new_parent is not None:
        if new_parent.dimension_id != found.dimension_id:
            raise DomainError("A category moves within its own dimension; choose a parent there.")
        ancestor = new_parent
        while ancestor is not None:
            if ancestor.pk == found.pk:
                raise DomainError(f"'{found.name}' cannot move under itself or one of its own subcategories.")
            ancestor = ancestor.parent
    if (new_parent.pk if new_parent else None) == found.parent_id:
        raise DomainError(f"'{found.name}' is already there.")
    found.parent = new_parent
    found.order = next_order(found.dimension, new_parent.pk if new_parent else None)
    found.save(update_fields=["parent", "order"])
    edge(
        version=locked,
        operation=Op.MOVE,
        dimension_key=found.dimension.key,
        actor=actor,
        source=found,
        target=found,
        note=note or (f"under '{new_parent.name}'" if new_parent else "to the top level"),
    )
    finish_edit(locked)
    return found


@transaction.atomic
def category_deprecate(
    *, category: Category | int, actor, reason: str, expected_revision: int | None = None
) -> Category:
    """Retire a category: it stays (labels that used it keep pointing at it) but can no longer be chosen."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise DomainError("Say why the category is deprecated; raters re-labelling its issues will read it.")
    version = version_of_category(category)
    locked = lock_draft(version=version, actor=actor, expected_revision=expected_revision)
    found = category_in(locked, category)
    if found.deprecated:
        raise DomainError(f"'{found.name}' is already deprecated.")
    if found.children.filter(deprecated=False).exists():
        raise DomainError(f"'{found.name}' still has categories under it; move or deprecate them first.")
    found.deprecated = True
    found.save(update_fields=["deprecated"])
    edge(
        version=locked,
        operation=Op.DEPRECATE,
        dimension_key=found.dimension.key,
        actor=actor,
        source=found,
        note=reason,
    )
    finish_edit(locked)
    return found


@transaction.atomic
def category_alias_add(
    *,
    category: Category | int,
    actor,
    aliases: Sequence[str] = (),
    examples: Sequence[str] = (),
    expected_revision: int | None = None,
    note: str = "",
) -> Category:
    """Other spellings (e.g. raters' proposals sorted onto this card) and example issues."""
    version = version_of_category(category)
    locked = lock_draft(version=version, actor=actor, expected_revision=expected_revision)
    found = category_in(locked, category)
    known = {a.casefold() for a in found.aliases} | {found.name.casefold()}
    new_aliases = [a for a in dict.fromkeys(_strings(aliases)) if a.casefold() not in known]
    new_examples = [e for e in dict.fromkeys(_strings(examples)) if e not in found.examples]
    if not new_aliases and not new_examples:
        return found
    found.aliases = [*found.aliases, *new_aliases]
    found.examples = [*found.examples, *new_examples]
    found.save(update_fields=["aliases", "examples"])
    edge(
        version=locked,
        operation=Op.ALIAS,
        dimension_key=found.dimension.key,
        actor=actor,
        source=found,
        target=found,
        note=note or ", ".join(f"'{a}'" for a in new_aliases),
    )
    finish_edit(locked)
    return found


def version_of_category(category: Category | int) -> TaxonomyVersion:
    """The taxonomy version the category belongs to; NotFoundError when there is no such category."""
    pk = category.pk if isinstance(category, Category) else int(category)
    version = TaxonomyVersion.objects.filter(dimensions__categories=pk).first()
    if version is None:
        raise NotFoundError(f"There is no category {pk}; reload the page.")
    return version
