"""Test helpers for final labels, which are ResolutionValue rows: read them as {key: [ids]}, or make a resolution
with given labels (as the services store them: a decided dimension has its method)."""

from annotator.models import Resolution, StudyIssue
from annotator.selectors.resolution_values import category_ids, resolution_labels_fresh
from annotator.services.resolutions.rows import version_dimension_ids
from annotator.services.resolutions.values import resolution_values_replace


def values_of(resolution: Resolution) -> dict[str, list[int]]:
    """The category ids of a resolution's final labels per decided dimension, as stored now."""
    resolution.refresh_from_db()
    return category_ids(resolution_labels_fresh(resolution))


def resolution_make(*, study_issue: StudyIssue, values: dict, **fields) -> Resolution:
    fields.setdefault("methods", dict.fromkeys(values, fields.get("method") or Resolution.Method.UNANIMOUS))
    resolution = Resolution.objects.create(study_issue=study_issue, **fields)
    study_issue = StudyIssue.objects.select_related("study").get(pk=resolution.study_issue_id)
    resolution_values_replace(
        resolution=resolution,
        labels=values,
        dimension_ids=version_dimension_ids(study_issue.study.taxonomy_version_id),
    )
    return resolution
