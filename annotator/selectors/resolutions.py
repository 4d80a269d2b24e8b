"""Reading disagreements and resolutions: the adjudication queue and page, progress, the API, the history.

Who may read what is decided here: owners, adjudicators and staff see every rater's labels; raters see
resolutions only once the study is not blind (or published), and never another rater's history.
"""

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import Http404

from annotator.models import (
    Annotation,
    AnnotationHistory,
    AnnotationValue,
    Assignment,
    Comment,
    FirstSubmission,
    FirstSubmissionValue,
    Resolution,
    ResolutionHistory,
    Study,
    StudyIssue,
    StudyMember,
)
from annotator.selectors.pseudonyms import rater_display_names
from annotator.selectors.resolution_values import ProposedLabel, final_values_prefetch, resolution_labels
from annotator.selectors.studies import study_dimensions as study_dimensions
from annotator.selectors.studies import study_get_for_user
from annotator.services.resolutions import EXCLUDED, can_adjudicate
from taxonomy.models import Category, Dimension

QUEUE_STATUSES = {
    "pending": [Resolution.Status.PENDING],
    "sent_back": [Resolution.Status.SENT_BACK],
    "resolved": [Resolution.Status.RESOLVED],
    "all": [Resolution.Status.PENDING, Resolution.Status.SENT_BACK, Resolution.Status.RESOLVED],
}


def study_get_for_adjudication(*, user, pk: int) -> Study:
    """The study for its adjudicators, owners and staff; 404 for non-members, 403 for raters."""
    study = study_get_for_user(user=user, pk=pk)
    if not can_adjudicate(user, study):
        raise PermissionDenied("Only the study's adjudicators and owners settle disagreements.")
    return study


def study_issue_get(*, study: Study, pk: int) -> StudyIssue:
    study_issue = (
        StudyIssue.objects.filter(study=study, pk=pk)
        .select_related("study", "issue__repository", "round", "resolution__decided_by")
        .first()
    )
    if study_issue is None:
        raise Http404("No such issue in this study.")
    return study_issue


# --- progress -------------------------------------------------------------------------------------------


def adjudication_progress(*, study: Study) -> dict[str, int]:
    """Issues by where they stand: with raters, waiting for adjudication, resolved, excluded (one query)."""
    status = "resolution__status"
    counts = StudyIssue.objects.filter(study=study).aggregate(
        total=Count("id"),
        pending=Count("id", filter=Q(**{status: Resolution.Status.PENDING})),
        sent_back=Count("id", filter=Q(**{status: Resolution.Status.SENT_BACK})),
        resolved=Count("id", filter=Q(**{status: Resolution.Status.RESOLVED}, resolution__excluded=False)),
        excluded=Count("id", filter=Q(**{status: Resolution.Status.RESOLVED}, resolution__excluded=True)),
        unanimous=Count("id", filter=Q(**{status: Resolution.Status.RESOLVED}, resolution__disagreement_count=0)),
    )
    counts["with_raters"] = counts["total"] - counts["pending"] - counts["resolved"] - counts["excluded"]
    return counts


# --- the queue ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueueFilters:
    status: str = "pending"
    dimension: str = ""
    category: int | None = None
    pair: tuple[int, int] | None = None
    round: int | None = None
    reason: str = ""


def rater_names(*, study: Study, viewer, assignments: list[Assignment]) -> list[str]:
    """Column headings for an issue's raters: names, or the study's pseudonyms (R1, R2) when adjudication is
    anonymous."""
    shown = rater_display_names(study=study, viewer=viewer, raters=[a.rater for a in assignments])
    return [shown[a.rater_id] for a in assignments]


def adjudication_queue(*, study: Study, filters: QueueFilters) -> QuerySet[StudyIssue]:
    """Issues that had a disagreement, most disputed first; a fixed number of queries per page."""
    queryset = StudyIssue.objects.filter(study=study, resolution__disagreement_count__gt=0)
    queryset = queryset.filter(resolution__status__in=QUEUE_STATUSES.get(filters.status, QUEUE_STATUSES["pending"]))
    if filters.dimension:
        queryset = queryset.filter(resolution__disagreement_keys__contains=f",{filters.dimension},")
    if filters.category:
        queryset = queryset.filter(
            pk__in=AnnotationValue.objects.filter(
                annotation__assignment__study_issue__study=study, category_id=filters.category
            ).values("annotation__assignment__study_issue_id")
        )
    if filters.pair:
        first, second = filters.pair
        queryset = queryset.filter(assignments__rater_id=first).filter(assignments__rater_id=second)
    if filters.round:
        queryset = queryset.filter(round__number=filters.round)
    if filters.reason:
        queryset = queryset.filter(resolution__disagreement_reason=filters.reason)
    return (
        queryset.select_related("issue__repository", "round", "resolution__decided_by")
        .prefetch_related(Prefetch("assignments", queryset=Assignment.objects.select_related("rater").order_by("pk")))
        .order_by("-resolution__disagreement_count", "position")
    )


def queue_filter_options(*, study: Study, viewer) -> dict[str, Any]:
    """Choices for the queue's filters. Rater pairs come from the study's raters, not from scanning issues."""
    dimensions = study_dimensions(study=study)
    raters = list(
        StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER).select_related("user").order_by("user_id")
    )
    shown = rater_display_names(study=study, viewer=viewer, raters=[member.user for member in raters])
    pairs = []
    for x, y in combinations(raters, 2):
        label = f"{shown[x.user_id]} & {shown[y.user_id]}"
        pairs.append({"value": f"{x.user_id}-{y.user_id}", "label": label})
    categories = list(
        Category.objects.filter(dimension__in=dimensions, selectable=True)
        .select_related("dimension")
        .order_by("dimension__order", "dimension__key", "order", "name")
    )
    return {
        "dimensions": dimensions,
        "categories": categories,
        "pairs": pairs,
        "rounds": list(study.rounds.order_by("number").values_list("number", flat=True)),
        "reasons": [(value, label) for value, label in Resolution.Reason.choices if value],
        "statuses": [
            ("pending", "Waiting for adjudication"),
            ("sent_back", "Sent back to the raters"),
            ("resolved", "Settled (adjudicated or negotiated)"),
            ("all", "All"),
        ],
    }


def next_pending(*, study: Study, after: StudyIssue | None = None) -> StudyIssue | None:
    """The next issue waiting for adjudication in queue order (skipping `after`)."""
    queryset = StudyIssue.objects.filter(
        study=study, resolution__status=Resolution.Status.PENDING, resolution__disagreement_count__gt=0
    ).order_by("-resolution__disagreement_count", "position")
    if after is not None:
        queryset = queryset.exclude(pk=after.pk)
    return queryset.first()


# --- the adjudication page ------------------------------------------------------------------------------


@dataclass
class Option:
    category: Category
    path: str
    depth: int


@dataclass
class DimensionRow:
    dimension: Dimension
    per_rater: list[list[Category]]
    proposals: list[str]
    differs: bool
    final: list[int]
    method: str
    options: list[Option] = field(default_factory=list)
    rater_ids: list[list[int]] = field(default_factory=list)
    # Each rater's first, independent submission for this dimension (None: no record of it).
    independent: list[list[Category] | None] = field(default_factory=list)
    independent_proposals: list[str] = field(default_factory=list)
    # The raters' proposals in this dimension the adjudicator may settle on: (form value "p<annotation id>",
    # text, chosen as the final label now).
    proposal_options: list[tuple[str, str, bool]] = field(default_factory=list)
    final_proposal: str = ""

    @property
    def revised(self) -> bool:
        """Whether some rater's current labels differ from what they first submitted (e.g. after discussion)."""
        return any(
            first is not None and sorted(c.pk for c in first) != ids
            for first, ids in zip(self.independent, self.rater_ids, strict=True)
        ) or any(
            first_proposal != proposal
            for first_proposal, proposal in zip(self.independent_proposals, self.proposals, strict=True)
        )

    @property
    def independent_cells(self) -> list[tuple[list[Category] | None, str]]:
        return list(zip(self.independent, self.independent_proposals, strict=True))

    @property
    def cells(self) -> list[tuple[list[Category], str]]:
        """Per rater: the categories chosen and the proposal written."""
        return list(zip(self.per_rater, self.proposals, strict=True))


def _options(categories: list[Category], offered: set[int]) -> list[Option]:
    children: dict[int | None, list[Category]] = {}
    for category in categories:
        children.setdefault(category.parent_id, []).append(category)
    known = {c.pk for c in categories}
    options: list[Option] = []

    def walk(node: Category, depth: int, trail: list[str]) -> None:
        if node.selectable and (not node.deprecated or node.pk in offered):
            options.append(Option(category=node, path=" › ".join([*trail, node.name]), depth=min(depth, 5)))
        for child in children.get(node.pk, []):
            walk(child, depth + 1, [*trail, node.name])

    for root in [c for c in categories if c.parent_id not in known]:
        walk(root, 0, [])
    return options


def _annotations(study_issue: StudyIssue) -> list[Annotation]:
    return list(
        Annotation.objects.filter(assignment__study_issue=study_issue)
        .select_related("assignment__rater")
        .prefetch_related(Prefetch("values", queryset=AnnotationValue.objects.select_related("dimension")))
        .order_by("assignment_id")
    )


def _first_submissions(annotations: list[Annotation]) -> list[FirstSubmission | None]:
    """Each annotation's first, independent submission (None where there is none), in the same order."""
    found = {
        first.annotation_id: first
        for first in FirstSubmission.objects.filter(annotation__in=[a.pk for a in annotations]).prefetch_related(
            "values"
        )
    }
    return [found.get(a.pk) for a in annotations]


def adjudication_page(*, study_issue: StudyIssue, viewer) -> dict[str, Any]:
    """Both raters side by side per dimension with the categories at hand; a fixed number of queries."""
    study = study_issue.study
    resolution = getattr(study_issue, "resolution", None)
    annotations = _annotations(study_issue)
    firsts = _first_submissions(annotations)
    dimensions = study_dimensions(study=study)
    offered = {value.category_id for a in annotations for value in a.values.all()}
    by_dimension: dict[int, list[Category]] = {}
    for category in Category.objects.filter(dimension__in=dimensions).order_by("order", "name", "pk"):
        by_dimension.setdefault(category.dimension_id, []).append(category)
    names = {c.pk: c for cats in by_dimension.values() for c in cats}
    disputed = set(resolution.disagreements) if resolution else set()
    final_labels = resolution_labels(resolution)
    rows = []
    for dimension in dimensions:
        per_rater_ids = [
            sorted(v.category_id for v in a.values.all() if v.dimension_id == dimension.pk) for a in annotations
        ]
        final = final_labels.get(dimension.key)
        settled = next((v for v in final or [] if isinstance(v, ProposedLabel)), None)
        proposal_options = [
            (f"p{a.pk}", text, settled is not None and settled.annotation_id == a.pk)
            for a in annotations
            if (text := ((a.proposals or {}).get(dimension.key) or "").strip())
        ]
        independent = [
            None
            if first is None
            else [
                names[v.category_id]
                for v in first.values.all()
                if v.category_id in names and v.dimension_id == dimension.pk
            ]
            for first in firsts
        ]
        rows.append(
            DimensionRow(
                dimension=dimension,
                per_rater=[[names[pk] for pk in ids if pk in names] for ids in per_rater_ids],
                rater_ids=per_rater_ids,
                proposals=[(a.proposals or {}).get(dimension.key, "") for a in annotations],
                differs=dimension.key in disputed,
                final=[v for v in final or [] if isinstance(v, int)],
                proposal_options=proposal_options,
                final_proposal=settled.text if settled is not None else "",
                method=(resolution.methods.get(dimension.key, "") if resolution else ""),
                options=_options(by_dimension.get(dimension.pk, []), offered),
                independent=independent,
                independent_proposals=[
                    (first.proposals if first is not None else a.proposals or {}).get(dimension.key, "")
                    for first, a in zip(firsts, annotations, strict=True)
                ],
            )
        )
    rows.sort(key=lambda row: (not row.differs, row.dimension.order, row.dimension.key))
    assignments = [a.assignment for a in annotations]
    return {
        "study": study,
        "study_issue": study_issue,
        "issue": study_issue.issue,
        "comments": list(Comment.objects.filter(issue=study_issue.issue_id).order_by("created", "id")),
        "resolution": resolution,
        "annotations": annotations,
        "rater_columns": list(
            zip(rater_names(study=study, viewer=viewer, assignments=assignments), annotations, strict=True)
        ),
        "rows": rows,
        "excluded_differs": EXCLUDED in disputed,
        "independent_excluded": [first.excluded if first is not None else None for first in firsts],
        "negotiated": bool(resolution and resolution.status == Resolution.Status.RESOLVED)
        and any(resolution.methods.get(key) == Resolution.Method.NEGOTIATED for key in disputed),
        "open": bool(resolution and resolution.status != Resolution.Status.SENT_BACK)
        and all(a.frozen for a in annotations),
        "rated_by_viewer": any(a.rater_id == viewer.pk for a in assignments),
    }


# --- the API --------------------------------------------------------------------------------------------


def _may_read_resolutions(user, study: Study) -> bool:
    if can_adjudicate(user, study):
        return True
    return not study.blind or study.phase == Study.Phase.PUBLISHED


def resolutions_for_study(*, user, pk: int) -> tuple[Study, QuerySet[Resolution]]:
    """The study's resolutions (the final dataset); raters get 403 while the study is blind."""
    study = study_get_for_user(user=user, pk=pk)
    if not _may_read_resolutions(user, study):
        raise PermissionDenied("Resolutions stay hidden from raters while the study is blind.")
    resolutions = (
        Resolution.objects.filter(study_issue__study=study)
        .select_related("study_issue__issue", "study_issue__round", "decided_by")
        .prefetch_related(final_values_prefetch())
        .order_by("study_issue__position")
    )
    return study, resolutions


def study_issue_for_resolution(*, user, pk: int, write: bool = False) -> StudyIssue:
    """A study issue whose resolution the user may read (or, with write, record); 404 for non-members."""
    study_issue = StudyIssue.objects.select_related("study", "issue").filter(pk=pk).first()
    if study_issue is None:
        raise Http404("No such study issue.")
    study = study_get_for_user(user=user, pk=study_issue.study_id)
    allowed = can_adjudicate(user, study) if write else _may_read_resolutions(user, study)
    if not allowed:
        raise PermissionDenied(
            "Only the study's adjudicators and owners record resolutions."
            if write
            else "Resolutions stay hidden from raters while the study is blind."
        )
    return study_issue


def proposal_choices(*, study_issue_ids: list[int]) -> dict[int, dict[str, list[dict[str, Any]]]]:
    """{study issue id: {dimension key: [{"annotation", "text"}]}}: the submitted raters' proposals an adjudicator
    may settle a dimension on (one query for any number of issues)."""
    choices: dict[int, dict[str, list[dict[str, Any]]]] = {pk: {} for pk in study_issue_ids}
    rows = (
        Annotation.objects.filter(assignment__study_issue_id__in=study_issue_ids, submitted_at__isnull=False)
        .exclude(proposals={})
        .order_by("assignment_id")
        .values_list("pk", "assignment__study_issue_id", "proposals")
    )
    for pk, study_issue_id, proposals in rows:
        for key, text in sorted((proposals or {}).items()):
            if str(text).strip():
                choices[study_issue_id].setdefault(key, []).append({"annotation": pk, "text": str(text).strip()})
    return choices


def independent_labels(*, study: Study, study_issue_ids: list[int], viewer) -> dict[int, list[dict[str, Any]]]:
    """{study issue id: each rater's first, independent submission}, in rater column order (two queries).

    What the raters said before any discussion: the record of a disagreement settled later. Raters appear
    as the viewer sees them (names, or the study's pseudonyms under anonymous adjudication).
    """
    firsts = list(
        FirstSubmission.objects.filter(study_issue_id__in=study_issue_ids)
        .select_related("rater")
        .prefetch_related(Prefetch("values", queryset=FirstSubmissionValue.objects.select_related("dimension")))
        .order_by("study_issue_id", "annotation__assignment_id")
    )
    shown = rater_display_names(study=study, viewer=viewer, raters={first.rater for first in firsts})
    labels: dict[int, list[dict[str, Any]]] = {pk: [] for pk in study_issue_ids}
    for first in firsts:
        values: dict[str, list[int]] = {}
        for value in first.values.all():
            values.setdefault(value.dimension.key, []).append(value.category_id)
        labels[first.study_issue_id].append(
            {
                "rater": shown[first.rater_id],
                "values": {key: sorted(ids) for key, ids in sorted(values.items())},
                "proposals": dict(first.proposals or {}),
                "excluded": first.excluded,
                "excluded_reason": first.excluded_reason,
                "submitted_at": first.submitted_at,
            }
        )
    return labels


def resolution_get(*, study_issue: StudyIssue) -> Resolution:
    resolution = (
        Resolution.objects.select_related("study_issue__issue", "decided_by")
        .prefetch_related(final_values_prefetch())
        .filter(study_issue=study_issue)
    )
    found = resolution.first()
    if found is None:
        raise Http404("Not resolved yet: every rater of this issue must submit first.")
    return found


# --- history --------------------------------------------------------------------------------------------


@dataclass
class HistoryEntry:
    at: Any
    kind: str  # "annotation" or "resolution"
    who: str
    subject: str
    action: str
    version: int
    changes: list[tuple[str, Any, Any]]


def _describe(value: Any, names: dict[int, str]) -> Any:
    if isinstance(value, dict):
        return {k: _describe(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [names.get(v, v) if isinstance(v, int) else _describe(v, names) for v in value]
    return value


def _changes(before: dict, after: dict, names: dict[int, str]) -> list[tuple[str, Any, Any]]:
    keys = [k for k in dict.fromkeys([*before, *after]) if k not in {"version", "decided_by", "decided_at"}]
    return [
        (key, _describe(before.get(key), names), _describe(after.get(key), names))
        for key in keys
        if before.get(key) != after.get(key)
    ]


def issue_history(*, study_issue: StudyIssue, viewer) -> list[HistoryEntry]:
    """Every change of the issue's annotations and resolution, oldest first, with category names resolved."""
    study = study_issue.study
    assignments = list(Assignment.objects.filter(study_issue=study_issue).select_related("rater").order_by("pk"))
    labels = dict(
        zip(
            [a.rater_id for a in assignments],
            rater_names(study=study, viewer=viewer, assignments=assignments),
            strict=True,
        )
    )
    names = {
        c.pk: f"{c.name} ({c.code})" if c.code else c.name
        for c in Category.objects.filter(dimension__in=study_dimensions(study=study)).only("pk", "name", "code")
    }

    def who(user) -> str:
        if user is None:
            return "automatic"
        # Raters appear as their column heading (anonymous or not); owners and adjudicators by name.
        return labels.get(user.pk) or str(user)

    entries: list[HistoryEntry] = []
    for row in (
        AnnotationHistory.objects.filter(annotation__assignment__study_issue=study_issue)
        .select_related("actor", "annotation__assignment")
        .order_by("at", "id")
    ):
        entries.append(
            HistoryEntry(
                at=row.at,
                kind="annotation",
                who=who(row.actor),
                subject=f"{labels.get(row.annotation.assignment.rater_id, 'Rater')}'s annotation",
                action=row.get_action_display(),
                version=row.version,
                changes=_changes(row.before or {}, row.after or {}, names),
            )
        )
    for row in (
        ResolutionHistory.objects.filter(resolution__study_issue=study_issue)
        .select_related("actor")
        .order_by("at", "id")
    ):
        entries.append(
            HistoryEntry(
                at=row.at,
                kind="resolution",
                who=who(row.actor),
                subject="Resolution",
                action=row.get_action_display(),
                version=row.version,
                changes=_changes(row.before or {}, row.after or {}, names),
            )
        )
    entries.sort(key=lambda entry: entry.at)
    return entries
