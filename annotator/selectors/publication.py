"""Reads of published studies, for everyone (no login): summary, taxonomy with counts, dataset, agreement.

Only studies in the "published" phase are found; any other slug is a 404, so an unpublished study's
existence is not revealed. Raters appear as R1, R2, ... (in the order they joined the study),
adjudicators as A1, owners as O1; names in free text are replaced the same way. A pseudonym, once
published, stays with its person in every later release, whether or not they are still a member
(see ``member_pseudonyms``).
"""

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Max, Min, Prefetch, Q, QuerySet
from django.http import Http404

from annotator.exports.pseudonyms import redact
from annotator.models import (
    Annotation,
    AnnotationValue,
    Assignment,
    FirstSubmission,
    FirstSubmissionValue,
    PhaseChange,
    Release,
    Resolution,
    ResolutionHistory,
    ResolutionValue,
    Study,
    StudyMember,
)
from annotator.selectors.resolution_values import ProposedLabel, final_values_prefetch, resolution_labels
from taxonomy.models import Category

PUBLISHED = Study.Phase.PUBLISHED
ROLE_PREFIX = {StudyMember.Role.RATER: "R", StudyMember.Role.ADJUDICATOR: "A", StudyMember.Role.OWNER: "O"}
# The key of Release.figures that holds the pseudonyms a release was published with ({"<user id>": "R1", ...}).
# Not served: the public pages and APIs read named keys of figures only.
RELEASE_PSEUDONYMS = "pseudonyms"
PSEUDONYM = re.compile(r"^([A-Z]+)(\d+)$")


# --- category counts (also used by the members' API) ---------------------------------------------------


def category_counts(*, study: Study, source: str) -> dict[str, Any]:
    """How often each category was chosen: ``final`` in the resolved final labels, ``raters`` in submitted annotations.

    Excluded issues (or annotations) are counted apart. One or three queries whatever the size of the study.
    """
    counts: Counter = Counter()
    issues = excluded = 0
    if source == "final":
        final = Resolution.objects.filter(study_issue__study=study, status=Resolution.Status.RESOLVED)
        issues = final.count()
        excluded = final.filter(excluded=True).count()
        counted = (
            ResolutionValue.objects.filter(resolution__in=final.filter(excluded=False), category__isnull=False)
            .values("category_id")
            .annotate(n=Count("id"))
        )
        counts.update({row["category_id"]: row["n"] for row in counted})
    else:
        submitted = Annotation.objects.filter(assignment__study_issue__study=study, submitted_at__isnull=False)
        issues = submitted.count()
        excluded = submitted.filter(excluded=True).count()
        counted = (
            AnnotationValue.objects.filter(annotation__in=submitted.filter(excluded=False))
            .values("category_id")
            .annotate(n=Count("id"))
        )
        counts.update({row["category_id"]: row["n"] for row in counted})
    return {"issues": issues, "excluded": excluded, "counts": counts}


def categories_of_version(*, study: Study) -> list[Category]:
    """The categories of the study's dimensions (all of its taxonomy version's when none was chosen)."""
    categories = Category.objects.filter(
        dimension__version_id=study.taxonomy_version_id, dimension__in=study.dimensions.all()
    ).select_related("dimension")
    return list(categories.order_by("dimension__order", "dimension__key", "order", "name", "pk"))


def counts_by_dimension(categories: list[Category], counts: Counter, *, full: bool = False) -> list[dict[str, Any]]:
    """Categories grouped by dimension (tree order: parents first), each with its count and its subtree's total.

    ``full`` adds what a reader of the taxonomy needs: definition, examples, provenance and flags.
    """
    children: dict[int | None, list[Category]] = defaultdict(list)
    for category in categories:
        children[category.parent_id].append(category)
    known = {c.pk for c in categories}
    totals: dict[int, int] = {}

    def total(category: Category) -> int:
        if category.pk not in totals:
            totals[category.pk] = counts.get(category.pk, 0) + sum(total(c) for c in children[category.pk])
        return totals[category.pk]

    def row(category: Category, depth: int) -> dict[str, Any]:
        out = {
            "id": category.pk,
            "code": category.code,
            "name": category.name,
            "parent": category.parent_id,
            "depth": depth,
            "selectable": category.selectable,
            "count": counts.get(category.pk, 0),
            "total": total(category),
        }
        if full:
            out.update(
                definition=category.definition,
                examples=list(category.examples or []),
                provenance=category.provenance,
                distributed_specific=category.distributed_specific,
                deprecated=category.deprecated,
            )
        return out

    dimensions: dict[int, dict[str, Any]] = {}
    for category in categories:
        dim = category.dimension
        dimensions.setdefault(
            dim.pk,
            {
                "key": dim.key,
                "name": dim.name,
                "help_text": dim.help_text,
                "multi_valued": dim.multi_valued,
                "required": dim.required,
                "categories": [],
            },
        )
    for category in categories:
        if category.parent_id is not None and category.parent_id in known:
            continue
        stack = [(category, 1)]
        while stack:  # depth first, in display order
            node, depth = stack.pop()
            dimensions[node.dimension_id]["categories"].append(row(node, depth))
            stack.extend((child, depth + 1) for child in reversed(children[node.pk]))
    return list(dimensions.values())


# --- published studies ----------------------------------------------------------------------------------


def published_studies() -> QuerySet[Study]:
    return (
        Study.objects.filter(phase=PUBLISHED)
        .annotate(published_on=Max("phase_changes__at", filter=Q(phase_changes__to_phase=PUBLISHED)))
        .select_related("taxonomy_version__taxonomy")
        .prefetch_related("dimensions")
        .order_by("name", "id")
    )


def resolved_counts(*, study_ids: list[int]) -> dict[int, dict[str, int]]:
    """Resolved and excluded issues per study, in one aggregate query for any number of studies."""
    counts = {pk: {"issues": 0, "excluded": 0} for pk in study_ids}
    rows = (
        Resolution.objects.filter(study_issue__study_id__in=study_ids, status=Resolution.Status.RESOLVED)
        .values("study_issue__study_id")
        .annotate(issues=Count("id"), excluded=Count("id", filter=Q(excluded=True)))
    )
    for row in rows:
        counts[row["study_issue__study_id"]] = {"issues": row["issues"], "excluded": row["excluded"]}
    return counts


def published_study_get(*, slug: str) -> Study:
    """The published study with this slug; 404 for any other (unpublished studies are not revealed)."""
    study = published_studies().filter(slug=slug).first()
    if study is None:
        raise Http404("No published study has this address.")
    return study


def published_at(*, study: Study):
    """When the study was (last) published: annotated by published_studies(), else one query."""
    if hasattr(study, "published_on"):  # None when the phase was set without a recorded change
        return study.published_on or study.updated_at
    change = PhaseChange.objects.filter(study=study, to_phase=PUBLISHED).order_by("-at", "-id").first()
    return change.at if change else study.updated_at


def member_pseudonyms(*, study: Study, raters_only: bool = False) -> dict[int, str]:
    """user id -> R1, R2, ... for raters (A1 for adjudicators, O1 for owners): everyone whose work is in the study.

    A pseudonym once published never moves to another person: the pseudonyms of the study's latest release are
    kept as they are, and only people it does not name get a new one, the next free number of their role. New
    people are numbered in ``_participants`` order, which for a study nobody left is the order of the first
    rule (members by role, each role in the order they joined). `raters_only`: the pages that show raters only
    need their numbers, which people no longer members in other roles do not change; those are not looked for.
    """
    mapping = published_pseudonyms(study=study)
    taken: Counter = Counter()
    for pseudonym in mapping.values():
        found = PSEUDONYM.match(pseudonym)
        if found:
            taken[found[1]] = max(taken[found[1]], int(found[2]))
    for role, user_id in _participants(study, raters_only=raters_only):
        if user_id not in mapping:
            prefix = ROLE_PREFIX[role]
            taken[prefix] += 1
            mapping[user_id] = f"{prefix}{taken[prefix]}"
    return mapping


def published_pseudonyms(*, study: Study) -> dict[int, str]:
    """The pseudonyms the study's latest release (hidden or not) was published with; empty before the first
    release, and for releases published before releases kept them."""
    # Each release extends the one before it, so the latest holds every pseudonym ever published.
    figures = Release.objects.filter(study=study).order_by("-number").values_list("figures", flat=True).first()
    stored = (figures or {}).get(RELEASE_PSEUDONYMS) or {}
    return {int(user_id): pseudonym for user_id, pseudonym in stored.items()}


def _participants(study: Study, *, raters_only: bool = False) -> list[tuple[str, int]]:
    """(role, user id) of everyone who takes part in the study, each once, in the order pseudonyms are given.

    First the members, raters then adjudicators then owners, each in the order they joined. Then people who
    are no longer members (a removal deletes the membership and the date it began), by their work that stays:
    raters by their first assignment, adjudicators by their first decision, owners by their first release
    or phase change.
    """
    members = StudyMember.objects.filter(study=study).order_by("added_at", "id").values_list("user_id", "role")
    by_role: dict[str, list[int]] = defaultdict(list)
    for user_id, role in members:
        by_role[role].append(user_id)
    ordered = [(role, user_id) for role in ROLE_PREFIX for user_id in by_role[role]]
    assigned = _first_acts(Assignment.objects.filter(study_issue__study=study), user="rater_id", at="assigned_at")
    decided = _first_acts(
        ResolutionHistory.objects.filter(resolution__study_issue__study=study), user="actor_id", at="at"
    )
    recorded = _first_acts(Resolution.objects.filter(study_issue__study=study), user="decided_by_id", at="decided_at")
    released = _first_acts(Release.objects.filter(study=study), user="created_by_id", at="created_at")
    moved = _first_acts(PhaseChange.objects.filter(study=study), user="actor_id", at="at")
    ordered += [(StudyMember.Role.RATER, user_id) for user_id in _by_first(assigned)]
    if not raters_only:  # the querysets above are lazy: the ones skipped here never run
        ordered += [(StudyMember.Role.ADJUDICATOR, user_id) for user_id in _by_first(decided, recorded)]
        ordered += [(StudyMember.Role.OWNER, user_id) for user_id in _by_first(released, moved)]
    once: dict[int, str] = {}
    for role, user_id in ordered:
        once.setdefault(user_id, role)  # a rater who also owns the study is a rater, as in the first rule
    return [(role, user_id) for user_id, role in once.items()]


def _first_acts(rows: QuerySet, *, user: str, at: str) -> QuerySet:
    """(user id, time of their first row) for each user named in `rows` (a lazy query)."""
    named = rows.filter(**{f"{user}__isnull": False})
    return named.values_list(user).annotate(first=Min(at)).values_list(user, "first").order_by()


def _by_first(*sources: Iterable[tuple[int, datetime]]) -> list[int]:
    """User ids by the earliest time any source gives them (then by id)."""
    first: dict[int, datetime] = {}
    for source in sources:
        for user_id, at in source:
            first[user_id] = min(at, first.get(user_id, at))
    return sorted(first, key=lambda user_id: (first[user_id], user_id))


def _name_mapping(pseudonyms: dict[int, str]) -> dict[str, str]:
    """Every way a person with a pseudonym may be named in free text (username, display and full name) -> it."""
    names: dict[str, str] = {}
    for user in get_user_model().objects.filter(pk__in=pseudonyms).order_by("pk"):
        for name in (user.username, user.display_name, user.get_full_name()):
            if name and name.strip():
                names.setdefault(name.strip(), pseudonyms[user.pk])
    return names


def dataset_queryset(*, study: Study) -> QuerySet[Resolution]:
    """The final labels in sample order; the page's raters' annotations are read with ``dataset_rows``."""
    return (
        Resolution.objects.filter(study_issue__study=study, status=Resolution.Status.RESOLVED)
        .select_related("study_issue__issue__repository", "study_issue__round")
        .prefetch_related(final_values_prefetch())
        .order_by("study_issue__position")
    )


class DatasetContext:
    """What every page of the dataset shares: category codes and pseudonyms (read once per request)."""

    def __init__(self, study: Study):
        self.study = study
        categories = categories_of_version(study=study)
        self.codes = {c.pk: c.code for c in categories}
        self.dimension_keys = sorted({c.dimension.key for c in categories})
        self.pseudonyms = member_pseudonyms(study=study)
        self.names = _name_mapping(self.pseudonyms)

    def codes_of(self, ids) -> list[str]:
        """Category codes; a final label that is a rater's proposal shows as its text, marked "proposal: "."""
        return [
            redact(i.marked, self.names) if isinstance(i, ProposedLabel) else self.codes.get(int(i), str(i))
            for i in ids or []
        ]


def _codes_by_key(context: DatasetContext, values) -> dict[str, list[str]]:
    """Category codes per dimension key of label rows (with their dimension loaded)."""
    labels: dict[str, list[int]] = {}
    for value in values:
        labels.setdefault(value.dimension.key, []).append(value.category_id)
    return {key: context.codes_of(sorted(ids)) for key, ids in sorted(labels.items())}


def _redacted(context: DatasetContext, proposals: dict | None) -> dict[str, str]:
    return {key: redact(str(text), context.names) for key, text in sorted((proposals or {}).items()) if text}


def dataset_rows(*, context: DatasetContext, resolutions: list[Resolution]) -> list[dict[str, Any]]:
    """One row per resolved issue: the final labels (category codes) and each rater's, pseudonymised, in two
    layers: the rater's labels now (revised after discussion, if any) and their first, independent submission."""
    study_issue_ids = [r.study_issue_id for r in resolutions]
    annotations = (
        Annotation.objects.filter(assignment__study_issue_id__in=study_issue_ids, submitted_at__isnull=False)
        .select_related("assignment")
        .prefetch_related(Prefetch("values", queryset=AnnotationValue.objects.select_related("dimension")))
        .order_by("assignment__rater_id")
    )
    firsts = {
        first.annotation_id: first
        for first in FirstSubmission.objects.filter(study_issue_id__in=study_issue_ids).prefetch_related(
            Prefetch("values", queryset=FirstSubmissionValue.objects.select_related("dimension"))
        )
    }
    by_issue: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for annotation in annotations:
        first = firsts.get(annotation.pk)
        by_issue[annotation.assignment.study_issue_id].append(
            {
                "rater": context.pseudonyms[annotation.assignment.rater_id],
                "excluded": annotation.excluded,
                "excluded_reason": annotation.excluded_reason,
                "labels": _codes_by_key(context, annotation.values.all()),
                "proposals": _redacted(context, annotation.proposals),
                "independent": None
                if first is None
                else {
                    "excluded": first.excluded,
                    "excluded_reason": first.excluded_reason,
                    "labels": _codes_by_key(context, first.values.all()),
                    "proposals": _redacted(context, first.proposals),
                },
            }
        )
    rows = []
    for resolution in resolutions:
        study_issue = resolution.study_issue
        issue = study_issue.issue
        raters = sorted(by_issue.get(study_issue.pk, []), key=lambda r: (len(r["rater"]), r["rater"]))
        rows.append(
            {
                "position": study_issue.position,
                "round": study_issue.round.number,
                "issue": {
                    "url": issue.url,
                    "repository": issue.repository.full_name if issue.repository_id else None,
                    "number": issue.number,
                    "kind": issue.kind,
                    "title": issue.title,
                },
                "excluded": resolution.excluded,
                "labels": {key: context.codes_of(ids) for key, ids in resolution_labels(resolution).items()},
                "methods": dict(resolution.methods or {}),
                "method": resolution.method,
                "disagreements": resolution.disagreements,
                "disagreement_reason": resolution.disagreement_reason,
                "note": redact(resolution.note, context.names),
                "raters": raters,
            }
        )
    return rows


def pseudonymised_agreement(*, report: dict[str, Any], pseudonyms: dict[int, str]) -> dict[str, Any]:
    """The agreement report with rater ids and names replaced by R1, R2, ... everywhere they appear."""

    def alias(rater_id) -> str:
        return pseudonyms[int(rater_id)]  # everyone with an assignment has one (member_pseudonyms)

    def pair(p: dict[str, Any]) -> dict[str, Any]:
        raters = [alias(r) for r in p.get("raters", [])]
        return {**p, "key": "-".join(raters), "raters": raters, "names": raters}

    out = {k: v for k, v in report.items() if k not in {"raters", "pairs", "dimensions", "filters"}}
    out["raters"] = [alias(r["id"]) for r in report.get("raters", [])]
    out["pairs"] = [pair(p) for p in report.get("pairs", [])]
    dimensions = []
    for dim in report.get("dimensions", []):
        dim = dict(dim)
        if "per_pair" in dim:
            dim["per_pair"] = [_pseudonymous_pair_row(row, alias) for row in dim["per_pair"]]
        after = dict(dim.get("after") or {})
        after["rows"] = [
            {**row, "rater": alias(row["rater"]), "name": alias(row["rater"])} for row in after.get("rows", [])
        ]
        dim["after"] = after
        dimensions.append(dim)
    out["dimensions"] = dimensions
    return out


def _pseudonymous_pair_row(row: dict[str, Any], alias) -> dict[str, Any]:
    names = [alias(rater_id) for rater_id in str(row["pair"]).split("-")]
    return {**row, "pair": "-".join(names), "names": names}
