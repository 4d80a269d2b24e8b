"""Reads of taxonomies, shaped for their pages: a bounded number of queries however large the tree."""

from dataclasses import dataclass, field

from django.db.models import Count, Prefetch, QuerySet

from core.errors import NotFoundError
from taxonomy.models import Category, Dimension, Taxonomy, TaxonomyVersion


@dataclass(slots=True)
class CategoryNode:
    category: Category
    depth: int  # 1 for a root
    children: list["CategoryNode"] = field(default_factory=list)


@dataclass(slots=True)
class DimensionTree:
    dimension: Dimension
    roots: list[CategoryNode]
    category_count: int
    depth: int

    def walk(self) -> list[CategoryNode]:
        """Every node, depth first in display order."""
        out: list[CategoryNode] = []
        stack = list(reversed(self.roots))
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
        return out


def taxonomy_list() -> QuerySet[Taxonomy]:
    """Every taxonomy with its versions (newest first), each counting its dimensions and categories."""
    versions = TaxonomyVersion.objects.annotate(
        dimension_count=Count("dimensions", distinct=True),
        category_count=Count("dimensions__categories", distinct=True),
    ).order_by("-number")
    return Taxonomy.objects.prefetch_related(Prefetch("versions", queryset=versions)).order_by("name")


def version_get(*, slug: str, number: int) -> TaxonomyVersion:
    version = (
        TaxonomyVersion.objects.select_related("taxonomy", "based_on")
        .prefetch_related(Prefetch("taxonomy__versions", queryset=TaxonomyVersion.objects.order_by("number")))
        .filter(taxonomy__slug=slug, number=number)
    )
    found = version.first()
    if found is None:
        raise NotFoundError(f"There is no version {number} of taxonomy {slug!r}.")
    return found


def version_by_id(*, pk: int) -> TaxonomyVersion:
    """A taxonomy version by its id, or NotFoundError."""
    found = TaxonomyVersion.objects.filter(pk=pk).first()
    if found is None:
        raise NotFoundError("No taxonomy version has this id.")
    return found


def version_dimensions_by_key(*, version: TaxonomyVersion, keys: list[str]) -> list[Dimension]:
    """The version's dimensions of these keys, in the order named (repeats once); NotFoundError names the first key
    the version does not have, so another version's dimension cannot be named at all."""
    keys = list(dict.fromkeys(key.strip() for key in keys))
    found = {d.key: d for d in Dimension.objects.filter(version=version, key__in=keys)}
    missing = [key for key in keys if key not in found]
    if missing:
        raise NotFoundError(f"The taxonomy version has no dimension '{missing[0][:50]}'.")
    return [found[key] for key in keys]


def category_tree(*, version: TaxonomyVersion) -> list[DimensionTree]:
    """The version's dimensions in order, each with its category tree: two queries, the tree built here."""
    dimensions = list(version.dimensions.order_by("order", "key"))
    by_dimension: dict[int, list[CategoryNode]] = {d.pk: [] for d in dimensions}
    nodes: dict[int, CategoryNode] = {}
    categories = list(Category.objects.filter(dimension__version=version).order_by("order", "name", "pk"))
    for category in categories:
        nodes[category.pk] = CategoryNode(category=category, depth=0)
    for category in categories:
        node = nodes[category.pk]
        parent = nodes.get(category.parent_id) if category.parent_id else None
        if parent is None:
            by_dimension[category.dimension_id].append(node)
        else:
            parent.children.append(node)
    trees = []
    for dimension in dimensions:
        roots = by_dimension[dimension.pk]
        depth = _set_depths(roots)
        count = 0
        for root in roots:
            count += _count(root)
        trees.append(DimensionTree(dimension=dimension, roots=roots, category_count=count, depth=depth))
    return trees


def _set_depths(roots: list[CategoryNode]) -> int:
    deepest = 0
    stack = [(node, 1) for node in roots]
    while stack:
        node, depth = stack.pop()
        node.depth = depth
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node.children)
    return deepest


def _count(node: CategoryNode) -> int:
    return 1 + sum(_count(child) for child in node.children)
