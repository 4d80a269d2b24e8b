"""Where each category of one version went in a later one, following the lineage version by version.

Reads only. The fate of a category is one of (by increasing weight when steps are combined):
unchanged, moved, renamed, merged (carried automatically), deprecated, split (need a person).
"""

from dataclasses import dataclass
from itertools import pairwise

from core.errors import DomainError
from taxonomy.models import Category, CategoryLineage, TaxonomyVersion

UNCHANGED, MOVED, RENAMED, MERGED, DEPRECATED, SPLIT = "unchanged", "moved", "renamed", "merged", "deprecated", "split"
KINDS = (UNCHANGED, MOVED, RENAMED, MERGED, DEPRECATED, SPLIT)
CARRIED = frozenset({UNCHANGED, MOVED, RENAMED, MERGED})
_WEIGHT = {kind: n for n, kind in enumerate(KINDS)}
_STRUCTURAL = {CategoryLineage.Operation.MERGE, CategoryLineage.Operation.SPLIT, CategoryLineage.Operation.DEPRECATE}


@dataclass(frozen=True)
class CategoryFate:
    """`targets`: the categories a label is carried to (the parts, for a split). `placeholder`: the
    category with the same lineage in the new version (deprecated if merged/split/retired), where a
    label waits until it is re-labelled."""

    kind: str
    targets: tuple[int, ...]
    placeholder: int | None

    @property
    def carried(self) -> bool:
        return self.kind in CARRIED

    @property
    def new_category(self) -> int | None:
        """The category a label points to after the move (None if it cannot be placed)."""
        if self.carried and len(self.targets) == 1:
            return self.targets[0]
        return self.placeholder


def version_chain(*, from_version: TaxonomyVersion, to_version: TaxonomyVersion) -> list[TaxonomyVersion]:
    """[from_version, ..., to_version] along `based_on`; a DomainError if to_version does not follow."""
    chain = [to_version]
    current = to_version
    while current.pk != from_version.pk:
        if current.based_on_id is None:
            raise DomainError(
                f"v{to_version.number} does not follow v{from_version.number} of this taxonomy; "
                "labels can only be carried along its lineage."
            )
        current = TaxonomyVersion.objects.get(pk=current.based_on_id)
        chain.append(current)
    return list(reversed(chain))


def version_category_map(*, from_version: TaxonomyVersion, to_version: TaxonomyVersion) -> dict[int, CategoryFate]:
    """Fate of every category of from_version in to_version (keys and ids are category pks)."""
    chain = version_chain(from_version=from_version, to_version=to_version)
    result = {pk: CategoryFate(UNCHANGED, (pk,), pk) for pk in _category_ids(from_version)}
    for previous, current in pairwise(chain):
        step = _step_map(previous, current)
        result = {pk: _compose(fate, step) for pk, fate in result.items()}
    return result


def _category_ids(version: TaxonomyVersion) -> list[int]:
    return list(Category.objects.filter(dimension__version=version).values_list("pk", flat=True))


def _compose(fate: CategoryFate, step: dict[int, CategoryFate]) -> CategoryFate:
    kind = fate.kind
    targets: list[int] = []
    for target in fate.targets:
        later = step[target]
        kind = max(kind, later.kind, key=_WEIGHT.__getitem__)
        targets.extend(t for t in later.targets if t not in targets)
    placeholder = step[fate.placeholder].placeholder if fate.placeholder is not None else None
    if kind in CARRIED and len(targets) != 1:
        kind = SPLIT
    return CategoryFate(kind, tuple(targets), placeholder)


def _step_map(previous: TaxonomyVersion, current: TaxonomyVersion) -> dict[int, CategoryFate]:
    """One version step: follow the current version's merge/split/deprecate edges from each lineage id."""
    old = list(Category.objects.filter(dimension__version=previous).values("pk", "lineage_id", "name", "parent_id"))
    new = list(
        Category.objects.filter(dimension__version=current).values(
            "pk", "lineage_id", "name", "parent_id", "deprecated"
        )
    )
    old_lineage_by_pk = {row["pk"]: row["lineage_id"] for row in old}
    new_lineage_by_pk = {row["pk"]: row["lineage_id"] for row in new}
    by_lineage = {row["lineage_id"]: row for row in new}
    edges: dict = {}
    for operation, source, target in CategoryLineage.objects.filter(
        version=current, operation__in=_STRUCTURAL
    ).values_list("operation", "from_lineage_id", "to_lineage_id"):
        if source is not None and source != target:
            edges.setdefault(source, []).append((operation, target))

    def resolve(lineage, seen: frozenset) -> tuple[str, list[int]]:
        row = by_lineage.get(lineage)
        out = edges.get(lineage, [])
        if not out:
            if row is None or row["deprecated"]:
                return DEPRECATED, []
            return UNCHANGED, [row["pk"]]
        kind, targets = UNCHANGED, []
        for operation, target in out:
            if target is None or target in seen:
                sub_kind, sub_targets = DEPRECATED, []
            else:
                sub_kind, sub_targets = resolve(target, seen | {lineage})
            own = {"merge": MERGED, "split": SPLIT, "deprecate": DEPRECATED}[operation]
            kind = max(kind, own, sub_kind, key=_WEIGHT.__getitem__)
            targets.extend(t for t in sub_targets if t not in targets)
        if kind == DEPRECATED and targets:
            kind = MERGED if len(targets) == 1 else SPLIT
        return kind, targets

    step = {}
    for row in old:
        kind, targets = resolve(row["lineage_id"], frozenset())
        same = by_lineage.get(row["lineage_id"])
        placeholder = same["pk"] if same else None
        if kind == UNCHANGED and same is not None:
            if same["name"] != row["name"]:
                kind = RENAMED
            elif old_lineage_by_pk.get(row["parent_id"]) != new_lineage_by_pk.get(same["parent_id"]):
                kind = MOVED
        step[row["pk"]] = CategoryFate(kind, tuple(targets), placeholder)
    return step
