"""After an import, the issues every rater labelled stand where the app puts them when the last rater submits:
annotations frozen, agreed dimensions decided (unanimous), disagreements waiting in the adjudication queue."""

from django.urls import reverse

from annotator.models import (
    Annotation,
    Resolution,
    ResolutionHistory,
    Study,
    StudyIssue,
    StudyLabelsVersion,
)
from annotator.selectors.resolutions import QueueFilters, adjudication_progress, adjudication_queue, next_pending
from annotator.services.resolutions import resolution_auto
from taxonomy.models import Category
from tests.annotator.final_labels import values_of
from tests.annotator.sheets_import.conftest import run_import
from tests.annotator.sheets_import.csv_files import HEADER, LINK, write_csv

MAPS = ("--map", "cause=Cause", "--map", "fix=Fix")
FIELDS = (
    "values",
    "methods",
    "excluded",
    "disagreement_keys",
    "disagreement_count",
    "status",
    "method",
    "disagreement_reason",
    "decided_by_id",
    "note",
    "version",
)


def import_pair(a, b, *extra):
    return run_import(
        "--study", "Bugs pilot", "--raters", f"{a},{b}", "--key", "Link", *MAPS, "--taxonomy", "bugs", *extra
    )


def resolution_of(number: int) -> Resolution:
    return Resolution.objects.get(study_issue__issue__number=number)


def category(code: str) -> int:
    return Category.objects.get(code=code).pk


def fields(resolution: Resolution) -> dict:
    return {name: values_of(resolution) if name == "values" else getattr(resolution, name) for name in FIELDS}


def test_agreed_issues_are_resolved_and_disagreements_wait_for_adjudication(bugs_taxonomy, pair):
    out, _ = import_pair(*pair)
    study = Study.objects.get()
    progress = adjudication_progress(study=study)
    assert {k: progress[k] for k in ("total", "pending", "resolved", "unanimous", "with_raters")} == {
        "total": 6,
        "pending": 3,
        "resolved": 3,
        "unanimous": 3,
        "with_raters": 0,
    }, progress
    assert "6 issues (6 new), 12 annotations, 6 resolutions (3 waiting for adjudication)" in out
    assert study.phase == Study.Phase.LABELLING  # as in the app: the owner moves the study on


def test_an_agreed_issue_is_decided_unanimously(bugs_taxonomy, pair):
    import_pair(*pair)
    resolution = resolution_of(3)
    assert values_of(resolution) == {
        "cause": [category("crash")],
        "fix": sorted([category("fix-code"), category("fix-config")]),
    }
    assert resolution.methods == {"cause": "unanimous", "fix": "unanimous"}
    assert (resolution.status, resolution.method, resolution.disagreements) == ("resolved", "unanimous", [])
    assert resolution.decided_by is None


def test_a_disputed_issue_keeps_its_agreed_dimension_and_waits_for_the_rest(bugs_taxonomy, pair):
    import_pair(*pair)
    resolution = resolution_of(4)
    assert values_of(resolution) == {"fix": [category("fix-code")]}
    assert resolution.methods == {"fix": "unanimous"}
    assert (resolution.status, resolution.method, resolution.disagreements) == ("pending", "", ["cause"])
    assert resolution_of(6).disagreements == ["cause", "fix"]


def test_the_disagreements_are_in_the_adjudication_queue_most_disputed_first(bugs_taxonomy, pair):
    import_pair(*pair)
    study = Study.objects.get()
    queue = adjudication_queue(study=study, filters=QueueFilters())
    numbers = [si.issue.number for si in queue]
    assert numbers[0] == 6 and sorted(numbers) == [4, 5, 6]
    assert next_pending(study=study).issue.number == 6


def test_the_study_page_counts_the_issues_waiting_for_adjudication(bugs_taxonomy, pair, client_as):
    import_pair(*pair)
    study = Study.objects.get()
    page = client_as("staff").get(reverse("annotator:study_detail", args=[study.pk])).content.decode()
    assert 'data-testid="progress-pending">3<' in page
    assert 'data-testid="progress-with-raters">0<' in page


def test_annotations_are_frozen_and_each_resolution_has_one_automatic_history_entry(bugs_taxonomy, pair):
    import_pair(*pair)
    assert not Annotation.objects.filter(frozen=False).exists()
    assert not Annotation.objects.filter(submitted_at__isnull=True).exists()
    for resolution in Resolution.objects.all():
        entries = list(ResolutionHistory.objects.filter(resolution=resolution))
        assert [(e.action, e.version, e.before) for e in entries] == [("auto", 1, {})], resolution
        after = entries[0].after
        assert (after["status"], after["values"], after["disagreements"]) == (
            resolution.status,
            values_of(resolution),
            resolution.disagreements,
        )


def test_the_import_resolves_each_issue_as_resolution_auto_does(bugs_taxonomy, pair):
    """The import compares in bulk; the resolution service, run on the same annotations, must agree."""
    import_pair(*pair)
    imported = {r.study_issue_id: fields(r) for r in Resolution.objects.all()}
    ResolutionHistory.objects.all().delete()
    Resolution.objects.all().delete()
    for study_issue in StudyIssue.objects.all():
        resolution_auto(study_issue=study_issue)
    assert {r.study_issue_id: fields(r) for r in Resolution.objects.all()} == imported


def test_the_import_marks_the_study_labels_changed(bugs_taxonomy, pair):
    import_pair(*pair)
    assert StudyLabelsVersion.objects.get(study=Study.objects.get()).number >= 1


def test_running_the_same_import_again_adds_no_resolution(bugs_taxonomy, pair):
    import_pair(*pair)
    before = {r.pk: fields(r) for r in Resolution.objects.all()}
    history = ResolutionHistory.objects.count()
    out, _ = import_pair(*pair)
    assert "nothing changed" in out
    assert {r.pk: fields(r) for r in Resolution.objects.all()} == before
    assert ResolutionHistory.objects.count() == history


def test_a_later_round_resolves_its_own_issues_and_leaves_the_earlier_ones(bugs_taxonomy, pair, tmp_path):
    import_pair(*pair)
    before = {r.pk: fields(r) for r in Resolution.objects.all()}
    rows = [[LINK.format(7), "crash", "fix code"], [LINK.format(4), "hang", "fix code"]]  # 4: in round 1 already
    a = write_csv(tmp_path / "a2.csv", [HEADER, *rows])
    b = write_csv(tmp_path / "b2.csv", [HEADER, *rows])
    out, _ = import_pair(a, b)
    assert "round 2: 1 issues" in out and "1 resolutions" in out
    assert {r.pk: fields(r) for r in Resolution.objects.filter(pk__in=before)} == before
    assert resolution_of(7).status == Resolution.Status.RESOLVED


def test_an_issue_only_one_rater_labelled_stays_with_the_raters(bugs_taxonomy, pair, tmp_path):
    a, b = pair
    write_csv(b, [HEADER, *[[LINK.format(n), "crash", "fix code"] for n in (1, 2, 3, 4, 5)]])  # no row for 6
    import_pair(a, b)
    assert not Resolution.objects.filter(study_issue__issue__number=6).exists()
    assert adjudication_progress(study=Study.objects.get())["with_raters"] == 1


def test_a_final_sheet_decides_its_issues_and_the_others_are_compared(bugs_taxonomy, pair, tmp_path):
    final = write_csv(
        tmp_path / "agreed.csv", [HEADER, [LINK.format(4), "hang", "fix code"], [LINK.format(6), "crash", "fix code"]]
    )
    out, _ = import_pair(*pair, "--final", str(final))
    assert "6 resolutions (1 waiting for adjudication)" in out
    assert Resolution.objects.count() == StudyIssue.objects.count() == 6  # one each
    for number in (4, 6):
        decided = resolution_of(number)
        assert (decided.status, decided.method) == ("resolved", "negotiated")
        assert final.name in decided.note
    assert values_of(resolution_of(4)) == {"cause": [category("hang")], "fix": [category("fix-code")]}
    assert (resolution_of(5).status, resolution_of(5).disagreements) == ("pending", ["fix"])
    assert {resolution_of(n).method for n in (1, 2, 3)} == {"unanimous"}
    assert Study.objects.get().phase == Study.Phase.ADJUDICATION
