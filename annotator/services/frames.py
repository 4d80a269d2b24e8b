"""A study's sample frame: the issues its rounds may be drawn from, recorded with the study.

A frame is every imported issue, an import batch (a file or GitHub import), a set of repositories, a saved
issue search or an explicit list. Demo issues (shipped to try the tool) are in no frame unless listed
explicitly. Frames are append-only: setting another frame adds a row, and each round names the frame it was
drawn from.
"""

from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Max, QuerySet

from annotator.models import ImportedIssue, ImportJob, Issue, Repository, Study, StudyFrame
from annotator.selectors.imports import import_job_label, import_job_visible
from annotator.selectors.issues import IssueFilters, issues_filtered
from core.errors import DomainError, PermissionDeniedError

# An explicit list is typed or pasted by a person, or sent to the API: bounded like any outside input.
MAX_EXPLICIT_ISSUES = 5000
Kind = StudyFrame.Kind


@dataclass(frozen=True)
class FrameSpec:
    """What defines a frame, as a form or the API sends it (ids, not rows)."""

    kind: str = Kind.ALL
    import_job_id: int | None = None
    repository_ids: tuple[int, ...] = ()
    search: IssueFilters | None = None
    issue_ids: tuple[int, ...] = field(default_factory=tuple)


def _repositories(ids) -> list[Repository]:
    ids = sorted(set(ids))
    if not ids:
        raise DomainError("Choose at least one repository for the frame.", field="repositories")
    found = list(Repository.objects.filter(pk__in=ids).order_by("owner", "name"))
    if len(found) != len(ids):
        raise DomainError("A chosen repository does not exist (any more).", field="repositories")
    return found


def _explicit_ids(ids) -> list[int]:
    ids = sorted(set(ids))
    if not ids:
        raise DomainError("List at least one issue for the frame.", field="issues")
    if len(ids) > MAX_EXPLICIT_ISSUES:
        raise DomainError(f"An explicit frame lists at most {MAX_EXPLICIT_ISSUES} issues.", field="issues")
    found = set(Issue.objects.filter(pk__in=ids).values_list("pk", flat=True))
    missing = [pk for pk in ids if pk not in found]
    if missing:
        shown = ", ".join(str(pk) for pk in missing[:10])
        raise DomainError(f"No issue has the id {shown}.", field="issues")
    return ids


# The imports that record the issues they wrote or found unchanged (ImportedIssue): what a batch holds.
BATCH_KINDS = (ImportJob.Kind.FILE, ImportJob.Kind.GITHUB)


def _import_job(pk: int | None, *, actor, field: str) -> ImportJob:
    """A file or GitHub import the actor may see (None: a system caller, e.g. a command); DomainError if none."""
    job = ImportJob.objects.filter(pk=pk, kind__in=BATCH_KINDS).first() if pk else None
    if job is not None and actor is not None and import_job_visible(user=actor, pk=job.pk) is None:
        job = None  # another team's: refused like one that does not exist
    if job is None:
        raise DomainError("Choose a file or GitHub import for the frame.", field=field)
    return job


def _import_names(job: ImportJob) -> dict:
    """What a paper names an import by: the file of a file import, the repository of a GitHub import."""
    params = job.parameters or {}
    if job.kind == ImportJob.Kind.GITHUB:
        return {"repository_name": params.get("repository", "")}
    return {"filename": params.get("filename", "")}


def frame_definition(spec: FrameSpec, *, actor=None) -> tuple[dict, ImportJob | None]:
    """The frame's record (JSON-ready, with names a paper can quote) and its import job; DomainError if invalid.
    An import (a batch, or a search's import filter) must be one the actor may see."""
    if spec.kind == Kind.ALL:
        return {}, None
    if spec.kind == Kind.IMPORT_BATCH:
        job = _import_job(spec.import_job_id, actor=actor, field="import_job")
        if job.status != ImportJob.Status.DONE:
            raise DomainError(f"Import #{job.pk} is {job.get_status_display().lower()}, not done.", field="import_job")
        return {"import_job": job.pk, **_import_names(job)}, job
    if spec.kind == Kind.REPOSITORIES:
        repositories = _repositories(spec.repository_ids)
        return {"repositories": [r.pk for r in repositories], "names": [r.full_name for r in repositories]}, None
    if spec.kind == Kind.SEARCH:
        if spec.search is None or not spec.search.active:
            raise DomainError(
                "A saved search needs at least one criterion (words, label, state, dates...).", field="search"
            )
        if spec.search.created_from and spec.search.created_to and spec.search.created_from > spec.search.created_to:
            raise DomainError("The search's date range ends before it starts.", field="search")
        record = spec.search.to_record()
        if spec.search.repository:
            record["repository_name"] = _repositories([spec.search.repository])[0].full_name
        if spec.search.import_job:
            job = _import_job(spec.search.import_job, actor=actor, field="search")
            record["import_name"] = import_job_label(job)
        return record, None
    if spec.kind == Kind.EXPLICIT:
        return {"issues": _explicit_ids(spec.issue_ids)}, None
    raise DomainError(f"Unknown kind of frame '{spec.kind}'.", field="frame")


def frame_append(*, study: Study, actor, spec: FrameSpec, added: bool = False) -> StudyFrame:
    """Record a frame of the study (the caller holds the study's lock and has checked the actor)."""
    definition, job = frame_definition(spec, actor=actor)
    last = StudyFrame.objects.filter(study=study).aggregate(n=Max("number"))["n"] or 0
    return StudyFrame.objects.create(
        study=study,
        number=last + 1,
        kind=spec.kind,
        definition=definition,
        import_job=job,
        added=added,
        created_by=actor,
    )


@transaction.atomic
def study_frame_set(*, study: Study, actor, spec: FrameSpec) -> StudyFrame:
    """Set the frame later rounds are drawn from; the earlier frames (and what was drawn from them) stay."""
    from annotator.permissions import can_manage_study

    if not can_manage_study(actor, study):
        raise PermissionDeniedError("Only the study's owner can change its sample frame.")
    locked = Study.objects.select_for_update().get(pk=study.pk)
    return frame_append(study=locked, actor=actor, spec=spec)


def study_frame_current(*, study: Study) -> StudyFrame | None:
    """The frame the next draw uses: the latest one set (not one recording issues added by hand)."""
    return StudyFrame.objects.filter(study=study, added=False).order_by("-number").first()


def frame_issues(frame: StudyFrame | None) -> QuerySet[Issue]:
    """The issues of a frame (no frame: every imported issue). Demo issues only when listed explicitly."""
    if frame is not None and frame.kind == Kind.EXPLICIT:
        return Issue.objects.filter(pk__in=frame.definition.get("issues", []))
    if frame is None or frame.kind == Kind.ALL:
        issues = Issue.objects.all()
    elif frame.kind == Kind.IMPORT_BATCH:
        issues = Issue.objects.filter(pk__in=ImportedIssue.objects.filter(job_id=frame.import_job_id).values("issue"))
    elif frame.kind == Kind.REPOSITORIES:
        issues = Issue.objects.filter(repository_id__in=frame.definition.get("repositories", []))
    else:
        issues = issues_filtered(filters=IssueFilters.from_record(frame.definition))
    return issues.filter(demo=False).order_by()


def frame_summary(frame: StudyFrame | None) -> str:
    """The frame in one line, as the study page and the paper's method section state it."""
    if frame is None or frame.kind == Kind.ALL:
        return "every imported issue (demo issues left out)"
    d = frame.definition
    if frame.kind == Kind.IMPORT_BATCH:
        return f"import #{d.get('import_job')} ({d.get('filename') or d.get('repository_name') or 'file'})"
    if frame.kind == Kind.REPOSITORIES:
        return "repositories " + ", ".join(d.get("names", []))
    if frame.kind == Kind.EXPLICIT:
        n = len(d.get("issues", []))
        return f"{n} issue{'s' if n != 1 else ''} chosen one by one"
    parts = []
    if d.get("q"):
        parts.append(f"text “{d['q']}”")
    if d.get("repository_name"):
        parts.append(f"repository {d['repository_name']}")
    if d.get("import_job"):
        parts.append(f"import #{d['import_job']}" + (f" ({d['import_name']})" if d.get("import_name") else ""))
    for key in ("label", "state", "kind"):
        if d.get(key):
            parts.append(f"{key} {d[key]}")
    if d.get("created_from") or d.get("created_to"):
        parts.append(f"created {d.get('created_from') or '…'} to {d.get('created_to') or '…'}")
    return "saved search: " + "; ".join(parts)
