"""Comparing the raters of an imported round, as the app does when the last rater of an issue submits.

In the app ``resolution_auto`` compares one issue at a time, about a dozen queries each: thousands of
imported issues would take minutes. Here a round is compared with a fixed number of queries: the stored
labels are read once (as plain rows: model instances with prefetched values cost more than the rest of
the import), compared by the resolution service's own ``compare_labels``, and the resolutions, with their
history entries, are bulk-inserted with the fields the resolution service gives them:

- an issue without a final sheet's row, as ``resolution_auto`` writes it: agreed dimensions decided
  (unanimous), the rest pending in the adjudication queue;
- an issue the final sheet decides, as ``resolution_record`` writes the outcome of the raters' discussion
  after ``resolution_auto``: the disagreements kept (so the issue counts as discussed and is listed among the
  resolved disagreements), each disputed dimension, or one whose final value is not the raters' common one,
  negotiated, the others unanimous.

tests/annotator/sheets_import/test_adjudication_after_import.py and test_final_sheet.py check that the
resolution service gives the same resolutions.
"""

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from annotator.models import Annotation, AnnotationValue, Assignment, Resolution, ResolutionHistory, Study, StudyRound
from annotator.selectors.studies import study_dimensions
from annotator.services.history import resolution_snapshot
from annotator.services.resolutions import EXCLUDED, METHOD_RANK, Comparison, RaterLabels, compare_labels
from annotator.services.resolutions.values import resolutions_bulk_create


@dataclass(frozen=True, slots=True)
class FinalLabels:
    """The final sheet's row of an issue: category ids per dimension key (the labelled ones), and a note
    naming the row."""

    values: dict[str, list[int]]
    note: str


@dataclass(frozen=True, slots=True)
class Compared:
    created: int = 0
    pending: int = 0  # of those, waiting for adjudication


def round_resolutions_compare(
    *, study: Study, study_round: StudyRound, final: Mapping[int, FinalLabels] | None = None, actor, now
) -> Compared:
    """Create the resolution of every issue of the round that has none: from ``final`` (per study issue id)
    where the final sheet decides it, else when its raters (two or more) all submitted frozen annotations."""
    final = final or {}
    decided = set(Resolution.objects.filter(study_issue__round=study_round).values_list("study_issue_id", flat=True))
    assigned = Counter(
        Assignment.objects.filter(study_issue__round=study_round).values_list("study_issue_id", flat=True)
    )
    submitted = _submitted_labels(study_round)
    keys = _dimension_keys(study)
    resolutions, actions = [], []
    for study_issue_id in sorted(set(submitted) | set(final)):
        if study_issue_id in decided:
            continue
        found = submitted.get(study_issue_id, [])
        comparison = None
        # The conditions resolution_auto checks: every assigned rater submitted (at least two), all frozen.
        if len(found) >= max(2, assigned[study_issue_id]) and all(frozen for frozen, _ in found):
            comparison = compare_labels([labels for _, labels in found], dimension_keys=keys)
        if study_issue_id in final:
            resolutions.append(_final_resolution(study_issue_id, final[study_issue_id], comparison, actor, now))
            actions.append(ResolutionHistory.Action.RECORD)
        elif comparison is not None:
            resolutions.append(_new_resolution(study_issue_id, comparison, now))
            actions.append(ResolutionHistory.Action.AUTO)
    created = resolutions_bulk_create(resolutions, version_id=study.taxonomy_version_id)
    labels_of = [labels for _, labels in resolutions]
    ResolutionHistory.objects.bulk_create(
        [
            ResolutionHistory(
                resolution=r,
                actor=actor,
                action=action,
                version=r.version,
                before={},
                after={
                    **resolution_snapshot(r, labels=labels),
                    "methods": dict(r.methods),
                    "status": r.status,
                    "disagreements": r.disagreements,
                },
            )
            for r, action, labels in zip(created, actions, labels_of, strict=True)
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
            annotation_id=pk,
        )
        submitted[study_issue_id].append((frozen, labels))
    return submitted


def _dimension_keys(study: Study) -> list[str]:
    """The dimensions resolution_auto compares, in its order: the study's, or all of its version's."""
    return [dimension.key for dimension in study_dimensions(study=study)]


def _new_resolution(study_issue_id: int, comparison: Comparison, now) -> tuple[Resolution, dict]:
    """A first comparison, as resolution_auto writes it: nothing was discussed, so every decided dimension is
    unanimous; resolved when nothing is in dispute, else pending with the disputed keys."""
    values = {} if comparison.all_excluded else comparison.agreed
    methods = dict.fromkeys(values, Resolution.Method.UNANIMOUS)
    disputed = comparison.disagreements
    resolution = Resolution(
        study_issue_id=study_issue_id,
        methods=methods,
        excluded=comparison.all_excluded,
        disagreement_keys=_keys(disputed),
        disagreement_count=len(disputed),
        status=Resolution.Status.PENDING if disputed else Resolution.Status.RESOLVED,
        method="" if disputed else Resolution.Method.UNANIMOUS,
        disagreement_reason="",
        decided_by=None,
        decided_at=now,
    )
    return resolution, values


def _final_resolution(
    study_issue_id: int, final: FinalLabels, comparison: Comparison | None, actor, now
) -> tuple[Resolution, dict]:
    """The final sheet's decision, as resolution_record writes the outcome of the raters' discussion after the
    first comparison: the disputed dimensions stay disputed (the history of the issue), and each takes
    "negotiated", as does a dimension whose final value is not the one the raters agreed on; a dimension the
    raters agreed on and the final sheet keeps stays unanimous. The overall method is the least direct one.

    ``comparison`` None (fewer than two raters labelled the issue): nothing can be compared, so no dimension
    was agreed on and every final value counts as negotiated, with no disagreement recorded.
    """
    values = {key: sorted(ids) for key, ids in sorted(final.values.items())}
    disputed = comparison.disagreements if comparison is not None else []
    agreed = comparison.agreed if comparison is not None and not comparison.all_excluded else {}
    methods = {
        key: Resolution.Method.UNANIMOUS
        if key not in disputed and agreed.get(key) == ids
        else Resolution.Method.NEGOTIATED
        for key, ids in values.items()
    }
    if EXCLUDED in disputed or (comparison is not None and comparison.all_excluded):  # keeping it was discussed
        methods[EXCLUDED] = Resolution.Method.NEGOTIATED
    resolution = Resolution(
        study_issue_id=study_issue_id,
        methods=methods,
        excluded=False,
        disagreement_keys=_keys(disputed),
        disagreement_count=len(disputed),
        status=Resolution.Status.RESOLVED,
        method=max(methods.values(), key=lambda m: METHOD_RANK.get(m, 0), default=Resolution.Method.UNANIMOUS),
        disagreement_reason="",
        note=final.note,
        decided_by=actor,
        decided_at=now,
    )
    return resolution, values


def _keys(disputed: list[str]) -> str:
    """The disputed dimension keys as stored, ",cause,fix,", so a queue filter matches ",cause," exactly."""
    return f",{','.join(disputed)}," if disputed else ""
