"""Reading what study-level agreement needs: who may see it, the labels, and a cheap "labels version".

Every function here costs a fixed number of queries whatever the size of the study; the labels come
back as plain tuples (no model instances), so 100,000 doubly-labelled issues stay affordable.
"""

import hashlib
from dataclasses import dataclass, field

from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.db.models import Count, Max, Sum

from annotator.models import (
    Annotation,
    AnnotationValue,
    PhaseChange,
    Resolution,
    ResolutionHistory,
    Study,
    StudyIssue,
    StudyRound,
)
from annotator.permissions import can_see_all_labels, is_rater
from annotator.selectors.studies import study_get_for_user
from taxonomy.models import Category

FULL = "full"
SUMMARY = "summary"
BLIND_MESSAGE = (
    "Agreement figures are hidden from raters while the study is blind: the confusion matrix would show "
    "the other rater's labels. They become visible when the study is published."
)


def agreement_access(*, user, study: Study) -> str | None:
    """FULL for owners, adjudicators and staff; SUMMARY for raters once the study is published or not blind."""
    if can_see_all_labels(user, study):
        return FULL
    if is_rater(user, study) and (not study.blind or study.phase == Study.Phase.PUBLISHED):
        return SUMMARY
    return None


def agreement_study_for_user(*, user, pk: int) -> tuple[Study, str]:
    """The study and the user's access level: 404 for non-members, 403 for raters of a blind study."""
    study = study_get_for_user(user=user, pk=pk)
    access = agreement_access(user=user, study=study)
    if access is None:
        raise PermissionDenied(BLIND_MESSAGE)
    return study, access


VERSION_CACHE_SECONDS = 7 * 24 * 3600


def _any_label_changed() -> str:
    """A token that moves whenever any label of any study changes: one query, no join.

    Annotation.updated_at moves on every save (values are only ever written with their annotation);
    resolutions record every change in their history (and their count grows as issues are resolved).
    """
    q = connection.ops.quote_name
    annotations, resolutions = q(Annotation._meta.db_table), q(Resolution._meta.db_table)
    history = q(ResolutionHistory._meta.db_table)
    sql = (
        f"SELECT (SELECT MAX(updated_at) FROM {annotations}), (SELECT COUNT(*) FROM {annotations}), "  # noqa: S608
        f"(SELECT COUNT(*) FROM {resolutions}), (SELECT SUM(version) FROM {resolutions}), "
        f"(SELECT MAX(decided_at) FROM {resolutions}), (SELECT MAX(id) FROM {history})"
    )
    with connection.cursor() as cursor:  # table names from the models, no user input
        cursor.execute(sql)
        return "|".join(str(value) for value in cursor.fetchone())


def _study_labels_version(study: Study) -> str:
    """The exact token of one study: its annotations and resolutions (two aggregate queries over joins)."""
    a = Annotation.objects.filter(assignment__study_issue__study=study).aggregate(n=Count("id"), m=Max("updated_at"))
    r = Resolution.objects.filter(study_issue__study=study).aggregate(
        n=Count("id"), v=Sum("version"), m=Max("decided_at")
    )
    return f"{study.updated_at.isoformat()}|{a['n']}|{a['m']}|{r['n']}|{r['v'] or 0}|{r['m']}"


def labels_version(*, study: Study) -> str:
    """A token that changes whenever an annotation or resolution of the study (or the study) changes.

    The study's own token needs joins over all its labels (~a second at 100,000 issues), so it is only
    computed again when some label anywhere changed (a cheap check); otherwise it comes from the cache.
    """
    token = hashlib.sha256(f"{study.updated_at.isoformat()}|{_any_label_changed()}".encode()).hexdigest()[:32]
    key = f"agreement:labels:{study.pk}:{token}"
    version = cache.get(key)
    if version is None:
        version = _study_labels_version(study)
        cache.set(key, version, VERSION_CACHE_SECONDS)
    return version


@dataclass
class DimensionInfo:
    pk: int
    key: str
    name: str
    multi_valued: bool
    level_names: list[str]
    applies_when: dict
    order: int


@dataclass
class CategoryInfo:
    pk: int
    dimension_id: int
    parent_id: int | None
    name: str
    order: int


@dataclass
class StudyLabels:
    """A study's submitted labels as plain data (the input of the agreement computation)."""

    dimensions: list[DimensionInfo]
    categories: dict[int, CategoryInfo]
    rounds: list[tuple[int, str]]  # (number, kind)
    # study issue id -> (round number, issue id)
    study_issues: dict[int, tuple[int, int]]
    rater_names: dict[int, str]
    # (study issue id, rater id, excluded, {dimension id: [category ids]})
    annotations: list[tuple[int, int, bool, dict[int, list[int]]]] = field(default_factory=list)
    # study issue id -> (excluded, {dimension key: [category ids]})
    resolutions: dict[int, tuple[bool, dict[str, list[int]]]] = field(default_factory=dict)


def study_labels(*, study: Study) -> StudyLabels:
    """Every submitted annotation and every resolution of the study: eight queries, whatever its size."""
    dimensions = list(study.dimensions.order_by("order", "key"))
    if not dimensions:
        dimensions = list(study.taxonomy_version.dimensions.order_by("order", "key"))
    dims = [
        DimensionInfo(
            d.pk, d.key, d.name, d.multi_valued, list(d.level_names or []), dict(d.applies_when or {}), d.order
        )
        for d in dimensions
    ]
    categories = {
        pk: CategoryInfo(pk, dim_id, parent_id, name, order)
        for pk, dim_id, parent_id, name, order in Category.objects.filter(dimension__in=[d.pk for d in dims])
        .order_by()
        .values_list("pk", "dimension_id", "parent_id", "name", "order")
    }
    rounds = list(StudyRound.objects.filter(study=study).order_by("number").values_list("number", "kind"))
    study_issues = {
        pk: (number, issue_id)
        for pk, number, issue_id in StudyIssue.objects.filter(study=study)
        .order_by()
        .values_list("pk", "round__number", "issue_id")
    }
    submitted = Annotation.objects.filter(assignment__study_issue__study=study, submitted_at__isnull=False)
    rows = list(
        submitted.order_by().values_list("pk", "assignment__study_issue_id", "assignment__rater_id", "excluded")
    )
    values: dict[int, dict[int, list[int]]] = {}
    for annotation_id, dimension_id, category_id in (
        AnnotationValue.objects.filter(annotation__in=submitted)
        .order_by()
        .values_list("annotation_id", "dimension_id", "category_id")
        .iterator(chunk_size=20000)
    ):
        values.setdefault(annotation_id, {}).setdefault(dimension_id, []).append(category_id)
    annotations = [(si, rater, excluded, values.get(pk, {})) for pk, si, rater, excluded in rows]
    resolutions = {
        si: (excluded, dict(vals or {}))
        for si, excluded, vals in Resolution.objects.filter(study_issue__study=study)
        .order_by()
        .values_list("study_issue_id", "excluded", "values")
    }
    rater_ids = {rater for _, rater, _, _ in annotations}
    from django.contrib.auth import get_user_model

    rater_names = {
        pk: display or username
        for pk, username, display in get_user_model()
        .objects.filter(pk__in=rater_ids)
        .values_list("pk", "username", "display_name")
    }
    return StudyLabels(dims, categories, rounds, study_issues, rater_names, annotations, resolutions)


def cell_issues(*, study: Study, study_issue_ids: list[int]) -> list[dict]:
    """The issues behind a confusion-matrix cell, in study order, with what a link needs: one query."""
    rows = (
        StudyIssue.objects.filter(study=study, pk__in=study_issue_ids)
        .select_related("issue__repository")
        .order_by("position")
        .only(
            "pk",
            "position",
            "issue__id",
            "issue__title",
            "issue__number",
            "issue__repository__name",
            "issue__repository__display_name",
        )
    )
    return [
        {
            "position": row.position,
            "issue_id": row.issue.pk,
            "title": row.issue.title,
            "number": row.issue.number,
            "repository": row.issue.repository.display_name or row.issue.repository.name,
        }
        for row in rows
    ]


def phase_changes(*, study: Study) -> list[PhaseChange]:
    return list(PhaseChange.objects.filter(study=study).select_related("actor").order_by("-at", "-id")[:20])


__all__ = [
    "BLIND_MESSAGE",
    "FULL",
    "SUMMARY",
    "StudyLabels",
    "agreement_access",
    "agreement_study_for_user",
    "cell_issues",
    "labels_version",
    "phase_changes",
    "study_labels",
]
