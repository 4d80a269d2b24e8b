"""Counting the final labels of a study for the paper's tables, aggregated in the database.

Final labels live in ``Resolution.values`` as ``{dimension_key: [category ids]}``. Each count groups by the
i-th element of a dimension's list (``KT("values__symptom__0")``), one query per list position, so the
number of queries depends on how many categories an issue carries in a dimension (1 for single-valued
ones, a few for multi-valued ones), never on the number of issues. Only resolved, not excluded issues count.
"""

from collections import Counter
from itertools import product

from django.db.models import Count, QuerySet
from django.db.models.fields.json import KT

from annotator.models import Repository, Resolution, Study

MAX_VALUES = 50  # a safety bound: no issue carries this many categories in one dimension
REPOSITORY = "__repository__"


def final_labels(*, study: Study) -> QuerySet[Resolution]:
    return Resolution.objects.filter(study_issue__study=study, status=Resolution.Status.RESOLVED, excluded=False)


def _position(key: str, index: int) -> str:
    return f"values__{key}__{index}"


def value_lengths(*, study: Study, keys: list[str]) -> dict[str, int]:
    """The longest list of categories any final label has per dimension (one cheap query per position)."""
    base = final_labels(study=study)
    lengths = {}
    for key in keys:
        n = 0
        while n < MAX_VALUES and base.filter(**{f"{_position(key, n)}__isnull": False}).exists():
            n += 1
        lengths[key] = n
    return lengths


def _as_id(value) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def grouped_counts(*, study: Study, keys: list[str], lengths: dict[str, int]) -> Counter:
    """Issues per combination of categories of ``keys`` (a key may be REPOSITORY: the issue's repository id).

    An issue with two categories in a dimension counts once for each, as in the papers' tables.
    """
    base = final_labels(study=study)
    counts: Counter = Counter()
    ranges = [range(1) if key == REPOSITORY else range(lengths.get(key, 0)) for key in keys]
    for positions in product(*ranges):
        annotations, names = {}, []
        for index, (key, position) in enumerate(zip(keys, positions, strict=True)):
            name = f"g{index}"
            names.append(name)
            if key == REPOSITORY:
                continue
            annotations[name] = KT(_position(key, position))
        queryset = base.annotate(**annotations)
        for name in annotations:
            queryset = queryset.filter(**{f"{name}__isnull": False})
        fields = [
            ("study_issue__issue__repository_id" if key == REPOSITORY else name)
            for key, name in zip(keys, names, strict=True)
        ]
        for row in queryset.order_by().values(*fields).annotate(n=Count("id")).values_list(*fields, "n"):
            group = tuple(_as_id(value) for value in row[:-1])
            if any(value is None for value, key in zip(group, keys, strict=True) if key != REPOSITORY):
                continue
            counts[group] += row[-1]
    return counts


def issues_per_repository(*, study: Study) -> list[tuple[Repository | None, int]]:
    rows = (
        final_labels(study=study)
        .order_by()
        .values("study_issue__issue__repository_id")
        .annotate(n=Count("id"))
        .values_list("study_issue__issue__repository_id", "n")
    )
    counts = dict(rows)
    repositories = Repository.objects.in_bulk([pk for pk in counts if pk is not None])
    return sorted(
        ((repositories.get(pk) if pk is not None else None, n) for pk, n in counts.items()),
        key=lambda item: (-item[1], str(item[0] or "")),
    )


def repository_names(*, ids: set[int]) -> dict[int | None, str]:
    names: dict[int | None, str] = {None: "(no repository)"}
    names.update({pk: str(repo) for pk, repo in Repository.objects.in_bulk([i for i in ids if i is not None]).items()})
    return names


def final_count(*, study: Study) -> int:
    return final_labels(study=study).count()
