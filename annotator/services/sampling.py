"""Drawing a reproducible sample of issues into a study.

`draw_sample` is pure (plain ids in, plain ids out) so the same pool and seed give the same
sample anywhere; `study_round_draw` builds the pool from the filters and persists the round.
"""

import json
import random
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date

from django.db import connection, transaction
from django.db.models import Max, Q, QuerySet

from annotator.models import Issue, Repository, Study, StudyIssue, StudyRound
from core.errors import DomainError

STRATIFY_NONE = "none"
STRATIFY_PROPORTIONAL = "proportional"
STRATIFY_PER_REPOSITORY = "per_repository"
STRATIFICATION_MODES = (STRATIFY_NONE, STRATIFY_PROPORTIONAL, STRATIFY_PER_REPOSITORY)


def _proportional_quota(strata: dict[Hashable, list[int]], size: int) -> dict[Hashable, int]:
    """Largest-remainder allocation of `size` across strata in proportion to their sizes."""
    total = sum(len(ids) for ids in strata.values())
    size = min(size, total)
    exact = {key: size * len(ids) / total for key, ids in strata.items()}
    quota = {key: int(value) for key, value in exact.items()}
    leftover = size - sum(quota.values())
    # Ties broken by stratum key order so the allocation never depends on dict order.
    by_remainder = sorted(strata, key=lambda key: (-(exact[key] - quota[key]), str(key)))
    for key in by_remainder[:leftover]:
        quota[key] += 1
    return quota


def draw_sample(
    pool: Sequence[tuple[int, Hashable]],
    *,
    size: int,
    seed: int,
    stratification: str = STRATIFY_NONE,
    per_stratum: int | None = None,
) -> list[int]:
    """Pick issue ids from `pool` ((id, stratum) pairs); same pool and seed give the same list, in order.

    none: a simple random sample of `size`; proportional: each stratum gets its share of `size`;
    per_repository: `per_stratum` from every stratum (all of a smaller one), `size` ignored.
    """
    if stratification not in STRATIFICATION_MODES:
        raise ValueError(f"unknown stratification {stratification!r}")
    rng = random.Random(seed)
    ordered = sorted(pool, key=lambda pair: pair[0])
    if stratification == STRATIFY_NONE:
        ids = [issue_id for issue_id, _ in ordered]
        return rng.sample(ids, min(size, len(ids)))
    strata: dict[Hashable, list[int]] = defaultdict(list)
    for issue_id, stratum in ordered:
        strata[stratum].append(issue_id)
    if stratification == STRATIFY_PROPORTIONAL:
        quota = _proportional_quota(strata, size) if strata else {}
    else:
        if not per_stratum or per_stratum < 1:
            raise ValueError("per_repository stratification needs a positive number per stratum")
        quota = {key: min(per_stratum, len(ids)) for key, ids in strata.items()}
    chosen: list[int] = []
    for key in sorted(strata, key=str):
        chosen.extend(rng.sample(strata[key], quota[key]))
    # Interleave strata so a rater's queue does not work through one repository at a time.
    rng.shuffle(chosen)
    return chosen


@dataclass(frozen=True)
class SampleFilters:
    """The sample frame: which imported issues may be drawn."""

    repository_ids: list[int] = field(default_factory=list)
    state: str = ""
    kind: str = ""
    labels: list[str] = field(default_factory=list)  # any of these
    created_from: date | None = None
    created_to: date | None = None
    text: str = ""

    def to_record(self) -> dict:
        """A JSON-ready description of the frame, with repository names for the paper."""
        record = asdict(self)
        record["created_from"] = self.created_from.isoformat() if self.created_from else None
        record["created_to"] = self.created_to.isoformat() if self.created_to else None
        if self.repository_ids:
            repos = Repository.objects.filter(pk__in=self.repository_ids).order_by("pk")
            record["repositories"] = [repo.full_name for repo in repos]
        return record


def _label_condition(label: str) -> Q:
    if connection.vendor == "postgresql":
        return Q(labels__contains=[label])
    # SQLite has no JSON containment: match the quoted label inside the stored JSON text.
    return Q(labels__icontains=json.dumps(label))


def issues_in_frame(filters: SampleFilters) -> QuerySet[Issue]:
    issues = Issue.objects.all()
    if filters.repository_ids:
        issues = issues.filter(repository_id__in=filters.repository_ids)
    if filters.state:
        issues = issues.filter(state=filters.state)
    if filters.kind:
        issues = issues.filter(kind=filters.kind)
    if filters.labels:
        any_label = Q()
        for label in filters.labels:
            any_label |= _label_condition(label)
        issues = issues.filter(any_label)
    if filters.created_from:
        issues = issues.filter(created__date__gte=filters.created_from)
    if filters.created_to:
        issues = issues.filter(created__date__lte=filters.created_to)
    if filters.text:
        issues = issues.filter(Q(title__icontains=filters.text) | Q(body__icontains=filters.text))
    return issues


@transaction.atomic
def study_round_draw(
    *,
    study: Study,
    actor,
    filters: SampleFilters,
    size: int,
    seed: int,
    stratification: str = STRATIFY_NONE,
    per_repository: int | None = None,
    kind: str = StudyRound.Kind.MAIN,
) -> StudyRound:
    """Draw issues not yet in the study into a new round and assign each to the study's raters."""
    from annotator.services.assignments import assignments_create_for_round

    # One draw at a time per study: round numbers and positions must not collide.
    study = Study.objects.select_for_update().get(pk=study.pk)
    if stratification == STRATIFY_PER_REPOSITORY and not per_repository:
        raise DomainError("Give the number of issues to draw from each repository.", field="per_repository")
    if stratification != STRATIFY_PER_REPOSITORY and size < 1:
        raise DomainError("The sample size must be at least 1.", field="size")
    pool = list(
        issues_in_frame(filters).exclude(study_issues__study=study).order_by("pk").values_list("pk", "repository_id")
    )
    if not pool:
        raise DomainError(
            "No issues match these filters (issues already in the study are left out). Widen the filters."
        )
    chosen = draw_sample(pool, size=size, seed=seed, stratification=stratification, per_stratum=per_repository)
    last = study.rounds.aggregate(number=Max("number"))["number"] or 0
    last_position = study.study_issues.aggregate(position=Max("position"))["position"] or 0
    study_round = StudyRound.objects.create(
        study=study,
        number=last + 1,
        kind=kind,
        filters=filters.to_record(),
        size=size,
        seed=seed,
        stratification={"mode": stratification, "per_repository": per_repository},
        pool_size=len(pool),
        drawn=len(chosen),
        created_by=actor,
    )
    study_issues = StudyIssue.objects.bulk_create(
        [
            StudyIssue(study=study, issue_id=issue_id, round=study_round, position=last_position + offset)
            for offset, issue_id in enumerate(chosen, start=1)
        ],
        batch_size=2000,
    )
    assignments_create_for_round(study=study, study_round=study_round, study_issues=study_issues)
    return study_round
