"""Run one edit operation from the editor's form fields (strings), answering with what was done."""

from collections.abc import Mapping

from core.errors import DomainError
from taxonomy.models import TaxonomyVersion

from .categories import (
    category_add,
    category_deprecate,
    category_move,
    category_redefine,
    category_rename,
)
from .restructure import SplitPart, categories_merge, category_split


def _ints(values) -> list[int]:
    try:
        return [int(v) for v in values if str(v).strip()]
    except ValueError as exc:
        raise DomainError("The form named an unknown category; reload the page.") from exc


def operation_run(*, version: TaxonomyVersion, actor, data: Mapping) -> str:
    """`data` is a QueryDict-like mapping: op, revision, categories (ids), name, definition, parent, parts, reason."""
    getlist = data.getlist if hasattr(data, "getlist") else (lambda key: data.get(key) or [])
    op = data.get("op", "")
    try:
        revision = int(data.get("revision", ""))
    except ValueError as exc:
        raise DomainError("The form is missing the draft's revision; reload the page.") from exc
    ids = _ints(getlist("categories"))
    parent_ids = _ints([data.get("parent", "")])
    parent = parent_ids[0] if parent_ids else None
    name = data.get("name", "")
    definition = data.get("definition", "")
    common = {"actor": actor, "expected_revision": revision}

    def one() -> int:
        if len(ids) != 1:
            raise DomainError("Select exactly one category for this operation.")
        return ids[0]

    if op == "add":
        category = category_add(
            version=version,
            dimension_key=data.get("dimension", ""),
            name=name,
            parent=parent,
            definition=definition,
            **common,
        )
        return f"Added '{category.name}'."
    if op == "rename":
        category = category_rename(category=one(), name=name, **common)
        return f"Renamed to '{category.name}'."
    if op == "redefine":
        category = category_redefine(category=one(), definition=definition, **common)
        return f"Re-defined '{category.name}'."
    if op == "move":
        category = category_move(category=one(), parent=parent, **common)
        return f"Moved '{category.name}'."
    if op == "merge":
        category = categories_merge(categories=ids, name=name, definition=definition, **common)
        return f"Merged {len(ids)} categories into '{category.name}'."
    if op == "split":
        parts = [SplitPart(name=line.strip()) for line in data.get("parts", "").splitlines() if line.strip()]
        created = category_split(category=one(), parts=parts, **common)
        return f"Split into {', '.join(repr(c.name) for c in created)}."
    if op == "deprecate":
        category = category_deprecate(category=one(), reason=data.get("reason", ""), **common)
        return f"Deprecated '{category.name}'."
    raise DomainError("Choose an operation: add, rename, re-define, move, merge, split or deprecate.")
