"""The versions a study can move to: published later versions of its taxonomy along its lineage."""

from annotator.models import Study
from core.errors import DomainError
from taxonomy.models import TaxonomyVersion


def study_version_targets(*, study: Study) -> list[TaxonomyVersion]:
    """Published versions of the study's taxonomy that follow its current version."""
    current = study.taxonomy_version
    found = []
    candidates = TaxonomyVersion.objects.filter(
        taxonomy_id=current.taxonomy_id, status=TaxonomyVersion.Status.PUBLISHED, number__gt=current.number
    ).order_by("number")
    for version in candidates:
        ancestor = version
        while ancestor is not None and ancestor.pk != current.pk:
            ancestor = ancestor.based_on
        if ancestor is not None:
            found.append(version)
    return found


def check_move_target(study: Study, to_version: TaxonomyVersion) -> None:
    """DomainError unless `to_version` is another published version of the study's own taxonomy."""
    if to_version.pk == study.taxonomy_version_id:
        raise DomainError(f"The study already uses v{to_version.number}.")
    if to_version.taxonomy_id != study.taxonomy_version.taxonomy_id:
        raise DomainError("A study can only move to a later version of its own taxonomy.")
    if not to_version.is_published:
        raise DomainError(f"v{to_version.number} is a draft; publish it before moving the study to it.")
