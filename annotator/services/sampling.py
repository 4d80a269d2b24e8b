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
from annotator.services.frames import FrameSpec, frame_append, frame_issues, study_frame_current
from core.errors import DomainError, PermissionDeniedError

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


OVERLAP_ALL = "all"
OVERLAP_PERCENT = "percent"
OVERLAP_COUNT = "count"
OVERLAP_MODES = (OVERLAP_ALL, OVERLAP_PERCENT, OVERLAP_COUNT)


@dataclass(frozen=True)
class Overlap:
    """How many issues of a round every rater of an issue labels (the reliability subset); the rest get one."""

    mode: str = OVERLAP_ALL
    value: int = 0

    def to_record(self) -> dict:
        return {"mode": self.mode} if self.mode == OVERLAP_ALL else {"mode": self.mode, "value": self.value}


def overlap_check(overlap: Overlap) -> None:
    if overlap.mode not in OVERLAP_MODES:
        raise DomainError(f"Unknown overlap '{overlap.mode}'.", field="overlap")
    if overlap.mode == OVERLAP_PERCENT and not 0 <= overlap.value <= 100:
        raise DomainError("The overlap is a percentage between 0 and 100.", field="overlap_value")
    if overlap.mode == OVERLAP_COUNT and overlap.value < 0:
        raise DomainError("The number of double-coded issues cannot be negative.", field="overlap_value")


def reliability_subset(n_items: int, overlap: Overlap, *, seed: int) -> list[bool]:
    """Per item (in draw order): whether it is double-coded. Pure: the same n, overlap and seed give the same.

    A percentage rounds half up (20% of 305 is 61); the subset is a seeded random choice, so double-coded
    issues are spread through every rater's queue rather than all at its start.
    """
    if overlap.mode == OVERLAP_ALL:
        return [True] * n_items
    k = (n_items * overlap.value * 2 + 100) // 200 if overlap.mode == OVERLAP_PERCENT else overlap.value
    k = max(0, min(n_items, k))
    chosen = set(random.Random(f"overlap:{seed}").sample(range(n_items), k))
    return [index in chosen for index in range(n_items)]


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


def issues_in_frame(filters: SampleFilters, *, base: QuerySet[Issue] | None = None) -> QuerySet[Issue]:
    """The issues of `base` (default: every non-demo issue) that the draw's filters keep."""
    issues = frame_issues(None) if base is None else base
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
    overlap: Overlap = Overlap(),
) -> StudyRound:
    """Draw issues of the study's frame not yet in the study into a new round and assign them to its raters.

    With a partial overlap, the reliability subset goes to raters_per_issue raters each and the rest to one
    rater each, balanced by workload."""
    # One draw at a time per study: round numbers and positions must not collide.
    study = Study.objects.select_for_update().get(pk=study.pk)
    overlap_check(overlap)
    if stratification == STRATIFY_PER_REPOSITORY and not per_repository:
        raise DomainError("Give the number of issues to draw from each repository.", field="per_repository")
    if stratification != STRATIFY_PER_REPOSITORY and size < 1:
        raise DomainError("The sample size must be at least 1.", field="size")
    frame = study_frame_current(study=study)
    pool = list(
        issues_in_frame(filters, base=frame_issues(frame))
        .exclude(study_issues__study=study)
        .order_by("pk")
        .values_list("pk", "repository_id")
    )
    if not pool:
        raise DomainError(
            "No issues match these filters in the study's frame (issues already in the study are left out). "
            "Widen the filters."
        )
    chosen = draw_sample(pool, size=size, seed=seed, stratification=stratification, per_stratum=per_repository)
    return _round_create(
        study=study,
        actor=actor,
        issue_ids=chosen,
        overlap=overlap,
        kind=kind,
        frame=frame,
        filters=filters.to_record(),
        size=size,
        seed=seed,
        stratification={"mode": stratification, "per_repository": per_repository},
        pool_size=len(pool),
    )


def _round_create(*, study: Study, actor, issue_ids: list[int], overlap: Overlap, **fields) -> StudyRound:
    """A new round of the (locked) study holding `issue_ids` in this order, with its assignments."""
    from annotator.services.assignments import assignments_create_for_round

    last = study.rounds.aggregate(number=Max("number"))["number"] or 0
    last_position = study.study_issues.aggregate(position=Max("position"))["position"] or 0
    subset = reliability_subset(len(issue_ids), overlap, seed=fields.get("seed", 0))
    double = [in_subset and study.raters_per_issue > 1 for in_subset in subset]
    study_round = StudyRound.objects.create(
        study=study,
        number=last + 1,
        overlap=overlap.to_record(),
        drawn=len(issue_ids),
        double_coded=sum(double),
        created_by=actor,
        **fields,
    )
    study_issues = StudyIssue.objects.bulk_create(
        [
            StudyIssue(
                study=study,
                issue_id=issue_id,
                round=study_round,
                position=last_position + offset,
                double_coded=is_double,
            )
            for offset, (issue_id, is_double) in enumerate(zip(issue_ids, double, strict=True), start=1)
        ],
        batch_size=2000,
    )
    assignments_create_for_round(study=study, study_round=study_round, study_issues=study_issues)
    return study_round


@transaction.atomic
def study_issues_add(*, study: Study, actor, issue_ids: Sequence[int]) -> StudyRound:
    """Add chosen issues (e.g. from search results) to the study as a round of their own, recorded as an
    explicit frame; issues already in the study are left out. Each goes to raters_per_issue raters."""
    from annotator.permissions import can_manage_study

    if not can_manage_study(actor, study):
        raise PermissionDeniedError("Only the study's owner can add issues to it.")
    study = Study.objects.select_for_update().get(pk=study.pk)
    if study.phase == Study.Phase.PUBLISHED:
        raise DomainError("This study is published; unpublish it before adding issues.")
    wanted = list(dict.fromkeys(int(pk) for pk in issue_ids))
    present = set(study.study_issues.filter(issue_id__in=wanted).values_list("issue_id", flat=True))
    new = [pk for pk in wanted if pk not in present]
    if not new:
        raise DomainError("Every chosen issue is in the study already.", field="issues")
    frame = frame_append(study=study, actor=actor, spec=FrameSpec(kind="explicit", issue_ids=tuple(new)), added=True)
    return _round_create(
        study=study,
        actor=actor,
        issue_ids=new,
        overlap=Overlap(),
        kind=StudyRound.Kind.MAIN,
        frame=frame,
        filters={"added": len(new)},
        size=len(new),
        seed=0,
        pool_size=len(new),
    )
