"""Writing an import: issues, the study and its round, raters, their annotations and the final labels.

Every issue all its raters labelled is compared by the resolution service, as when the last rater submits in
the app. An issue the final sheet decides gets that decision, recorded as the outcome of the raters'
discussion: the dimensions they disagreed on are kept as disagreements and count as negotiated, those they
agreed on (and the final sheet kept) as unanimous. Every other issue has its agreed dimensions decided
(unanimous) and the others waiting in the adjudication queue. See compare.py.

One transaction: an error anywhere leaves the database as it was. Running the same import again (same
files, same decisions) finds its round by a fingerprint and writes nothing.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify

from annotator.importers.records import IssueRecord, RepositoryRef
from annotator.models import (
    Annotation,
    AnnotationHistory,
    AnnotationValue,
    Assignment,
    FirstSubmission,
    Issue,
    Study,
    StudyIssue,
    StudyMember,
    StudyRound,
)
from annotator.permissions import can_manage_study
from annotator.services.agreement.version import study_labels_changed
from annotator.services.first_submissions import first_submission_record
from annotator.services.history import annotation_snapshot
from annotator.services.issues import issues_upsert
from annotator.services.progress import rater_progress_rebuild
from core.errors import PermissionDeniedError
from core.numbers import ascii_int
from core.permissions import can_manage_imports
from taxonomy.models import Category, Dimension, TaxonomyVersion

from .compare import FinalLabels, round_resolutions_compare
from .plan import PROBLEMS_SHOWN, SheetsImportPlan, sheets_import_plan
from .request import SheetsImportError, SheetsImportRequest, mapping_rows
from .taxonomy_drafts import category_add, dimension_add, taxonomy_draft_create, version_draft_copy

IMPORT_TAG = "sheets"


class LabelDecisionsNeeded(SheetsImportError):
    """Merge suggestions wait for a person's decision; nothing was written."""

    def __init__(self, plan: SheetsImportPlan):
        self.plan = plan
        count = sum(len(found) for found in plan.undecided.values())
        super().__init__(
            f"{count} label(s) look like misspellings of others. Review the suggestions and confirm them: "
            "re-run with --labels <mapping.csv> (the accepted merges), or --accept-suggestions to accept all."
        )


@dataclass(slots=True)
class SheetsImportResult:
    study: Study
    round: StudyRound
    unchanged: bool = False
    issues_created: int = 0
    issues_found: int = 0
    study_issues: int = 0
    annotations: int = 0
    values: int = 0
    resolutions: int = 0
    pending: int = 0  # resolutions waiting for adjudication: the raters disagreed and no final sheet decided
    categories_added: int = 0
    version_created: TaxonomyVersion | None = None
    warnings: list[str] = field(default_factory=list)
    mapping: dict = field(default_factory=dict)  # the label decisions applied, to write to a mapping file
    unknown: list = field(default_factory=list)  # labels added as categories

    def summary(self) -> str:
        where = f"study '{self.study.name}' round {self.round.number}"
        if self.unchanged:
            return f"{where} was already imported from these files with these decisions: nothing changed."
        added = ""
        if self.categories_added:
            version = self.study.taxonomy_version
            added = f"; {self.categories_added} categories added to {version.taxonomy.slug} v{version.number} (draft)"
        pending = f" ({self.pending} waiting for adjudication)" if self.pending else ""
        return (
            f"{where}: {self.study_issues} issues ({self.issues_created} new), {self.annotations} annotations, "
            f"{self.resolutions} resolutions{pending}{added}; {len(self.warnings)} warning(s)."
        )


def sheets_import(
    *, request: SheetsImportRequest, actor=None, owner=None, progress: Callable[[int], None] | None = None
) -> SheetsImportResult:
    """Import one round of rater spreadsheets into a study (created if needed). ``actor`` None: an operator
    at the command line; otherwise the user must be allowed to manage imports (and the study), and to maintain
    taxonomies for any category the import adds. ``owner``: who owns a study it creates (default: the actor)."""
    with transaction.atomic():
        return _import(request, actor, progress, owner or actor)


def _import(request: SheetsImportRequest, actor, progress, owner) -> SheetsImportResult:
    plan = sheets_import_plan(request=request)
    if plan.undecided:
        raise LabelDecisionsNeeded(plan)
    if plan.errors:
        shown = plan.errors[:PROBLEMS_SHOWN]
        if len(plan.errors) > len(shown):
            shown.append(f"... and {len(plan.errors) - len(shown)} more.")
        raise SheetsImportError("Nothing was imported:", problems=shown)
    request = plan.request
    if actor is not None and not can_manage_imports(actor):
        raise PermissionDeniedError("Only study owners and staff can import studies.")
    study = plan.study
    if study is not None:
        study = Study.objects.select_for_update().get(pk=study.pk)
        if actor is not None and not can_manage_study(actor, study):
            raise PermissionDeniedError(f"Only the owner of '{study.name}' can import into it.")
    fingerprint = request.fingerprint(applied=plan.mapping)
    if study is not None:
        done = next((r for r in study.rounds.all() if _fingerprint_of(r) == fingerprint), None)
        if done is not None:
            return SheetsImportResult(
                study=study, round=done, unchanged=True, warnings=plan.warnings, mapping=plan.mapping
            )

    now = timezone.now()
    result_version, categories = _taxonomy(plan, study, actor)
    version, created_version = result_version
    dimensions = {d.key: d for d in version.dimensions.filter(key__in=[c.dimension for c in request.columns])}
    study = _study(plan, study, version, dimensions, owner)
    raters = _raters(plan, study)
    study_round = _round(plan, study, fingerprint, actor)
    study_issues, issues_created, issues_found, warnings = _study_issues(plan, study, study_round)

    result = SheetsImportResult(
        study=study,
        round=study_round,
        issues_created=issues_created,
        issues_found=issues_found,
        study_issues=len(study_issues),
        categories_added=sum(1 for c in categories.values() if c is not None and c.added),
        version_created=created_version,
        warnings=[*plan.warnings, *warnings],
        mapping=plan.mapping,
        unknown=plan.unknown,
    )
    _annotations(plan, study_issues, raters, categories, dimensions, actor, now, result, progress)
    final = _final_labels(plan, study_issues, categories) if request.final else {}
    compared = round_resolutions_compare(study=study, study_round=study_round, final=final, actor=actor, now=now)
    result.resolutions = compared.created
    result.pending = compared.pending
    rater_progress_rebuild(study=study)  # the raters' progress counters, for the rounds just written
    phase = Study.Phase.ADJUDICATION if request.final else Study.Phase.LABELLING
    if study.phase in (Study.Phase.PILOT, Study.Phase.LABELLING) and study.phase != phase:
        study.phase = phase
        study.save(update_fields=["phase", "updated_at"])
    study_round.size = study_round.drawn = len(study_issues)
    study_round.save(update_fields=["size", "drawn"])
    study_labels_changed(study_id=study.pk)  # last: the agreement report is stale once these labels commit
    return result


def _fingerprint_of(study_round: StudyRound) -> str | None:
    return study_round.filters.get(IMPORT_TAG, {}).get("fingerprint")


@dataclass(slots=True)
class _CategoryRef:
    pk: int
    added: bool = False


def _taxonomy(plan: SheetsImportPlan, study: Study | None, actor):
    """The version to label with, made a draft (copy) when labels must be added; categories by (dimension, code
    or label). Each taxonomy change is the actor's (a taxonomy maintainer's, see taxonomy_drafts)."""
    request = plan.request
    version, created = plan.version, None
    if version is None:
        version = created = taxonomy_draft_create(
            name=request.study_name.strip(),
            description=f"Built from the labels of {_files(plan)} by import_sheets.",
            actor=actor,
        )
    elif plan.unknown and version.is_published:
        if study is not None:
            raise SheetsImportError(
                f"'{study.name}' labels with {version.taxonomy.slug} v{version.number}, which is published, so no "
                "category can be added to it. Map the labels to existing categories in a label mapping file:",
                problems=[str(u) for u in plan.unknown[:PROBLEMS_SHOWN]],
            )
        version = created = version_draft_copy(
            version=version,
            changelog=f"Draft with the labels of {_files(plan)} that fit no category (import_sheets).",
            actor=actor,
        )
    existing = {d.key: d for d in version.dimensions.all()}
    for column_map in request.columns:
        if column_map.dimension not in existing:
            existing[column_map.dimension] = dimension_add(
                version=version, key=column_map.dimension, name=column_map.label_column, actor=actor
            )
    refs: dict[tuple[str, str | None, str], _CategoryRef | None] = {}
    rows = Category.objects.filter(dimension__version=version).values_list("dimension__key", "code", "pk")
    for key, code, pk in rows:
        refs[(key, code, "")] = _CategoryRef(pk)
    for unknown in plan.unknown:
        category = category_add(
            dimension=existing[unknown.dimension],
            name=unknown.display,
            provenance=f"added from {unknown.first.source} by import_sheets",
            actor=actor,
        )
        refs[(unknown.dimension, None, unknown.label)] = _CategoryRef(category.pk, added=True)
    return (version, created), refs


def _files(plan: SheetsImportPlan) -> str:
    return ", ".join(plan.request.display_name(p) for p in plan.request.paths)


def _study(plan, study, version, dimensions: dict[str, Dimension], owner) -> Study:
    request = plan.request
    if study is None:
        name = request.study_name.strip()
        base = slugify(name)[:180] or "study"
        slug, n = base, 1
        while Study.objects.filter(slug=slug).exists():
            n += 1
            slug = f"{base}-{n}"
        study = Study.objects.create(
            name=name,
            slug=slug,
            description=f"Imported from rater spreadsheets ({_files(plan)}).",
            taxonomy_version=version,
            raters_per_issue=len(request.raters),
            assignment_mode=Study.AssignmentMode.FIXED,
            blind=True,
            phase=Study.Phase.LABELLING,
            created_by=owner,
        )
        if owner is not None:
            StudyMember.objects.create(study=study, user=owner, role=StudyMember.Role.OWNER)
    if len(request.raters) > study.raters_per_issue:
        study.raters_per_issue = len(request.raters)
        study.save(update_fields=["raters_per_issue", "updated_at"])
    study.dimensions.add(*dimensions.values())
    return study


def _raters(plan: SheetsImportPlan, study: Study) -> dict[str, object]:
    """The user of each rater sheet: named with --rater-users, else an inactive user per sheet."""
    request, users = plan.request, get_user_model()
    if request.rater_users:
        found = {u.username: u for u in users.objects.filter(username__in=request.rater_users)}
        missing = [name for name in request.rater_users if name not in found]
        if missing:
            raise SheetsImportError(f"There is no user {', '.join(repr(m) for m in missing)}; create them first.")
        chosen = dict(zip(request.raters, (found[name] for name in request.rater_users), strict=True))
    else:
        chosen = {}
        for sheet in request.raters:
            username = f"{study.slug}-{slugify(plan.sheets[sheet].name) or 'rater'}"[:150]
            user, created = users.objects.get_or_create(username=username, defaults={"is_active": False})
            if created:
                user.set_unusable_password()
                user.save(update_fields=["password"])
            chosen[sheet] = user
    for user in chosen.values():
        StudyMember.objects.get_or_create(study=study, user=user, role=StudyMember.Role.RATER)
    return chosen


def _round(plan: SheetsImportPlan, study: Study, fingerprint: str, actor) -> StudyRound:
    request = plan.request
    highest = study.rounds.aggregate(n=Max("number"))["n"] or 0
    number = request.round_number or highest + 1
    existing = study.rounds.filter(number=number).first()
    if existing is not None:
        source = existing.filters.get(IMPORT_TAG, {}).get("files") or ["a sample drawn in Taxonomist"]
        raise SheetsImportError(
            f"Round {number} of '{study.name}' exists already (from {', '.join(source)}) with other data or "
            f"decisions. Import into round {highest + 1} (--round {highest + 1}), or into another study."
        )
    return StudyRound.objects.create(
        study=study,
        number=number,
        kind=StudyRound.Kind.MAIN,
        filters={
            IMPORT_TAG: {
                **request.decisions(),
                "fingerprint": fingerprint,
                "label_mapping_applied": mapping_rows(plan.mapping),
            }
        },
        size=0,
        seed=0,
        pool_size=len(plan.table.items),
        created_by=actor,
    )


def issue_record_for_link(url: str) -> IssueRecord:
    """A minimal issue for a link: GitHub links give the repository and number, e.g. "horovod/horovod#106"."""
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    github = parts.netloc == "github.com" and len(segments) >= 4
    number = ascii_int(segments[3]) if github else None
    if number is not None and segments[2] in ("issues", "pull"):
        owner, name, kind = segments[0], segments[1], segments[2]
        return IssueRecord(
            url=url,
            title=f"{owner}/{name}#{number}",
            repository=RepositoryRef(owner=owner, name=name),
            number=number,
            kind="pull" if kind == "pull" else "issue",
        )
    return IssueRecord(url=url, title=f"{parts.netloc}{parts.path}"[:1000], kind="post")


def _study_issues(plan: SheetsImportPlan, study: Study, study_round: StudyRound):
    items = list(plan.table.items)
    known = dict(Issue.objects.filter(url__in=items).values_list("url", "pk"))
    # Issues stored already (perhaps with their full text) are used as they are, never overwritten.
    upserted = issues_upsert(records=[issue_record_for_link(url) for url in items if url not in known])
    ids = dict(Issue.objects.filter(url__in=items).values_list("url", "pk"))
    lost = [url for url in items if url not in ids]
    if lost:
        raise SheetsImportError("These links could not be stored as issues:", problems=lost[:PROBLEMS_SHOWN])
    earlier = dict(
        StudyIssue.objects.filter(study=study, issue_id__in=ids.values()).values_list("issue_id", "round__number")
    )
    warnings = []
    position = (StudyIssue.objects.filter(study=study).aggregate(n=Max("position"))["n"] or 0) + 1
    rows = []
    for url in items:
        if ids[url] in earlier:
            sheet, line = next(iter(plan.table.rows[url].items()))
            warnings.append(
                f"{plan.source_of(sheet)}, sheet '{plan.sheets[sheet].name}', line {line}: '{url}' is already in "
                f"round {earlier[ids[url]]} of this study; an issue is in a study once, so these labels are left out."
            )
            continue
        rows.append((url, StudyIssue(study=study, issue_id=ids[url], round=study_round, position=position)))
        position += 1
    if not rows:
        rounds = ", ".join(str(n) for n in sorted(set(earlier.values())))
        raise SheetsImportError(
            f"Every issue of {_files(plan)} is already in round(s) {rounds} of '{study.name}'; there is nothing "
            "new to import. To import the same files with other decisions, use a new study."
        )
    created = _bulk_with_ids(StudyIssue, [row for _, row in rows])
    study_issues = {url: si for (url, _), si in zip(rows, created, strict=True)}
    return study_issues, upserted.created, len(items) - upserted.created, warnings


def _category_ids(plan, categories, dimension: str, targets) -> list[int]:
    ids = []
    for target in targets:
        ref = categories[(dimension, target.code, "")] if target.code else categories[(dimension, None, target.label)]
        ids.append(ref.pk)
    return list(dict.fromkeys(ids))


def _annotations(plan, study_issues, raters, categories, dimensions, actor, now, result, progress) -> None:
    table = plan.table
    assignments, notes, values = [], [], []
    for url, study_issue in study_issues.items():
        for sheet, user in raters.items():
            if sheet not in table.rows[url]:
                continue  # this rater's sheet has no row for the issue: not assigned to them
            assignments.append(
                Assignment(
                    study_issue=study_issue,
                    rater=user,
                    study_id=study_issue.study_id,
                    position=study_issue.position,
                    status=Assignment.Status.SUBMITTED,
                    started_at=now,
                    submitted_at=now,
                )
            )
            cell = plan.values.get((sheet, url), {})
            line = table.rows[url][sheet]
            where = f"Imported from {plan.source_of(sheet)}, sheet '{plan.sheets[sheet].name}', line {line}."
            notes.append(where if cell else f"{where} Nothing was labelled in this row.")
            values.append({d: _category_ids(plan, categories, d, targets) for d, targets in cell.items()})
        if progress is not None:
            progress(1)
    assignments = _bulk_with_ids(Assignment, assignments)
    annotations = _bulk_with_ids(
        Annotation,
        [
            Annotation(assignment=a, note=note, submitted_at=now, frozen=True, version=1)
            for a, note in zip(assignments, notes, strict=True)
        ],
    )
    rows = [
        AnnotationValue(annotation=annotation, dimension=dimensions[key], category_id=pk)
        for annotation, by_dimension in zip(annotations, values, strict=True)
        for key, ids in by_dimension.items()
        for pk in ids
    ]
    AnnotationValue.objects.bulk_create(rows, batch_size=1000)
    AnnotationHistory.objects.bulk_create(
        [
            AnnotationHistory(
                annotation=annotation,
                actor=actor,
                action=AnnotationHistory.Action.SUBMIT,
                version=annotation.version,
                before={},
                after=annotation_snapshot(annotation, values=by_dimension),
            )
            for annotation, by_dimension in zip(annotations, values, strict=True)
        ],
        batch_size=1000,
    )
    # A rater's sheet is what they labelled on their own: their first, independent submission. The final
    # sheet (what they agreed on after discussion) becomes the resolutions.
    for annotation, by_dimension in zip(annotations, values, strict=True):
        first_submission_record(
            annotation=annotation,
            values=[(dimensions[key].pk, pk) for key, ids in by_dimension.items() for pk in ids],
            submitted_at=now,
            source=FirstSubmission.Source.SPREADSHEET,
        )
    result.annotations, result.values = len(annotations), len(rows)


def _bulk_with_ids(model, objects: list) -> list:
    created = model.objects.bulk_create(objects, batch_size=1000)
    # PostgreSQL and SQLite 3.35+ return the new ids, which the rows that follow point at.
    if any(obj.pk is None for obj in created):
        raise RuntimeError("This database does not return ids from bulk inserts; use PostgreSQL or SQLite 3.35+.")
    return created


def _final_labels(plan, study_issues, categories) -> dict[int, FinalLabels]:
    """The final sheet's labels of each issue it has a row for, by study issue id."""
    table, final = plan.table, plan.request.final
    found = {}
    for url, study_issue in study_issues.items():
        if final not in table.rows[url]:
            continue
        cell = plan.values.get((final, url), {})
        found[study_issue.pk] = FinalLabels(
            values={d: _category_ids(plan, categories, d, targets) for d, targets in cell.items()},
            note=(
                f"After discussion: {plan.source_of(final)}, sheet '{plan.sheets[final].name}', "
                f"line {table.rows[url][final]}."
            ),
        )
    return found
