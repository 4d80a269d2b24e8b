"""import_sheets on small CSV studies: cleaning, decisions, unknown labels, errors that write nothing."""

import pytest
from django.core.management.base import CommandError

from annotator.models import Annotation, AnnotationValue, Assignment, Issue, Resolution, Study, StudyIssue, StudyMember
from taxonomy.models import Category, Taxonomy, TaxonomyVersion
from tests.annotator.final_labels import values_of as final_values_of
from tests.annotator.sheets_import.conftest import run_import
from tests.annotator.sheets_import.csv_files import HEADER, write_csv
from tests.factories import UserFactory

MAPS = ("--map", "cause=Cause", "--map", "fix=Fix")


def import_pair(a, b, *extra):
    return run_import(
        "--study", "Bugs pilot", "--raters", f"{a},{b}", "--key", "Link", *MAPS, "--taxonomy", "bugs", *extra
    )


def snapshot() -> tuple:
    return tuple(
        model.objects.count()
        for model in (Study, StudyIssue, Assignment, Annotation, AnnotationValue, Resolution, Issue, Category)
    )


def values_of(study: Study, username: str) -> dict[str, dict[str, set[str]]]:
    """issue URL -> dimension -> category codes, for one rater."""
    out: dict[str, dict[str, set[str]]] = {}
    for url, key, code in AnnotationValue.objects.filter(
        annotation__assignment__study_issue__study=study, annotation__assignment__rater__username=username
    ).values_list("annotation__assignment__study_issue__issue__url", "dimension__key", "category__code"):
        out.setdefault(url, {}).setdefault(key, set()).add(code)
    return out


def test_a_csv_pair_becomes_a_study_with_two_inactive_raters(bugs_taxonomy, rater_csvs):
    a, b = rater_csvs
    out, _ = import_pair(a, b)
    study = Study.objects.get(name="Bugs pilot")
    # issues 1 and 2 agree; bob left 3 blank, so it waits for adjudication (test_adjudication_after_import.py)
    assert "3 issues (3 new), 6 annotations, 3 resolutions (1 waiting for adjudication)" in out
    raters = StudyMember.objects.filter(study=study, role="rater").order_by("user__username")
    assert [m.user.username for m in raters] == ["bugs-pilot-alice", "bugs-pilot-bob"]
    assert not any(m.user.is_active or m.user.has_usable_password() for m in raters)
    assert (study.raters_per_issue, study.blind, study.phase) == (2, True, Study.Phase.LABELLING)
    assert study.taxonomy_version == bugs_taxonomy
    bob = values_of(study, "bugs-pilot-bob")
    assert bob["https://github.com/org/repo/issues/2"] == {"cause": {"hang"}, "fix": {"fix-config"}}
    assert "https://github.com/org/repo/issues/3" not in bob  # blank and PENDING: not labelled
    alice = values_of(study, "bugs-pilot-alice")
    assert alice["https://github.com/org/repo/issues/3"]["fix"] == {"fix-code", "fix-config"}  # "a & b" split
    blank = Annotation.objects.get(
        assignment__rater__username="bugs-pilot-bob", assignment__study_issue__issue__number=3
    )
    assert blank.frozen and blank.submitted_at and "Nothing was labelled" in blank.note
    assert Issue.objects.get(number=1).title == "org/repo#1"


def test_existing_users_can_be_the_raters(bugs_taxonomy, rater_csvs):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    import_pair(*rater_csvs, "--rater-users", "alice,bob")
    assert set(Assignment.objects.values_list("rater__username", flat=True)) == {"alice", "bob"}
    assert alice.is_active and bob.is_active


def test_running_the_same_import_again_changes_nothing(bugs_taxonomy, rater_csvs):
    import_pair(*rater_csvs)
    before = snapshot()
    out, _ = import_pair(*rater_csvs)
    assert "nothing changed" in out
    assert snapshot() == before


def test_a_missing_column_names_file_sheet_and_column_and_writes_nothing(bugs_taxonomy, rater_csvs, tmp_path):
    a, _ = rater_csvs
    b = write_csv(tmp_path / "carol.csv", [["Link", "Cause"], ["https://github.com/org/repo/issues/1", "crash"]])
    before = snapshot()
    with pytest.raises(CommandError) as error:
        import_pair(a, b)
    assert "carol.csv, sheet 'carol', field 'Fix': no column 'Fix'" in str(error.value)
    assert snapshot() == before


def test_an_unknown_sheet_is_an_error(bugs_taxonomy, rater_csvs):
    a, _ = rater_csvs
    before = snapshot()
    with pytest.raises(CommandError, match="There is no sheet 'dave'"):
        run_import(str(a), "--study", "S", "--raters", "alice,dave", "--key", "Link", *MAPS, "--taxonomy", "bugs")
    assert snapshot() == before


def test_a_label_that_fits_no_category_is_reported_with_its_cell_and_nothing_is_written(bugs_taxonomy, tmp_path):
    a = write_csv(tmp_path / "a.csv", [HEADER, ["https://github.com/org/repo/issues/1", "crash", "fix code"]])
    b = write_csv(tmp_path / "b.csv", [HEADER, ["https://github.com/org/repo/issues/1", "data race", "fix code"]])
    before = snapshot()
    with pytest.raises(CommandError) as error:
        import_pair(a, b)
    assert "b.csv, sheet 'b', line 2, column 'Cause': 'data race' fits no category of 'cause'" in str(error.value)
    assert snapshot() == before


def test_unknown_labels_can_be_added_to_a_draft_version(bugs_taxonomy, tmp_path):
    a = write_csv(tmp_path / "a.csv", [HEADER, ["https://github.com/org/repo/issues/1", "crash", "fix code"]])
    b = write_csv(tmp_path / "b.csv", [HEADER, ["https://github.com/org/repo/issues/1", "Data race", "fix code"]])
    out, _ = import_pair(a, b, "--add-unknown-labels")
    study = Study.objects.get(name="Bugs pilot")
    draft = study.taxonomy_version
    assert (draft.number, draft.status, draft.based_on) == (2, TaxonomyVersion.Status.DRAFT, bugs_taxonomy)
    added = Category.objects.get(dimension__version=draft, name="Data race")
    assert added.provenance == "added from b.csv by import_sheets"
    assert "added category 'Data race' to cause" in out
    # the published version is untouched; the draft carries its categories with the same lineage
    assert not Category.objects.filter(dimension__version=bugs_taxonomy, name="Data race").exists()
    original = Category.objects.get(dimension__version=bugs_taxonomy, code="crash")
    assert Category.objects.get(dimension__version=draft, code="crash").lineage_id == original.lineage_id
    # ... and the same trail as an edit in the editor: copy edges, an "add" edge, a changelog line
    from taxonomy.models import CategoryLineage

    edges = CategoryLineage.objects.filter(version=draft)
    assert edges.filter(operation="copy", from_category=original).exists()
    add = edges.get(operation="add")
    assert (add.to_category, add.note) == (added, "added from b.csv by import_sheets")
    draft.refresh_from_db()
    assert "added 'Data race' (added from b.csv by import_sheets)" in draft.changelog


def test_without_a_taxonomy_the_labels_build_a_new_one(db, rater_csvs):
    a, b = rater_csvs
    run_import("--study", "Fresh", "--raters", f"{a},{b}", "--key", "Link", *MAPS, "--add-unknown-labels")
    study = Study.objects.get(name="Fresh")
    assert study.taxonomy_version.taxonomy == Taxonomy.objects.get(slug="fresh")
    names = set(Category.objects.filter(dimension__version=study.taxonomy_version).values_list("name", flat=True))
    assert names == {"crash", "hang", "Wrong result", "fix code", "fix config", "fix code & fix config"}


def test_near_duplicates_are_proposed_not_applied(bugs_taxonomy, tmp_path):
    rows = [[f"https://github.com/org/repo/issues/{n}", "crash", "fix config"] for n in range(1, 4)]
    a = write_csv(tmp_path / "a.csv", [HEADER, *rows])
    b = write_csv(tmp_path / "b.csv", [HEADER, *rows[:2], [rows[2][0], "crash", "fix confgi"]])
    before = snapshot()
    with pytest.raises(CommandError, match="Nothing was imported") as error:
        import_pair(a, b)
    proposed = tmp_path / "a-labels.csv"
    assert str(proposed) in str(error.value)
    assert proposed.read_text() == "dimension,from,to\nfix,fix confgi,fix config\n"
    assert snapshot() == before

    import_pair(a, b, "--labels", str(proposed))
    study = Study.objects.get(name="Bugs pilot")
    assert values_of(study, "bugs-pilot-b")[rows[2][0]]["fix"] == {"fix-config"}
    assert study.rounds.get().filters["sheets"]["label_mapping_applied"] == [["fix", "fix confgi", "fix config"]]


def test_a_mapping_file_decides_labels_and_can_reject_a_suggestion(bugs_taxonomy, tmp_path):
    a = write_csv(tmp_path / "a.csv", [HEADER, ["https://github.com/org/repo/issues/1", "crashed", "fix code"]])
    b = write_csv(tmp_path / "b.csv", [HEADER, ["https://github.com/org/repo/issues/1", "Froze", "fix code"]])
    mapping = write_csv(
        tmp_path / "m.csv", [["dimension", "from", "to"], ["cause", "crashed", "Crash"], ["", "froze", "freeze"]]
    )
    import_pair(a, b, "--labels", str(mapping))
    study = Study.objects.get(name="Bugs pilot")
    assert values_of(study, "bugs-pilot-a")["https://github.com/org/repo/issues/1"]["cause"] == {"crash"}
    assert values_of(study, "bugs-pilot-b")["https://github.com/org/repo/issues/1"]["cause"] == {"hang"}  # alias


def test_a_final_sheet_gives_negotiated_resolutions(bugs_taxonomy, rater_csvs, tmp_path):
    a, b = rater_csvs
    final = write_csv(
        tmp_path / "agreed.csv", [HEADER, ["https://github.com/org/repo/issues/3", "wrong result", "fix code"]]
    )
    import_pair(a, b, "--final", str(final))
    resolution = Resolution.objects.get(study_issue__issue__number=3)  # 1 and 2: compared (both agree)
    codes = {
        key: set(Category.objects.filter(pk__in=ids).values_list("code", flat=True))
        for key, ids in final_values_of(resolution).items()
    }
    assert codes == {"cause": {"wrong-result"}, "fix": {"fix-code"}}
    assert resolution.method == Resolution.Method.NEGOTIATED
    assert Study.objects.get().phase == Study.Phase.ADJUDICATION
    assert final.name in resolution.note


def test_a_second_file_becomes_the_next_round(bugs_taxonomy, rater_csvs, tmp_path):
    import_pair(*rater_csvs)
    a = write_csv(tmp_path / "a2.csv", [HEADER, ["https://github.com/org/repo/issues/9", "crash", "fix code"]])
    b = write_csv(tmp_path / "b2.csv", [HEADER, ["https://github.com/org/repo/issues/9", "crash", "fix code"]])
    out, _ = import_pair(a, b)
    assert "round 2: 1 issues" in out
    study = Study.objects.get()
    assert StudyIssue.objects.filter(study=study, round__number=2).count() == 1


def test_a_round_number_taken_by_other_data_is_refused(bugs_taxonomy, rater_csvs, tmp_path):
    import_pair(*rater_csvs)
    a = write_csv(tmp_path / "a2.csv", [HEADER, ["https://github.com/org/repo/issues/9", "crash", "fix code"]])
    before = snapshot()
    with pytest.raises(CommandError, match="Round 1 of 'Bugs pilot' exists already"):
        import_pair(a, a, "--round", "1")
    assert snapshot() == before


def test_a_key_that_is_not_a_link_is_an_error(bugs_taxonomy, tmp_path):
    a = write_csv(tmp_path / "a.csv", [HEADER, ["BUG-1", "crash", "fix code"]])
    with pytest.raises(CommandError, match="'BUG-1' is not a web link"):
        import_pair(a, a)
    assert not Study.objects.exists()


def test_the_written_decisions_repeat_the_import_exactly(bugs_taxonomy, tmp_path):
    rows = [[f"https://github.com/org/repo/issues/{n}", "crash", "fix config"] for n in range(1, 4)]
    a = write_csv(tmp_path / "a.csv", [HEADER, *rows])
    b = write_csv(tmp_path / "b.csv", [HEADER, *rows[:2], [rows[2][0], "crash", "fix confgi"]])
    decisions = tmp_path / "decisions.csv"
    out, _ = import_pair(a, b, "--accept-suggestions", "--write-labels", str(decisions))
    assert decisions.read_text() == "dimension,from,to\nfix,fix confgi,fix config\n"
    before = snapshot()
    out, _ = import_pair(a, b, "--labels", str(decisions))
    assert "nothing changed" in out
    assert snapshot() == before


def test_files_whose_issues_are_all_in_the_study_already_are_refused(bugs_taxonomy, rater_csvs, tmp_path):
    import_pair(*rater_csvs)
    mapping = write_csv(tmp_path / "m.csv", [["dimension", "from", "to"], ["cause", "crash", "hang"]])
    before = snapshot()
    with pytest.raises(CommandError, match="there is nothing new to import"):
        import_pair(*rater_csvs, "--labels", str(mapping))
    assert snapshot() == before


def test_the_progress_bar_and_summary(bugs_taxonomy, rater_csvs, capsys):
    from io import StringIO

    from django.core.management import call_command

    a, b = rater_csvs
    out = StringIO()
    call_command(
        "import_sheets",
        "--study",
        "P",
        "--raters",
        f"{a},{b}",
        "--key",
        "Link",
        *MAPS,
        "--taxonomy",
        "bugs",
        stdout=out,
    )
    assert "round 1: 3 issues (3 new)" in out.getvalue()
    assert "importing" in capsys.readouterr().err
