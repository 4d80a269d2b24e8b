"""Comparing the raters of an imported round, as the app does when the last rater of an issue submits.

In the app ``resolution_auto`` compares one issue at a time, about a dozen queries each: thousands of
imported issues would take minutes. Here a round is compared with a fixed number of queries: the stored
labels are read once (as plain rows: model instances with prefetched values cost more than the rest of
the import), compared by the resolution service's own ``compare_labels``, and the resolutions, with their
"compared automatically" history entries, are bulk-inserted with the fields ``resolution_auto`` gives a
new resolution: agreed dimensions decided (unanimous), the rest pending in the adjudication queue.
tests/annotator/sheets_import/test_adjudication_after_import.py checks that ``resolution_auto`` gives the
same resolutions.
"""

from collections import Counter, defaultdict
from dataclasses import dataclass

from annotator.models import Annotation, AnnotationValue, Assignment, Resolution, ResolutionHistory, Study, StudyRound
from annotator.services.history import resolution_snapshot
from annotator.services.resolutions import RaterLabels, compare_labels
from taxonomy.models import Dimension


@dataclass(frozen=True, slots=True)
class Compared:
    created: int = 0
    pending: int = 0  # of those, waiting for adjudication


def round_resolutions_compare(*, study: Study, study_round: StudyRound, actor, now) -> Compared:
    """Create the resolution of every issue of the round that has none and whose raters (two or more) all
    submitted frozen annotations. Issues with a resolution already (a final sheet's) are left as they are."""
    decided = set(Resolution.objects.filter(study_issue__round=study_round).values_list("study_issue_id", flat=True))
    assigned = Counter(
        Assignment.objects.filter(study_issue__round=study_round).values_list("study_issue_id", flat=True)
    )
    submitted = _submitted_labels(study_round)
    keys = _dimension_keys(study)
    resolutions = []
    for study_issue_id in sorted(submitted):
        found = submitted[study_issue_id]
        # The conditions resolution_auto checks: every assigned rater submitted (at least two), all frozen.
        if study_issue_id in decided or len(found) < max(2, assigned[study_issue_id]):
            continue
        if not all(frozen for frozen, _ in found):
            continue
        resolutions.append(_new_resolution(study_issue_id, [labels for _, labels in found], keys, now))
    created = Resolution.objects.bulk_create(resolutions, batch_size=1000)
    if any(r.pk is None for r in created):
        raise RuntimeError("This database does not return ids from bulk inserts; use PostgreSQL or SQLite 3.35+.")
    ResolutionHistory.objects.bulk_create(
        [
            ResolutionHistory(
                resolution=r,
                actor=actor,
                action=ResolutionHistory.Action.AUTO,
                version=r.version,
                before={},
                after={
                    **resolution_snapshot(r),
                    "methods": dict(r.methods),
                    "status": r.status,
                    "disagreements": r.disagreements,
                },
            )
            for r in created
        ],
        batch_size=1000,
    )
    return Compared(created=len(created), pending=sum(1 for r in created if r.status == Resolution.Status.PENDING))


def _submitted_labels(study_round: StudyRound) -> dict[int, list[tuple[bool, RaterLabels]]]:
    """Per study issue, in assignment order: each submitted annotation's frozen flag and labels, as
    resolution_auto reads them (rater_labels: category ids per dimension key, sorted; proposals; excluded)."""
    values: dict[int, dict[str, list[int]]] = defaultdict(dict)
    rows = AnnotationValue.objects.filter(annotation__assignment__study_issue__round=study_round).values_list(
        "annotation_id", "dimension__key", "category_id"
    )
    for annotation_id, key, category_id in rows:
        values[annotation_id].setdefault(key, []).append(category_id)
    submitted: dict[int, list[tuple[bool, RaterLabels]]] = defaultdict(list)
    annotations = (
        Annotation.objects.filter(assignment__study_issue__round=study_round, submitted_at__isnull=False)
        .order_by("assignment_id")
        .values_list("pk", "assignment__study_issue_id", "frozen", "proposals", "excluded")
    )
    for pk, study_issue_id, frozen, proposals, excluded in annotations:
        labels = RaterLabels(
            values={key: sorted(ids) for key, ids in values[pk].items()},
            proposals=dict(proposals or {}),
            excluded=excluded,
        )
        submitted[study_issue_id].append((frozen, labels))
    return submitted


def _dimension_keys(study: Study) -> list[str]:
    """The dimensions resolution_auto compares, in its order: the study's, or all of its version's."""
    keys = list(study.dimensions.order_by("order", "key").values_list("key", flat=True))
    return keys or list(
        Dimension.objects.filter(version=study.taxonomy_version_id)
        .order_by("order", "key")
        .values_list("key", flat=True)
    )


def _new_resolution(study_issue_id: int, raters, keys: list[str], now) -> Resolution:
    """A first comparison, as resolution_auto writes it: nothing was discussed, so every decided dimension is
    unanimous; resolved when nothing is in dispute, else pending with the disputed keys."""
    comparison = compare_labels(raters, dimension_keys=keys)
    values = {} if comparison.all_excluded else comparison.agreed
    methods = dict.fromkeys(values, Resolution.Method.UNANIMOUS)
    disputed = comparison.disagreements
    return Resolution(
        study_issue_id=study_issue_id,
        values=values,
        methods=methods,
        excluded=comparison.all_excluded,
        disagreement_keys=f",{','.join(disputed)}," if disputed else "",
        disagreement_count=len(disputed),
        status=Resolution.Status.PENDING if disputed else Resolution.Status.RESOLVED,
        method="" if disputed else Resolution.Method.UNANIMOUS,
        disagreement_reason="",
        decided_by=None,
        decided_at=now,
    )
