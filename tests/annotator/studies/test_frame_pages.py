"""The pages of frames and partial overlap: the create form's frame and dimensions, the draw form's overlap,
the study page's sampled issues, and adding issues to a study from the issue search."""

import pytest

from annotator.models import Study, StudyFrame, StudyIssue, StudyRound
from tests.annotator.factories_issues import IssueFactory
from tests.annotator.studies.factories import make_taxonomy


def _create_data(users, taxonomy, **changes) -> dict:
    return {
        "name": "From a search",
        "taxonomy_version": taxonomy["version"].pk,
        "raters": [users["rater_a"].pk, users["rater_b"].pk],
        "raters_per_issue": 2,
        "assignment_mode": "balanced",
        "pilot_size": 0,
        "agreement_threshold": "0.8",
        **changes,
    }


def test_the_create_form_records_a_saved_search_as_the_frame(world, users, client_as):
    taxonomy = make_taxonomy()
    data = _create_data(
        users, taxonomy, frame_kind="search", search_q="NCCL", search_label="bug", search_created_from="2024-01-01"
    )
    response = client_as("owner").post("/studies/new/", data)
    study = Study.objects.get(name="From a search")
    assert response.status_code == 302
    frame = StudyFrame.objects.get(study=study)
    assert frame.kind == "search"
    assert (frame.definition["q"], frame.definition["label"], frame.definition["created_from"]) == (
        "NCCL",
        "bug",
        "2024-01-01",
    )


def test_the_create_form_refuses_another_versions_dimension(world, users, client_as):
    taxonomy, other = make_taxonomy(), make_taxonomy()
    data = _create_data(users, taxonomy, dimensions=[other["dims"]["symptom"].pk])
    response = client_as("owner").post("/studies/new/", data)
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert not Study.objects.filter(name="From a search").exists()


def test_new_study_from_this_search_proposes_the_search_as_frame(world, client_as):
    page = client_as("owner").get("/studies/new/?q=NCCL&state=closed&created_to=2024-12-31").content.decode()
    assert '<option value="search" selected>' in page
    assert 'name="search_q" value="NCCL"' in page and 'value="2024-12-31"' in page


def test_new_study_from_an_imports_issues_proposes_that_import_as_frame(world, users, client_as):
    from annotator.models import ImportJob

    job = ImportJob.objects.create(
        kind=ImportJob.Kind.GITHUB, status=ImportJob.Status.DONE, parameters={"repository": "org/repo"}
    )
    client = client_as("owner")
    page = client.get(f"/studies/new/?import={job.pk}").content.decode()
    assert '<option value="import_batch" selected>' in page
    assert f'<option value="{job.pk}" selected>#{job.pk} org/repo (GitHub' in page
    page = client.get(f"/studies/new/?import={job.pk}&state=closed").content.decode()
    assert '<option value="search" selected>' in page
    assert page.count(f'<option value="{job.pk}" selected>') == 1  # the search's import, not the batch
    data = _create_data(users, make_taxonomy(), frame_kind="search", search_state="closed", search_import_job=job.pk)
    assert client.post("/studies/new/", data).status_code == 302
    frame = StudyFrame.objects.get(study__name="From a search")
    assert (frame.definition["import_job"], frame.definition["import_name"]) == (job.pk, "org/repo")


def test_the_import_choices_are_the_users_own_and_the_shared_syncs(world, users, client_as):
    from annotator.models import ImportJob
    from tests.factories import UserFactory

    done = {"status": ImportJob.Status.DONE}
    mine = ImportJob.objects.create(kind=ImportJob.Kind.FILE, created_by=users["owner"], **done)
    ImportJob.objects.create(kind=ImportJob.Kind.FILE, created_by=UserFactory(username="other"), **done)  # theirs
    sync = ImportJob.objects.create(kind=ImportJob.Kind.GITHUB, **done)
    form = client_as("owner").get("/studies/new/").context["form"]
    for name in ("import_job", "search_import_job"):
        assert set(form.fields[name].queryset) == {mine, sync}, name


def test_the_issue_search_offers_adding_to_my_studies_and_a_study_from_the_search(world, client_as):
    owner_page = client_as("owner").get("/issues/?q=title").content.decode()
    assert 'data-testid="add-to-study"' in owner_page and world.study.name in owner_page
    assert 'data-testid="study-from-search"' in owner_page
    rater_page = client_as("rater_a").get("/issues/?q=title").content.decode()
    assert 'data-testid="add-to-study"' not in rater_page and 'data-testid="study-from-search"' not in rater_page


def test_the_owner_adds_ticked_search_results_to_the_study(world, client_as):
    new = IssueFactory.create_batch(2, repository=world.repo)
    response = client_as("owner").post(
        "/studies/add-issues/", {"study": world.study.pk, "issue": [i.pk for i in new], "back": "q=x"}
    )
    assert response.status_code == 302 and response.url == f"/studies/{world.study.pk}/"
    added = StudyRound.objects.get(study=world.study, number=2)
    assert set(added.study_issues.values_list("issue_id", flat=True)) == {i.pk for i in new}


@pytest.mark.parametrize(("role", "status"), [("rater_a", 403), ("adjudicator", 403), ("outsider", 404)])
def test_only_the_owner_adds_issues_from_the_search(world, client_for, role, status):
    new = IssueFactory(repository=world.repo)
    before = StudyIssue.objects.filter(study=world.study).count()
    response = client_for(role).post("/studies/add-issues/", {"study": world.study.pk, "issue": [new.pk]})
    assert response.status_code == status
    assert StudyIssue.objects.filter(study=world.study).count() == before


def test_the_study_page_lists_the_sampled_issues_a_page_at_a_time(world, client_as, monkeypatch):
    from annotator.selectors import studies

    monkeypatch.setattr(studies, "STUDY_ISSUES_PAGE", 3)
    page = client_as("rater_a").get(f"/studies/{world.study.pk}/").content.decode()
    assert page.count('data-testid="sampled-issue"') == 3
    assert "?after=3#sampled-issues" in page
    rest = client_as("rater_a").get(f"/studies/{world.study.pk}/?after=3").content.decode()
    assert rest.count('data-testid="sampled-issue"') == 2 and "double-coded" in rest
    assert 'data-testid="final-status"' not in rest  # final labels are for the owner
    assert 'data-testid="final-status"' in client_as("owner").get(f"/studies/{world.study.pk}/").content.decode()


def test_the_draw_form_takes_a_partial_overlap(world, client_as):
    IssueFactory.create_batch(10, repository=world.repo)
    response = client_as("owner").post(
        f"/studies/{world.study.pk}/draw/",
        {
            "round_kind": "main",
            "stratification": "none",
            "size": 10,
            "seed": 5,
            "overlap_mode": "percent",
            "overlap_value": 20,
        },
    )
    assert response.status_code == 302
    study_round = StudyRound.objects.get(study=world.study, number=2)
    assert (study_round.drawn, study_round.double_coded) == (10, 2)
    assert StudyIssue.objects.filter(round=study_round, double_coded=False).count() == 8


@pytest.mark.parametrize("value", ["x", "²", "١"])  # "²" and "١" are digits to str.isdigit, not ids
def test_a_study_or_issue_not_in_ascii_digits_is_refused_like_any_other_bad_value(world, client_as, value):
    issue = IssueFactory(repository=world.repo)
    before = StudyIssue.objects.filter(study=world.study).count()
    owner = client_as("owner")
    no_study = owner.post("/studies/add-issues/", {"study": value, "issue": [issue.pk]}, follow=True)
    assert "Choose the study to add the issues to." in no_study.content.decode()
    no_issue = owner.post("/studies/add-issues/", {"study": world.study.pk, "issue": [value]}, follow=True)
    assert "Tick the issues to add first." in no_issue.content.decode()
    assert StudyIssue.objects.filter(study=world.study).count() == before


@pytest.mark.parametrize("value", ["x", "²", "١"])
def test_a_listed_issue_not_in_ascii_digits_is_an_address_no_issue_has(world, users, client_as, value):
    data = _create_data(users, make_taxonomy(), frame_kind="explicit", frame_issues=value)
    response = client_as("owner").post("/studies/new/", data)
    assert response.status_code == 200
    assert f"No imported issue has the address {value}" in response.content.decode()
    assert not Study.objects.filter(name="From a search").exists()


# Not "١": Django's ModelChoiceField itself reads it as the id 1 (int() does), before this form's own parsing.
@pytest.mark.parametrize("value", ["x", "²"])
def test_a_taxonomy_version_not_in_ascii_digits_is_an_invalid_choice(world, users, client_as, value):
    data = _create_data(users, make_taxonomy(), taxonomy_version=value)
    response = client_as("owner").post("/studies/new/", data)
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
