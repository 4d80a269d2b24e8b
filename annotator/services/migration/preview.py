"""What moving the study would do, counted without writing; shown to the owner before they confirm."""

from collections import Counter
from dataclasses import dataclass, field

from annotator.models import Annotation, Study
from taxonomy.models import Category, TaxonomyVersion
from taxonomy.services.operations import CategoryFate, version_category_map
from taxonomy.services.operations.mapping import KINDS

from .final_labels import final_label_rows
from .labels import RELABEL, _needs_reset, _stale, _values
from .targets import _check_target


@dataclass
class MovePreview:
    """What moving the study would do; shown to the owner before they confirm."""

    from_version: TaxonomyVersion
    to_version: TaxonomyVersion
    labels: Counter = field(default_factory=Counter)  # rater labels by fate kind
    resolution_labels: Counter = field(default_factory=Counter)
    per_dimension: dict[str, Counter] = field(default_factory=dict)
    annotations_to_reopen: int = 0
    annotations_pending_relabel: int = 0  # not yet submitted: already in the queue
    resolutions_to_reset: int = 0  # final labels that go back to adjudication
    examples: list[dict] = field(default_factory=list)  # a few affected categories, for the page

    @property
    def counts(self) -> dict[str, int]:
        return {kind: self.labels.get(kind, 0) for kind in KINDS}

    @property
    def resolution_rows(self) -> list[tuple[str, int]]:
        return [(kind, self.resolution_labels[kind]) for kind in KINDS if self.resolution_labels.get(kind)]

    @property
    def to_relabel(self) -> int:
        return sum(self.labels.get(kind, 0) for kind in RELABEL)


def study_version_preview(*, study: Study, to_version: TaxonomyVersion) -> MovePreview:
    _check_target(study, to_version)
    fates = version_category_map(from_version=study.taxonomy_version, to_version=to_version)
    preview = MovePreview(from_version=study.taxonomy_version, to_version=to_version)
    relabel_annotations = set()
    affected: Counter = Counter()
    for _pk, annotation_id, key, category_id in _values(study):
        kind = fates[category_id].kind
        preview.labels[kind] += 1
        preview.per_dimension.setdefault(key, Counter())[kind] += 1
        if kind in RELABEL:
            relabel_annotations.add(annotation_id)
        if kind != "unchanged":
            affected[category_id] += 1
    to_reopen = dict(
        Annotation.objects.filter(pk__in=relabel_annotations, submitted_at__isnull=False).values_list(
            "pk", "assignment__study_issue_id"
        )
    )
    preview.annotations_to_reopen = len(to_reopen)
    preview.annotations_pending_relabel = len(relabel_annotations - set(to_reopen))
    reopened_issues = set(to_reopen.values())
    for study_issue_id, status, values in final_label_rows(study=study):
        for ids in (values or {}).values():
            for category_id in ids:
                preview.resolution_labels[fates[int(category_id)].kind] += 1
        if _needs_reset(status, _stale(values, fates), study_issue_id in reopened_issues):
            preview.resolutions_to_reset += 1
    names = dict(Category.objects.filter(pk__in=[*affected, *_all_targets(fates, affected)]).values_list("pk", "name"))
    for category_id, n in affected.most_common(20):
        fate = fates[category_id]
        preview.examples.append(
            {"name": names[category_id], "kind": fate.kind, "labels": n, "to": [names[t] for t in fate.targets]}
        )
    return preview


def _all_targets(fates: dict[int, CategoryFate], ids) -> set[int]:
    return {t for pk in ids for t in fates[pk].targets}
