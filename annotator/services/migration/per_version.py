"""The labels under any version the study has used, read back from its moves, and agreement per version."""

from dataclasses import dataclass

from annotator.models import Annotation, Study, StudyVersionMove
from annotator.selectors.studies import study_dimensions
from core.errors import DomainError
from taxonomy.models import TaxonomyVersion

from .labels import study_rater_labels


@dataclass(frozen=True)
class LabelRow:
    annotation_id: int
    study_issue_id: int
    rater_id: int
    submitted: bool
    values: dict[str, list[int]]


def labels_as_of_version(*, study: Study, version: TaxonomyVersion) -> list[LabelRow]:
    """Every rater label of the study as it was under `version` (current labels for the current version).

    For an earlier version, the labels are those recorded when the study was moved away from it.
    """
    if version.pk == study.taxonomy_version_id:
        values: dict[int, dict[str, list[int]]] = {}
        for _pk, annotation_id, key, category_id in study_rater_labels(study):
            values.setdefault(annotation_id, {}).setdefault(key, []).append(category_id)
        submitted = None
    else:
        move = StudyVersionMove.objects.filter(study=study, from_version=version).order_by("-at", "-pk").first()
        if move is None:
            raise DomainError(f"This study never labelled with v{version.number} of the taxonomy.")
        stored = move.before.get("annotations", {})
        values = {int(a): row["values"] for a, row in stored.items()}
        submitted = {int(a): row["submitted"] for a, row in stored.items()}
    rows = Annotation.objects.filter(assignment__study_issue__study=study).values_list(
        "pk", "assignment__study_issue_id", "assignment__rater_id", "submitted_at"
    )
    out = []
    for annotation_id, study_issue_id, rater_id, submitted_at in rows.order_by("pk"):
        if annotation_id not in values:
            continue
        was_submitted = submitted_at is not None if submitted is None else submitted.get(annotation_id, False)
        out.append(LabelRow(annotation_id, study_issue_id, rater_id, was_submitted, values[annotation_id]))
    return out


def agreement_per_version(*, study: Study) -> list[dict]:
    """Percent agreement and Krippendorff's alpha per dimension under each version the study has used."""
    # Imported here: the measures bring numpy, scipy and statsmodels, which a web worker that serves only raters
    # never needs in memory.
    from annotator.agreement import krippendorff_alpha, percent_agreement

    versions = [move.from_version for move in study.version_moves.select_related("from_version").order_by("at")]
    versions.append(study.taxonomy_version)
    unique = list({v.pk: v for v in versions}.values())
    dimensions = study_dimensions(study=study)
    keys = [dimension.key for dimension in dimensions]
    names = {dimension.key: dimension.name for dimension in dimensions}
    result = []
    for version in unique:
        rows = [row for row in labels_as_of_version(study=study, version=version) if row.submitted]
        for key in keys:
            by_issue: dict[int, list] = {}
            for row in rows:
                if key in row.values:
                    by_issue.setdefault(row.study_issue_id, []).append("|".join(map(str, sorted(row.values[key]))))
            columns = [labels for labels in by_issue.values() if len(labels) >= 2]
            width = max((len(c) for c in columns), default=0)
            data = [[c[i] if i < len(c) else None for c in columns] for i in range(width)]
            result.append(
                {
                    "version": version.number,
                    "dimension": key,
                    "dimension_name": names[key],
                    "issues": len(columns),
                    "percent": percent_agreement(data) if columns else float("nan"),
                    "alpha": krippendorff_alpha(data) if columns else float("nan"),
                }
            )
    return result
