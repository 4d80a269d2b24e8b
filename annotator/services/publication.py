"""Publishing a study: its taxonomy version, final dataset and agreement figures become public.

A published study is readable without login at stable addresses (/p/<slug>/ and
/api/v1/public/studies/<slug>/...); an unpublished one stays private. Publishing freezes the
taxonomy version the study used, so the public categories cannot change under the dataset.
"""

from django.db import transaction

from annotator.models import PhaseChange, Resolution, Study
from annotator.permissions import can_manage_study
from core.errors import ConflictError, DomainError, PermissionDeniedError
from taxonomy.models import TaxonomyVersion
from taxonomy.services.versions import version_publish

PUBLISHED = Study.Phase.PUBLISHED


def _check_owner(actor, study: Study, verb: str) -> None:
    if not can_manage_study(actor, study):
        raise PermissionDeniedError(f"Only the study's owner can {verb} it.")


@transaction.atomic
def study_publish(*, study: Study, actor) -> Study:
    """Publish the study: every issue must have its final label; the taxonomy version is published too."""
    _check_owner(actor, study, "publish")
    locked = Study.objects.select_for_update().select_related("taxonomy_version__taxonomy").get(pk=study.pk)
    if locked.phase == PUBLISHED:
        raise ConflictError("This study is already published.")
    resolutions = Resolution.objects.filter(study_issue__study=locked)
    open_count = resolutions.exclude(status=Resolution.Status.RESOLVED).count()
    if open_count:
        raise DomainError(
            f"{open_count} issue(s) still wait for adjudication or are back with their raters; "
            "settle them on the adjudication page before publishing."
        )
    resolved = resolutions.count()
    if not resolved:
        raise DomainError(
            "Nothing to publish yet: no issue has a final label. Publish once raters have labelled the sample."
        )
    version = locked.taxonomy_version
    if version.status != TaxonomyVersion.Status.PUBLISHED:
        version_publish(version=version)
    PhaseChange.objects.create(
        study=locked,
        from_phase=locked.phase,
        to_phase=PUBLISHED,
        actor=actor,
        figures={"resolved": resolved, "taxonomy_version": f"{version.taxonomy.slug} v{version.number}"},
    )
    locked.phase = PUBLISHED
    locked.save(update_fields=["phase", "updated_at"])
    study.phase = locked.phase
    return locked


@transaction.atomic
def study_unpublish(*, study: Study, actor) -> Study:
    """Take the study back to the phase it was in before publishing; its public addresses answer 404 again."""
    _check_owner(actor, study, "unpublish")
    locked = Study.objects.select_for_update().get(pk=study.pk)
    if locked.phase != PUBLISHED:
        raise ConflictError("This study is not published.")
    last = PhaseChange.objects.filter(study=locked, to_phase=PUBLISHED).order_by("-at", "-id").first()
    previous = last.from_phase if last and last.from_phase != PUBLISHED else Study.Phase.ADJUDICATION
    PhaseChange.objects.create(study=locked, from_phase=PUBLISHED, to_phase=previous, actor=actor)
    locked.phase = previous
    locked.save(update_fields=["phase", "updated_at"])
    study.phase = locked.phase
    return locked
