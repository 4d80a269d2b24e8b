"""Publishing a study: each publication is a frozen release, readable without login at a stable address.

Publishing writes release n (1 the first time): the taxonomy version (published too, so it cannot change), the
public dataset, the agreement report, the findings, README, citation, checksums and the replication package, as
files that are never changed (annotator/models/releases.py). Changing the study afterwards (more adjudication, a version
move) touches no release: the owner publishes release n+1 with a change note; publishing an unchanged study
again is refused. Unpublishing hides releases (their addresses answer 404) and is undone by showing them again.
The study is in the "published" phase exactly while at least one of its releases is visible.

Every write here has a preview (``*_preview``) that says what it would do, with counts, and writes nothing:
the confirmation pages and the API's ``dry_run`` show it.
"""

import hashlib
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotator.models import PhaseChange, Release, ReleaseFile, ReleaseVisibilityChange, Resolution, Study
from annotator.permissions import can_manage_study
from annotator.selectors.releases import release_dataset, releases_with_visibility
from core.errors import ConflictError, DomainError, PermissionDeniedError
from taxonomy.models import TaxonomyVersion
from taxonomy.services.versions import version_publish

from .releases import (
    FILE_TYPES,
    Citation,
    ReleaseContent,
    dataset_changes,
    release_content,
    release_files,
    study_authors,
)

PUBLISHED = Study.Phase.PUBLISHED
CHANGE_NOTE_MAX = 5000


def _check_owner(actor, study: Study, verb: str) -> None:
    if not can_manage_study(actor, study):
        raise PermissionDeniedError(f"Only the study's owner can {verb} it.")


def release_path(*, slug: str, number: int) -> str:
    return f"/p/{slug}/releases/{number}/"


# --- publish --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class PublishPreview:
    """What publishing now would do: the release it would make, with counts, or why it is refused."""

    number: int
    issues: int
    excluded: int
    open_issues: int
    taxonomy_version: str
    publishes_taxonomy_version: bool
    previous: int | None = None
    previous_taxonomy_version: str | None = None
    changes: dict[str, int | bool] = field(default_factory=dict)
    refusal: DomainError | None = None
    content: ReleaseContent | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "release": self.number,
            "issues": self.issues,
            "excluded": self.excluded,
            "open_issues": self.open_issues,
            "taxonomy_version": self.taxonomy_version,
            "publishes_taxonomy_version": self.publishes_taxonomy_version,
            "previous_release": self.previous,
            "previous_taxonomy_version": self.previous_taxonomy_version,
            "changes": self.changes or None,  # None: no previous release to compare with
            "change_note_required": self.previous is not None,
            "allowed": self.refusal is None,
            "refusal": self.refusal.message if self.refusal else None,
        }


def _version_label(version: TaxonomyVersion) -> str:
    return f"{version.taxonomy.slug} v{version.number}"


def _preview(study: Study) -> PublishPreview:
    """The preview of ``study`` (locked by the caller when it goes on to publish)."""
    version = study.taxonomy_version
    resolutions = Resolution.objects.filter(study_issue__study=study)
    open_count = resolutions.exclude(status=Resolution.Status.RESOLVED).count()
    resolved = resolutions.filter(status=Resolution.Status.RESOLVED).count()
    last = Release.objects.filter(study=study).select_related("taxonomy_version__taxonomy").order_by("-number").first()
    preview = PublishPreview(
        number=(last.number + 1) if last else 1,
        issues=resolved,
        excluded=resolutions.filter(status=Resolution.Status.RESOLVED, excluded=True).count(),
        open_issues=open_count,
        taxonomy_version=_version_label(version),
        publishes_taxonomy_version=version.status != TaxonomyVersion.Status.PUBLISHED,
        previous=last.number if last else None,
        previous_taxonomy_version=_version_label(last.taxonomy_version) if last else None,
    )
    if open_count:
        preview.refusal = DomainError(
            f"{open_count} issue(s) still wait for adjudication or are back with their raters; "
            "settle them on the adjudication page before publishing."
        )
        return preview
    if not resolved + open_count:
        preview.refusal = DomainError(
            "Nothing to publish yet: no issue has a final label. Publish once raters have labelled the sample."
        )
        return preview
    content = release_content(study=study)
    preview.content = content
    if last is not None:
        preview.changes = dataset_changes(before=list(release_dataset(release=last)), after=content.dataset)
        preview.changes["findings_changed"] = _findings_changed(last, content)
        if content.fingerprint == last.content_sha256:
            shown = releases_with_visibility(study=study).get(pk=last.pk).shown
            hint = "" if shown else " It is hidden: publish it again from the study's releases instead."
            preview.refusal = ConflictError(
                f"Nothing changed since release {last.number}: it already holds this taxonomy version, dataset, "
                f"agreement report and findings.{hint}"
            )
    return preview


def _findings_changed(last: Release, content: ReleaseContent) -> bool:
    """Whether the findings differ from the last release's (one published before releases held findings: yes)."""
    frozen = ReleaseFile.objects.filter(release=last, name="findings.json").values_list("sha256", flat=True).first()
    return frozen != hashlib.sha256(content.files["findings.json"]).hexdigest()


def study_publish_preview(*, study: Study, actor, change_note: str | None = None) -> PublishPreview:
    """What ``study_publish`` would do now; writes nothing. Only owners may ask.

    With ``change_note`` (an API dry run carries the note it would send) the note is checked as the publish
    would check it, so a dry run is refused exactly when the real call would be."""
    _check_owner(actor, study, "publish")
    study = Study.objects.select_related("taxonomy_version__taxonomy").get(pk=study.pk)
    preview = _preview(study)
    if preview.refusal is None and change_note is not None:
        try:
            _clean_note(change_note, preview)
        except DomainError as exc:
            preview.refusal = exc
    return preview


def _clean_note(change_note: str, preview: PublishPreview) -> str:
    note = (change_note or "").strip()
    if preview.previous is not None and not note:
        raise DomainError(
            f"Say what changed since release {preview.previous}: the change note is shown with release "
            f"{preview.number} and in its README.",
            field="change_note",
        )
    if len(note) > CHANGE_NOTE_MAX:
        raise DomainError(f"A change note holds at most {CHANGE_NOTE_MAX} characters.", field="change_note")
    return note


@transaction.atomic
def study_publish(*, study: Study, actor, change_note: str = "", base_url: str = "") -> Release:
    """Publish the study as its next release (1, 2, ...). Every issue must have its final label; from release 2
    on a change note is required, and an unchanged study is refused. ``base_url`` (e.g. https://host) makes the
    citation's address absolute."""
    _check_owner(actor, study, "publish")
    locked = Study.objects.select_for_update().select_related("taxonomy_version__taxonomy").get(pk=study.pk)
    preview = _preview(locked)
    if preview.refusal is not None:
        raise preview.refusal
    note = _clean_note(change_note, preview)
    version = locked.taxonomy_version
    if version.status != TaxonomyVersion.Status.PUBLISHED:
        version_publish(version=version)
    if locked.phase != PUBLISHED:
        _phase_to_published(locked, actor, figures={"resolved": preview.issues, "release": preview.number})
    now = timezone.now()
    citation = Citation(
        authors=study_authors(study=locked),
        title=locked.name,
        number=preview.number,
        date=now,
        url=base_url.rstrip("/") + release_path(slug=locked.slug, number=preview.number),
    )
    files = release_files(study=locked, content=preview.content, citation=citation, change_note=note)
    release = Release.objects.create(
        study=locked,
        number=preview.number,
        taxonomy_version=version,
        created_by=actor,
        created_at=now,
        change_note=note,
        content_sha256=preview.content.fingerprint,
        figures={**preview.content.figures, "citation": citation.text, "files": len(files)},
    )
    ReleaseFile.objects.bulk_create(
        ReleaseFile(
            release=release,
            name=name,
            content_type=FILE_TYPES[name],
            content=data,
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
        )
        for name, data in sorted(files.items())
    )
    study.phase = locked.phase
    return release


def _phase_to_published(study: Study, actor, *, figures: dict[str, Any]) -> None:
    version = study.taxonomy_version
    PhaseChange.objects.create(
        study=study,
        from_phase=study.phase,
        to_phase=PUBLISHED,
        actor=actor,
        figures={**figures, "taxonomy_version": _version_label(version)},
    )
    study.phase = PUBLISHED
    study.save(update_fields=["phase", "updated_at"])


# --- unpublish and publish again (visibility) -----------------------------------------------------------


@dataclass(slots=True)
class VisibilityPreview:
    """What hiding or showing releases would do: which releases change, which stay as they are, the phase."""

    changed: list[int]
    visible_after: list[int]
    phase_before: str
    phase_after: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "releases": self.changed,
            "visible_after": self.visible_after,
            "phase_before": self.phase_before,
            "phase_after": self.phase_after,
        }


def _previous_phase(study: Study) -> str:
    last = PhaseChange.objects.filter(study=study, to_phase=PUBLISHED).order_by("-at", "-id").first()
    return last.from_phase if last and last.from_phase != PUBLISHED else Study.Phase.ADJUDICATION


def _visibility_preview(study: Study, *, numbers: list[int] | None, visible: bool) -> VisibilityPreview:
    releases = list(releases_with_visibility(study=study).order_by("number"))
    if not releases:
        raise ConflictError("This study has no release yet: publish it first.")
    known = {r.number for r in releases}
    if numbers is not None:
        unknown = sorted(set(numbers) - known)
        if unknown or not numbers:
            shown = ", ".join(str(n) for n in sorted(known))
            named = ", ".join(map(str, unknown)) or "(none named)"
            raise DomainError(
                f"This study has no release {named}; its releases are: {shown}.",
                field="releases",
            )
    wanted = set(numbers) if numbers is not None else known
    changed = [r.number for r in releases if r.number in wanted and r.shown != visible]
    if not changed:
        state = "visible" if visible else "hidden"
        raise ConflictError(f"Nothing to do: the release(s) named are already {state}.")
    visible_after = [
        r.number for r in releases if (r.number in changed and visible) or (r.shown and r.number not in changed)
    ]
    phase_after = study.phase
    if visible_after:
        phase_after = PUBLISHED
    elif study.phase == PUBLISHED:
        phase_after = _previous_phase(study)
    return VisibilityPreview(changed, visible_after, study.phase, phase_after)


def study_unpublish_preview(*, study: Study, actor, releases: list[int] | None = None) -> VisibilityPreview:
    _check_owner(actor, study, "unpublish")
    return _visibility_preview(Study.objects.get(pk=study.pk), numbers=releases, visible=False)


def study_republish_preview(*, study: Study, actor, releases: list[int] | None = None) -> VisibilityPreview:
    _check_owner(actor, study, "publish")
    return _visibility_preview(Study.objects.get(pk=study.pk), numbers=releases, visible=True)


@transaction.atomic
def _visibility_set(
    *, study: Study, actor, releases: list[int] | None, visible: bool, reason: str
) -> VisibilityPreview:
    locked = Study.objects.select_for_update().select_related("taxonomy_version__taxonomy").get(pk=study.pk)
    preview = _visibility_preview(locked, numbers=releases, visible=visible)
    reason = (reason or "").strip()[:CHANGE_NOTE_MAX]
    targets = Release.objects.filter(study=locked, number__in=preview.changed)
    ReleaseVisibilityChange.objects.bulk_create(
        ReleaseVisibilityChange(release=release, visible=visible, actor=actor, reason=reason) for release in targets
    )
    if preview.phase_after != locked.phase:
        if preview.phase_after == PUBLISHED:
            latest = max(preview.visible_after)
            _phase_to_published(locked, actor, figures={"release": latest, "shown_again": preview.changed})
        else:
            PhaseChange.objects.create(
                study=locked, from_phase=PUBLISHED, to_phase=preview.phase_after, actor=actor, reason=""
            )
            locked.phase = preview.phase_after
            locked.save(update_fields=["phase", "updated_at"])
    study.phase = locked.phase
    return preview


def study_unpublish(*, study: Study, actor, releases: list[int] | None = None, reason: str = "") -> VisibilityPreview:
    """Hide the named releases (all visible ones by default): their addresses answer 404; nothing is deleted.
    When no release stays visible the study goes back to the phase it was in before publishing."""
    _check_owner(actor, study, "unpublish")
    return _visibility_set(study=study, actor=actor, releases=releases, visible=False, reason=reason)


def study_republish(*, study: Study, actor, releases: list[int] | None = None, reason: str = "") -> VisibilityPreview:
    """Undo an unpublish: show the named hidden releases again (all hidden ones by default), unchanged."""
    _check_owner(actor, study, "publish")
    return _visibility_set(study=study, actor=actor, releases=releases, visible=True, reason=reason)
