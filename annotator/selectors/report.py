"""Counting the final labels of a study for the paper's tables, aggregated in the database.

Final labels are ResolutionValue rows. Each count reads the category rows of the dimensions it groups by in one
query and combines them per issue, so the number of queries never depends on the number of issues. Only
resolved, not excluded issues count, and only category-valued labels (a label still a rater's proposal is
counted once it has become a category).
"""

from collections import Counter
from itertools import product

from django.db.models import Count, QuerySet

from annotator.models import Repository, Resolution, ResolutionValue, Study

MAX_VALUES = 50  # a safety bound: no issue carries this many categories in one dimension
REPOSITORY = "__repository__"


def final_labels(*, study: Study) -> QuerySet[Resolution]:
    return Resolution.objects.filter(study_issue__study=study, status=Resolution.Status.RESOLVED, excluded=False)


def _label_rows(*, study: Study, keys: list[str]):
    """(resolution, dimension key, category, repository) of every category-valued final label in ``keys``."""
    return (
        ResolutionValue.objects.filter(
            resolution__in=final_labels(study=study), category__isnull=False, dimension__key__in=keys
        )
        .order_by()
        .values_list("resolution_id", "dimension__key", "category_id", "resolution__study_issue__issue__repository_id")
    )


def value_lengths(*, study: Study, keys: list[str]) -> dict[str, int]:
    """The longest list of categories any final label has per dimension (one query)."""
    per_label = Counter((resolution_id, key) for resolution_id, key, _c, _r in _label_rows(study=study, keys=keys))
    lengths = dict.fromkeys(keys, 0)
    for (_resolution_id, key), n in per_label.items():
        lengths[key] = min(MAX_VALUES, max(lengths[key], n))
    return lengths


def grouped_counts(*, study: Study, keys: list[str], lengths: dict[str, int] | None = None) -> Counter:
    """Issues per combination of categories of ``keys`` (a key may be REPOSITORY: the issue's repository id).

    An issue with two categories in a dimension counts once for each, as in the papers' tables; an issue with no
    category in one of the dimensions is not counted. One query, whatever the size of the study.
    """
    wanted = [key for key in keys if key != REPOSITORY]
    labels: dict[int, dict[str, list[int]]] = {}
    repository: dict[int, int | None] = {}
    for resolution_id, key, category_id, repository_id in _label_rows(study=study, keys=wanted).iterator(
        chunk_size=5000
    ):
        labels.setdefault(resolution_id, {}).setdefault(key, []).append(category_id)
        repository[resolution_id] = repository_id
    counts: Counter = Counter()
    for resolution_id, by_key in labels.items():
        if any(key not in by_key for key in wanted):
            continue
        choices = [[repository[resolution_id]] if key == REPOSITORY else sorted(by_key[key]) for key in keys]
        for group in product(*choices):
            counts[tuple(group)] += 1
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


def final_label_sets(*, study: Study, keys: list[str]) -> dict[int, tuple[int | None, dict[str, list[int]]]]:
    """Issue id -> (repository id, {dimension key: category ids}) for every final label that counts.

    Two queries whatever the size of the study; an issue resolved without a category in a dimension has no entry
    for that key.
    """
    issues: dict[int, int] = {}
    sets: dict[int, tuple[int | None, dict[str, list[int]]]] = {}
    for resolution_id, issue_id, repository_id in (
        final_labels(study=study)
        .order_by()
        .values_list("id", "study_issue__issue_id", "study_issue__issue__repository_id")
    ):
        issues[resolution_id] = issue_id
        sets[issue_id] = (repository_id, {})
    values = (
        ResolutionValue.objects.filter(
            resolution__in=final_labels(study=study), category__isnull=False, dimension__key__in=keys
        )
        .order_by()
        .values_list("resolution_id", "category_id", "dimension__key")
    )
    for resolution_id, category_id, key in values.iterator(chunk_size=5000):
        sets[issues[resolution_id]][1].setdefault(key, []).append(category_id)
    return sets
