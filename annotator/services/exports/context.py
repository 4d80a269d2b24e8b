"""What every export of a study needs once, before streaming rows: dimensions, category names and paths,
and how raters are named. A handful of queries whose size depends on the taxonomy, not on the study."""

from dataclasses import dataclass, field

from django.db.models import Min

from annotator.exports import redact
from annotator.models import Assignment, Study, StudyMember
from annotator.selectors.pseudonyms import study_rater_pseudonyms
from annotator.selectors.resolution_values import ProposedLabel
from annotator.selectors.studies import study_dimensions
from taxonomy.models import Category, Dimension

PATH_SEPARATOR = " > "
LIST_SEPARATOR = "; "


@dataclass(frozen=True, slots=True)
class CategoryInfo:
    code: str
    name: str
    path: str
    dimension_key: str
    distributed_specific: bool | None


@dataclass(slots=True)
class ExportContext:
    study: Study
    dimensions: list[Dimension]
    categories: dict[int, CategoryInfo]
    hierarchical: set[str]
    rater_labels: dict[int, str]  # user id -> name or pseudonym
    pseudonymous: bool
    redactions: dict[str, str] = field(default_factory=dict)

    # A final label may be a rater's proposal (a ProposedLabel, no category yet): shown as its text, marked
    # "proposal: ", in every column.
    def codes(self, ids: list | None) -> list[str]:
        return [self._of(pk, "code") for pk in ids or [] if self._known(pk)]

    def names(self, ids: list | None) -> list[str]:
        return [self._of(pk, "name") for pk in ids or [] if self._known(pk)]

    def paths(self, ids: list | None) -> list[str]:
        return [self._of(pk, "path") for pk in ids or [] if self._known(pk)]

    def _known(self, value) -> bool:
        return isinstance(value, ProposedLabel) or value in self.categories

    def _of(self, value, attribute: str) -> str:
        if isinstance(value, ProposedLabel):
            return self.text(value.marked)
        return getattr(self.categories[value], attribute)

    def rater(self, user_id: int) -> str:
        return self.rater_labels.get(user_id, f"rater {user_id}")

    def text(self, value: str) -> str:
        """Free text with raters' names replaced by their pseudonyms when the export is pseudonymous."""
        return redact(value, self.redactions) if self.pseudonymous and value else value


def study_export_dimensions(study: Study) -> list[Dimension]:
    return study_dimensions(study=study)


def _categories(dimensions: list[Dimension]) -> tuple[dict[int, CategoryInfo], set[str]]:
    keys = {d.pk: d.key for d in dimensions}
    rows = list(
        Category.objects.filter(dimension__in=dimensions).values_list(
            "pk", "parent_id", "dimension_id", "code", "name", "distributed_specific"
        )
    )
    by_pk = {row[0]: row for row in rows}
    infos, hierarchical = {}, set()
    for pk, parent, dimension_id, code, name, distributed in rows:
        names, node, seen = [name], by_pk.get(parent), {pk}
        while node is not None and node[0] not in seen:
            seen.add(node[0])
            names.insert(0, node[4])
            node = by_pk.get(node[1])
        if parent is not None:
            hierarchical.add(keys[dimension_id])
        infos[pk] = CategoryInfo(code, name, PATH_SEPARATOR.join(names), keys[dimension_id], distributed)
    return infos, hierarchical


def study_raters(study: Study) -> list[tuple[int, str, str]]:
    """(user id, username, display name) of everyone who rated in the study, in a stable order: members by the
    date they joined, then anyone with assignments who is no longer a member (by first assignment)."""
    members = list(
        StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER)
        .order_by("added_at", "user_id")
        .values_list("user_id", "user__username", "user__display_name")
    )
    known = {m[0] for m in members}
    former = (
        Assignment.objects.filter(study_issue__study=study)
        .exclude(rater_id__in=known)
        .values("rater_id", "rater__username", "rater__display_name")
        .annotate(first=Min("assigned_at"))
        .order_by("first", "rater_id")
    )
    return members + [(r["rater_id"], r["rater__username"], r["rater__display_name"]) for r in former]


def export_context(*, study: Study, pseudonymous: bool) -> ExportContext:
    dimensions = study_export_dimensions(study)
    categories, hierarchical = _categories(dimensions)
    raters = study_raters(study)
    labels, redactions = {}, {}
    # The study's one numbering, which its releases keep: a release's package names raters as its dataset does.
    pseudonyms = study_rater_pseudonyms(study=study, rater_ids=[user_id for user_id, _, _ in raters])
    for user_id, username, display in raters:
        if pseudonymous:
            labels[user_id] = pseudonyms[user_id]
            for name in (username, display):
                if name and name.strip():
                    redactions[name.strip()] = labels[user_id]
        else:
            labels[user_id] = display or username
    return ExportContext(
        study=study,
        dimensions=dimensions,
        categories=categories,
        hierarchical=hierarchical,
        rater_labels=labels,
        pseudonymous=pseudonymous,
        redactions=redactions,
    )
