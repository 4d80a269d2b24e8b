"""The card-sorting board: raters' proposals grouped by normalised text, next to the current categories.

Proposals reveal what raters wrote, so only the study's owners (and staff) may read this (views check).
"""

from collections import Counter
from dataclasses import dataclass, field

from annotator.importers.label_cleaning import normalise_label
from annotator.models import Annotation, ProposalDecision, ResolutionValue, Study
from annotator.selectors.studies import study_dimensions
from taxonomy.models import Category, Dimension

EXAMPLES_PER_CARD = 3


@dataclass
class ProposalCard:
    dimension_key: str
    key: str  # the normalised text: the card's identity
    text: str  # the most frequent spelling
    issues: int
    spellings: list[str]
    examples: list[dict]
    decision: ProposalDecision | None = None
    adjudicated: int = 0  # issues whose final label the adjudicator settled on this proposal


@dataclass
class BoardColumn:
    dimension: Dimension
    cards: list[ProposalCard] = field(default_factory=list)
    categories: list[dict] = field(default_factory=list)

    @property
    def open_cards(self) -> list[ProposalCard]:
        return [c for c in self.cards if c.decision is None]


def proposal_key(text: str) -> str | None:
    return normalise_label(text, missing=())


def study_board_dimensions(study: Study) -> list[Dimension]:
    return study_dimensions(study=study)


def cardsort_board(*, study: Study) -> list[BoardColumn]:
    """One column per dimension: proposal cards (with their decision, if any) and the categories."""
    dimensions = study_board_dimensions(study)
    columns = {d.key: BoardColumn(dimension=d) for d in dimensions}
    spellings: dict[tuple[str, str], Counter] = {}
    issues: dict[tuple[str, str], dict[int, dict]] = {}
    rows = (
        Annotation.objects.filter(assignment__study_issue__study=study)
        .exclude(proposals={})
        .values_list(
            "proposals",
            "assignment__study_issue__issue_id",
            "assignment__study_issue__issue__number",
            "assignment__study_issue__issue__title",
            "assignment__study_issue__issue__repository__name",
        )
        .order_by("assignment__study_issue__position", "pk")
    )
    for proposals, issue_id, number, title, repo in rows.iterator(chunk_size=2000):
        for key, text in (proposals or {}).items():
            norm = proposal_key(text)
            if key not in columns or norm is None:
                continue
            spellings.setdefault((key, norm), Counter())[" ".join(str(text).split())] += 1
            issues.setdefault((key, norm), {}).setdefault(
                issue_id, {"id": issue_id, "ref": f"{repo}#{number}", "title": title}
            )
    # Final labels settled on a rater's proposal: the card shows it was decided by adjudication (and exists even
    # if the rater has since revised the annotation).
    adjudicated: dict[tuple[str, str], set[int]] = {}
    settled = ResolutionValue.objects.filter(
        resolution__study_issue__study=study, category__isnull=True, dimension__key__in=list(columns)
    ).values_list(
        "dimension__key",
        "proposal",
        "resolution__study_issue__issue_id",
        "resolution__study_issue__issue__number",
        "resolution__study_issue__issue__title",
        "resolution__study_issue__issue__repository__name",
    )
    for key, text, issue_id, number, title, repo in settled:
        norm = proposal_key(text)
        if norm is None:
            continue
        spellings.setdefault((key, norm), Counter())
        if not spellings[(key, norm)]:
            spellings[(key, norm)][" ".join(str(text).split())] += 1
        issues.setdefault((key, norm), {}).setdefault(
            issue_id, {"id": issue_id, "ref": f"{repo}#{number}", "title": title}
        )
        adjudicated.setdefault((key, norm), set()).add(issue_id)
    decisions = {(d.dimension_key, d.proposal): d for d in ProposalDecision.objects.filter(study=study)}
    for (key, norm), counter in sorted(spellings.items(), key=lambda item: (-len(issues[item[0]]), item[0])):
        columns[key].cards.append(
            ProposalCard(
                dimension_key=key,
                key=norm,
                text=counter.most_common(1)[0][0],
                issues=len(issues[(key, norm)]),
                spellings=[s for s, _ in counter.most_common()],
                examples=list(issues[(key, norm)].values())[:EXAMPLES_PER_CARD],
                decision=decisions.get((key, norm)),
                adjudicated=len(adjudicated.get((key, norm), ())),
            )
        )
    for category in (
        Category.objects.filter(dimension__in=dimensions, deprecated=False)
        .select_related("parent")
        .order_by("order", "name")
    ):
        column = columns[next(k for k, c in columns.items() if c.dimension.pk == category.dimension_id)]
        column.categories.append(
            {
                "lineage_id": str(category.lineage_id),
                "name": category.name,
                "parent": category.parent.name if category.parent else "",
                "selectable": category.selectable,
                "aliases": category.aliases,
            }
        )
    return list(columns.values())
