"""The five reliability rounds of Liu, Gu et al. (TOSEM 2023) imported one by one into one study.

The stored labels must give the agreement the pure parser gives (docs/label-cleaning.md) on the same items;
docs/spreadsheet-studies.md explains the three places where a study in the database legitimately differs.
"""

import functools
import math

import pytest

from annotator.agreement import cohen_kappa
from annotator.importers.label_cleaning import mapping_from_suggestions, suggest_merges
from annotator.importers.sheets import apply_mapping, extract_ratings, read_sheets
from annotator.models import (
    Annotation,
    AnnotationValue,
    Issue,
    Resolution,
    ResolutionHistory,
    Study,
    StudyIssue,
    StudyRound,
)
from annotator.selectors.resolutions import QueueFilters, adjudication_progress, adjudication_queue
from taxonomy.models import Category, TaxonomyVersion
from taxonomy.services import taxonomy_template_load
from tests.annotator.sheets_import.conftest import gu_round, import_gu_round

STUDY = "Gu et al. reliability"
COLUMNS = {"issue_type": "Issue Type", "stage": "Stage", "symptom": "Leaf Category", "fix_pattern": "Fix Pattern"}
ROUNDS = (1, 2, 3, 4, 5)

# round: (issues in the study, annotations, resolutions). Rows without a link are left out (see the docs);
# an issue already in an earlier round stays there (rounds 2, 4, 5: 2, 1, 1 issues). Every issue gets a
# resolution: from the Final sheet, or (round 2's two issues the Final sheet lacks) by comparing the raters.
COUNTS = {1: (108, 216, 108), 2: (108, 216, 108), 3: (108, 216, 108), 4: (107, 214, 107), 5: (98, 196, 98)}
NOT_IN_FINAL = {"https://github.com/horovod/horovod/issues/135", "https://github.com/horovod/horovod/issues/151"}
# round: (resolutions with a disagreement the Final sheet settled, overall method negotiated, unanimous), and
# the disagreements per dimension (issue type, stage, symptom, fix pattern). Negotiated exceeds the
# disagreements where the Final sheet changed a label both raters had given (or left out).
METHODS = {1: (36, 40, 68), 2: (22, 25, 83), 3: (20, 25, 83), 4: (35, 36, 71), 5: (7, 9, 89)}
DISPUTED = {1: (7, 19, 21, 24), 2: (1, 5, 6, 17), 3: (3, 4, 8, 12), 4: (2, 3, 24, 27), 5: (0, 0, 4, 3)}

# Cohen's kappa on the stored categories, where it differs from comparing the cells' text (see the docs):
# a leaf symptom is a category under its stage, and a fix-pattern cell is the set of its fix patterns.
CATEGORY_KAPPA = {
    (1, "symptom"): 0.7768595041322315,  # text: 0.7747497219132370
    (2, "symptom"): 0.9585822381521306,  # text: 0.9584498601677988
    (4, "symptom"): 0.6325214899713467,  # text: 0.6317300789662599
    (4, "fix_pattern"): 0.9044048734770384,  # text: 0.9050279329608938
}


@functools.cache
def pure_table(number: int):
    """The pure parser's cleaned table, as in tests/annotator/importers/test_sheets_gu_tosem23.py."""
    table = extract_ratings(
        read_sheets(gu_round(number)), key="Link", raters=["label1", "label2"], final="Final", mapping=COLUMNS
    )
    mapping = {}
    for dimension in COLUMNS:
        mapping.update(mapping_from_suggestions(suggest_merges(table.label_counts(dimension)), dimension))
    return apply_mapping(table, mapping)


def stored_rows(number: int, dimension: str) -> tuple[list, list]:
    """Per rater (label1, label2) and issue of the round: the stored categories, None where not labelled."""
    study_issues = list(StudyIssue.objects.filter(study__name=STUDY, round__number=number).order_by("position"))
    rows = []
    for sheet in ("label1", "label2"):
        found: dict[int, list] = {}
        values = AnnotationValue.objects.filter(
            annotation__assignment__study_issue__in=study_issues,
            annotation__assignment__rater__username=f"gu-et-al-reliability-{sheet}",
            dimension__key=dimension,
        ).values_list("annotation__assignment__study_issue_id", "category_id")
        for study_issue_id, category_id in values:
            found.setdefault(study_issue_id, set()).add(category_id)
        rows.append([frozenset(found[si.pk]) if si.pk in found else None for si in study_issues])
    return rows, study_issues


@pytest.fixture
def gu_study(db):
    taxonomy_template_load(source="gu-tosem23")
    for number in ROUNDS:
        import_gu_round(number)
    return Study.objects.get(name=STUDY)


def test_five_rounds_make_one_study_with_five_rounds(gu_study):
    assert list(gu_study.rounds.values_list("number", flat=True)) == [1, 2, 3, 4, 5]
    assert gu_study.raters_per_issue == 2 and gu_study.blind
    assert gu_study.phase == Study.Phase.ADJUDICATION
    assert sorted(gu_study.dimensions.values_list("key", flat=True)) == [
        "fix_pattern",
        "issue_type",
        "stage",
        "symptom",
    ]
    version = gu_study.taxonomy_version
    assert (version.taxonomy.slug, version.status, version.based_on.number) == ("gu-tosem23", "draft", 1)


def test_counts_per_round(gu_study):
    counts = {}
    for number in ROUNDS:
        study_issues = StudyIssue.objects.filter(study=gu_study, round__number=number)
        counts[number] = (
            study_issues.count(),
            Annotation.objects.filter(assignment__study_issue__in=study_issues).count(),
            Resolution.objects.filter(study_issue__in=study_issues).count(),
        )
    assert counts == COUNTS
    assert not Annotation.objects.filter(assignment__study_issue__study=gu_study, frozen=False).exists()
    compared = Resolution.objects.filter(history__action=ResolutionHistory.Action.AUTO)
    assert set(compared.values_list("study_issue__issue__url", flat=True)) == NOT_IN_FINAL
    assert set(compared.values_list("method", flat=True)) == {Resolution.Method.UNANIMOUS}  # both raters agree


def test_the_disagreements_the_final_sheet_settled_are_kept(gu_study):
    methods, disputed = {}, {}
    for number in ROUNDS:
        resolutions = list(Resolution.objects.filter(study_issue__study=gu_study, study_issue__round__number=number))
        assert {r.status for r in resolutions} == {Resolution.Status.RESOLVED}
        methods[number] = (
            sum(1 for r in resolutions if r.disagreement_count),
            sum(1 for r in resolutions if r.method == Resolution.Method.NEGOTIATED),
            sum(1 for r in resolutions if r.method == Resolution.Method.UNANIMOUS),
        )
        disputed[number] = tuple(sum(1 for r in resolutions if key in r.disagreements) for key in COLUMNS)
    assert (methods, disputed) == (METHODS, DISPUTED)
    progress = adjudication_progress(study=gu_study)
    assert (progress["resolved"], progress["unanimous"], progress["pending"]) == (529, 409, 0)
    settled = adjudication_queue(study=gu_study, filters=QueueFilters(status="resolved"))
    assert settled.count() == sum(m[0] for m in METHODS.values())


def test_issues_are_created_from_the_links_once(gu_study):
    assert Issue.objects.count() == sum(c[0] for c in COUNTS.values())
    issue = Issue.objects.get(url="https://github.com/horovod/horovod/issues/106")
    assert (issue.title, issue.number, issue.repository.full_name) == ("horovod/horovod#106", 106, "horovod/horovod")


def test_kappa_from_stored_labels_equals_the_pure_parser(gu_study):
    wrong = {}
    for number in ROUNDS:
        for dimension in COLUMNS:
            stored, pure = kappas(number, dimension)
            expected = CATEGORY_KAPPA.get((number, dimension), pure)
            if not math.isclose(stored, expected, abs_tol=1e-9):
                wrong[(number, dimension)] = (stored, expected)
    assert not wrong, f"stored kappa differs (round, dimension): (stored, expected) {wrong}"


def kappas(number: int, dimension: str) -> tuple[float, float]:
    """Cohen's kappa of label1 and label2 on the stored categories and on the parser's cleaned text."""
    table = pure_table(number)
    stored, study_issues = stored_rows(number, dimension)
    items = list(
        StudyIssue.objects.filter(pk__in=[s.pk for s in study_issues])
        .order_by("position")
        .values_list("issue__url", flat=True)
    )
    pure = [[table.label(rater, item, dimension) for item in items] for rater in ("label1", "label2")]
    return cohen_kappa(stored), cohen_kappa(pure)


def test_labels_outside_the_template_go_to_a_draft_version_with_provenance(gu_study):
    added = Category.objects.filter(dimension__version=gu_study.taxonomy_version, provenance__contains="import_sheets")
    assert added.count() == 28
    example = added.get(dimension__key="symptom", name__iexact="unexpected result")
    assert example.provenance == "added from reliability_round1.xlsx by import_sheets"
    published = TaxonomyVersion.objects.get(taxonomy__slug="gu-tosem23", number=1)
    assert not Category.objects.filter(dimension__version=published, provenance__contains="import_sheets").exists()


def test_running_a_round_again_writes_nothing(gu_study):
    before = (StudyRound.objects.count(), StudyIssue.objects.count(), Annotation.objects.count(), Issue.objects.count())
    out, _ = import_gu_round(3)
    assert "nothing changed" in out
    after = (StudyRound.objects.count(), StudyIssue.objects.count(), Annotation.objects.count(), Issue.objects.count())
    assert after == before
