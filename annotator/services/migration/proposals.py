"""Open coding closes the loop on a move: each rater's proposal sorted on the card board becomes its category.

A proposal ("none fits — propose a new category") whose card was sorted into a new category, or made an alias
of an existing one, becomes that category on the proposing rater's annotation when the study moves to a
version that has it. Every other proposal sends its annotation to re-labelling: the rater decides.

- unsorted (no decision on its card yet) or rejected: re-label;
- sorted, but its category is not a selectable category of the target version (not applied to it, or
  split or deprecated there): re-label;
- a single-valued dimension that already holds a different category the rater chose: re-label, and both
  stay as they are (a program must not replace a rater's explicit choice); the same category: the proposal
  is settled without a second label.

The preview and the move both call `proposal_outcomes`, so the move does exactly what the preview said.
"""

from dataclasses import dataclass

from annotator.models import Annotation, ProposalDecision, Study
from annotator.selectors.cardsort import proposal_key
from taxonomy.models import Category, TaxonomyVersion
from taxonomy.services.operations import CategoryFate

from .labels import RELABEL


@dataclass(frozen=True)
class ProposalOutcome:
    """What the move does with one rater's proposal in one dimension."""

    annotation_id: int
    dimension_key: str
    text: str
    category_id: int | None  # the category of the target version it becomes; None: the annotation is re-labelled
    decision_id: int | None
    why: str  # for the rater when re-labelled: "unsorted", "rejected", "absent" or "conflict"
    adds_label: bool = False  # False when the annotation already holds that category

    @property
    def becomes_label(self) -> bool:
        return self.category_id is not None


def _resolver(from_version: TaxonomyVersion, to_version: TaxonomyVersion, fates: dict[int, CategoryFate]):
    """A function from a decision to the usable category id of `to_version` it names, or None."""
    usable = {
        pk: (key, lineage, name)
        for pk, key, lineage, name in Category.objects.filter(
            dimension__version=to_version, deprecated=False, selectable=True
        ).values_list("pk", "dimension__key", "lineage_id", "name")
    }
    to_by_lineage = {(key, lineage): pk for pk, (key, lineage, _name) in usable.items()}
    to_by_name = {(key, name.casefold()): pk for pk, (key, _lineage, name) in usable.items()}
    from_by_lineage = {
        (key, lineage): pk
        for pk, key, lineage in Category.objects.filter(dimension__version=from_version).values_list(
            "pk", "dimension__key", "lineage_id"
        )
    }

    def resolve(decision: ProposalDecision) -> int | None:
        key, lineage = decision.dimension_key, decision.target_lineage_id
        if lineage is not None:
            old = from_by_lineage.get((key, lineage))
            if old is not None:  # a category of the study's version: it goes where its labels go
                fate = fates[old]
                return fate.new_category if fate.kind not in RELABEL and fate.new_category in usable else None
            found = to_by_lineage.get((key, lineage))  # added since, by the card sort or by hand
            if found is not None:
                return found
        if decision.action == ProposalDecision.Action.NEW:  # a decision applied before lineage ids were kept
            return to_by_name.get((key, decision.new_category_name.casefold()))
        return None

    return resolve


def proposal_outcomes(
    *,
    study: Study,
    from_version: TaxonomyVersion,
    to_version: TaxonomyVersion,
    fates: dict[int, CategoryFate],
    labels: dict[int, dict[str, list[int]]],
    keys: set[str],
    single_valued: set[str],
) -> list[ProposalOutcome]:
    """The outcome of every proposal of the study's annotations, in annotation and dimension order.

    `labels` is every annotation's labels as they will be in `to_version` (category ids per dimension key),
    `keys` the dimensions the study labels, `single_valued` those of them that take one category.
    """
    rows = (
        Annotation.objects.filter(assignment__study_issue__study=study)
        .exclude(proposals={})
        .order_by("pk")
        .values_list("pk", "proposals")
    )
    decisions = {(d.dimension_key, d.proposal): d for d in ProposalDecision.objects.filter(study=study)}
    resolve = _resolver(from_version, to_version, fates)
    outcomes = []
    for annotation_id, proposals in rows.iterator(chunk_size=2000):
        for key, text in sorted((proposals or {}).items()):
            if key not in keys:
                continue
            decision = decisions.get((key, proposal_key(str(text)) or ""))
            held = labels.get(annotation_id, {}).get(key, [])
            category_id, why = None, "unsorted"
            if decision is not None and decision.action == ProposalDecision.Action.REJECT:
                why = "rejected"
            elif decision is not None:
                category_id = resolve(decision)
                why = "absent" if category_id is None else ""
                if category_id is not None and key in single_valued and held and held != [category_id]:
                    category_id, why = None, "conflict"
            outcomes.append(
                ProposalOutcome(
                    annotation_id=annotation_id,
                    dimension_key=key,
                    text=str(text),
                    category_id=category_id,
                    decision_id=decision.pk if decision is not None else None,
                    why=why,
                    adds_label=category_id is not None and category_id not in held,
                )
            )
    return outcomes


WHY = {
    "unsorted": "is not sorted on the card board yet",
    "rejected": "was rejected on the card board",
    "absent": "was sorted into a category that v{n} lacks",
    "conflict": "became a category, but you had chosen another one in this single-valued dimension",
}


def relabel_reason(outcomes: list[ProposalOutcome], *, names: dict[str, str], to_version: TaxonomyVersion) -> str:
    """What the rater reads on a reopened annotation: which proposals still need them, and why."""
    said = [
        f"your proposal '{o.text}' for {names.get(o.dimension_key, o.dimension_key)} "
        + WHY[o.why].format(n=to_version.number)
        for o in outcomes
        if not o.becomes_label
    ]
    return "; ".join(said)
