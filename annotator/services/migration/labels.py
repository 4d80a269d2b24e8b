"""The study's rater labels, and which labels a program cannot carry: a category that was split or
deprecated needs a person to choose again."""

from annotator.models import AnnotationValue, Resolution, Study
from taxonomy.services.operations import CategoryFate

RELABEL = frozenset({"split", "deprecated"})


def study_rater_labels(study: Study) -> list[tuple[int, int, str, int]]:
    """(value id, annotation id, dimension key, category id) of every rater label in the study."""
    return list(
        AnnotationValue.objects.filter(annotation__assignment__study_issue__study=study)
        .order_by("annotation_id", "pk")
        .values_list("pk", "annotation_id", "dimension__key", "category_id")
    )


def stale_categories(values: dict | None, fates: dict[int, CategoryFate]) -> dict[str, list[int]]:
    """The split or deprecated categories of a final label, per dimension: a person decides those again."""
    found = {key: [int(pk) for pk in ids if fates[int(pk)].kind in RELABEL] for key, ids in (values or {}).items()}
    return {key: ids for key, ids in found.items() if ids}


def final_label_needs_reset(status: str, stale: dict[str, list[int]], reopened: bool) -> bool:
    """A final label goes back to adjudication when it used a split or deprecated category, or when it was
    decided on annotations that are now reopened. A pending or sent-back one whose raters re-label is left
    as it is: the automatic comparison redoes it when they have all submitted again."""
    return bool(stale) or (reopened and status == Resolution.Status.RESOLVED)
