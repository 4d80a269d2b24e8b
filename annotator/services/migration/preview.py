"""What moving the study would do, counted without writing; shown to the owner before they confirm."""

from collections import Counter
from dataclasses import dataclass, field

from annotator.models import Annotation, Study
from annotator.selectors.studies import study_dimensions
from taxonomy.models import Category, Dimension, TaxonomyVersion
from taxonomy.services.operations import CategoryFate, version_category_map
from taxonomy.services.operations.mapping import KINDS

from .final_labels import final_label_proposals_preview, final_label_rows
from .labels import RELABEL, final_label_needs_reset, stale_categories, study_rater_labels
from .proposals import proposal_outcomes
from .targets import check_move_target

WHY_SHORT = {
    "absent": "sorted into a category this version lacks",
    "conflict": "beside another category in a single-valued dimension",
    "rejected": "rejected",
    "unsorted": "not sorted yet",
}


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
    labels_from_proposals: int = 0  # raters' proposals sorted into a category of the target: they become it
    proposal_annotations_to_relabel: int = 0  # annotations whose proposals cannot become a category: re-labelled
    proposals_to_relabel: Counter = field(default_factory=Counter)  # those proposals, by why
    final_proposals_to_category: int = 0  # final labels settled on a proposal the target has as a category
    final_proposals_kept: int = 0  # final labels settled on a proposal the target has no category for
    examples: list[dict] = field(default_factory=list)  # a few affected categories, for the page

    @property
    def counts(self) -> dict[str, int]:
        return {kind: self.labels.get(kind, 0) for kind in KINDS}

    @property
    def resolution_rows(self) -> list[tuple[str, int]]:
        return [(kind, self.resolution_labels[kind]) for kind in KINDS if self.resolution_labels.get(kind)]

    @property
    def proposal_relabel_rows(self) -> list[tuple[str, int]]:
        """Proposals that send their annotation to re-labelling, by why, in words."""
        return [(WHY_SHORT[why], n) for why, n in sorted(self.proposals_to_relabel.items())]

    @property
    def to_relabel(self) -> int:
        return sum(self.labels.get(kind, 0) for kind in RELABEL)


def study_version_preview(*, study: Study, to_version: TaxonomyVersion) -> MovePreview:
    check_move_target(study, to_version)
    fates = version_category_map(from_version=study.taxonomy_version, to_version=to_version)
    preview = MovePreview(from_version=study.taxonomy_version, to_version=to_version)
    relabel_annotations = set()
    affected: Counter = Counter()
    after: dict[int, dict[str, list[int]]] = {}
    for _pk, annotation_id, key, category_id in study_rater_labels(study):
        fate = fates[category_id]
        kind = fate.kind
        preview.labels[kind] += 1
        preview.per_dimension.setdefault(key, Counter())[kind] += 1
        if kind in RELABEL:
            relabel_annotations.add(annotation_id)
        if kind != "unchanged":
            affected[category_id] += 1
        held = after.setdefault(annotation_id, {}).setdefault(key, [])
        if fate.new_category is not None and fate.new_category not in held:
            held.append(fate.new_category)
    keys = {dimension.key for dimension in study_dimensions(study=study)}
    single = set(Dimension.objects.filter(version=to_version, multi_valued=False).values_list("key", flat=True))
    outcomes = proposal_outcomes(
        study=study,
        from_version=study.taxonomy_version,
        to_version=to_version,
        fates=fates,
        labels=after,
        keys=keys,
        single_valued=single & keys,
    )
    preview.labels_from_proposals = sum(outcome.becomes_label for outcome in outcomes)
    proposal_relabel = {outcome.annotation_id for outcome in outcomes if not outcome.becomes_label}
    preview.proposal_annotations_to_relabel = len(proposal_relabel)
    preview.proposals_to_relabel.update(outcome.why for outcome in outcomes if not outcome.becomes_label)
    relabel_annotations |= proposal_relabel
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
        if final_label_needs_reset(status, stale_categories(values, fates), study_issue_id in reopened_issues):
            preview.resolutions_to_reset += 1
    finals = final_label_proposals_preview(study=study, to_version=to_version)
    preview.final_proposals_to_category = finals["final_proposals_to_category"]
    preview.final_proposals_kept = finals["final_proposals_kept"]
    names = dict(Category.objects.filter(pk__in=[*affected, *_all_targets(fates, affected)]).values_list("pk", "name"))
    for category_id, n in affected.most_common(20):
        fate = fates[category_id]
        preview.examples.append(
            {"name": names[category_id], "kind": fate.kind, "labels": n, "to": [names[t] for t in fate.targets]}
        )
    return preview


def _all_targets(fates: dict[int, CategoryFate], ids) -> set[int]:
    return {t for pk in ids for t in fates[pk].targets}
