"""Comparing the raters' submitted labels: plain data and pure helpers, computed without the database.

Also used by the spreadsheet and final-dataset imports, so that an imported study gets the same resolutions
as one labelled in the tool.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from annotator.models import Annotation, Resolution
from annotator.selectors.resolution_values import Label, ProposedLabel

EXCLUDED = Resolution.EXCLUDED_KEY
METHOD_RANK = {
    Resolution.Method.SINGLE_CODED: 0,
    Resolution.Method.UNANIMOUS: 0,
    Resolution.Method.NEGOTIATED: 1,
    Resolution.Method.ADJUDICATED: 2,
}


@dataclass(frozen=True)
class Comparison:
    """What the raters' submitted annotations have in common (plain data, computed without the database)."""

    agreed: dict[str, list[Label]] = field(default_factory=dict)
    disagreements: list[str] = field(default_factory=list)
    all_excluded: bool = False


@dataclass(frozen=True)
class RaterLabels:
    """One rater's submitted labels, as compared: category ids per dimension key, proposals, excluded; and the
    annotation they come from, when there is one (a proposal the raters share is kept as that rater's)."""

    values: dict[str, list[int]]
    proposals: dict[str, str]
    excluded: bool
    annotation_id: int | None = None


def _norm(text: str) -> str:
    return " ".join(str(text).split()).lower()


def compare_labels(raters: Sequence[RaterLabels], *, dimension_keys: Iterable[str]) -> Comparison:
    """Agreement per dimension: the same set of categories (and, when both chose none, the same proposal).

    When the raters chose no category but proposed the same new one, the final label is that proposal (the
    first rater's annotation's, as an adjudicator would settle it), so that it becomes the category the card
    board sorts it into when the study moves to a version that has it.

    When every rater excluded the issue it is resolved as excluded. When only some did, that is a
    disagreement of its own ("excluded"), and the labels are still compared so the adjudicator sees them.
    """
    if raters and all(r.excluded for r in raters):
        return Comparison(all_excluded=True)
    disagreements = [EXCLUDED] if any(r.excluded for r in raters) else []
    agreed: dict[str, list[int]] = {}
    for key in dimension_keys:
        sets = {frozenset(r.values.get(key, [])) for r in raters}
        proposals = {_norm(r.proposals.get(key, "")) for r in raters}
        same = len(sets) == 1 and (next(iter(sets)) or len(proposals) == 1)
        if same:
            agreed[key] = sorted(next(iter(sets))) or _shared_proposal(raters, key)
        else:
            disagreements.append(key)
    return Comparison(agreed=agreed, disagreements=disagreements)


def _shared_proposal(raters: Sequence[RaterLabels], key: str) -> list[Label]:
    """The proposal every rater made in `key` (no category chosen), kept as the first rater's; [] when none."""
    for rater in raters:
        text = (rater.proposals.get(key) or "").strip()
        if text and rater.annotation_id is not None:
            return [ProposedLabel(text[:500], rater.annotation_id)]
    return []


def rater_labels(annotation: Annotation) -> RaterLabels:
    values: dict[str, list[int]] = {}
    for value in annotation.values.all():
        values.setdefault(value.dimension.key, []).append(value.category_id)
    return RaterLabels(
        values={key: sorted(ids) for key, ids in values.items()},
        proposals=dict(annotation.proposals or {}),
        excluded=annotation.excluded,
        annotation_id=annotation.pk,
    )


def open_disagreements(resolution: Resolution) -> list[str]:
    """The disagreements of a resolution still waiting for a decision (those without a method yet).

    `Resolution.disagreements` keeps every key ever in dispute; one the raters settled by discussion or an
    adjudicator decided has its method in `methods`.
    """
    return [key for key in resolution.disagreements if key not in resolution.methods]


def overall_method(methods: dict[str, str]) -> str:
    """The resolution's method: the weightiest of its dimensions' methods (METHOD_RANK), unanimous when none."""
    if not methods:
        return Resolution.Method.UNANIMOUS
    return max(methods.values(), key=lambda m: METHOD_RANK.get(m, 0))


def disagreement_keys_text(disagreements: Sequence[str]) -> str:
    """Dimension keys as `Resolution.disagreement_keys` stores them (",a,b,"), so a key is found with `contains`."""
    return f",{','.join(disagreements)}," if disagreements else ""
