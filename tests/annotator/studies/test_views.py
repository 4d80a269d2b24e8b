import re

import pytest

from annotator.models import Annotation, Assignment, Study, StudyIssue, StudyMember
from tests.annotator.factories_issues import IssueFactory
from tests.annotator.studies.factories import make_owner, make_taxonomy, member_roles


def test_the_owner_creates_a_study_and_becomes_its_owner(db, users, client_as):
    make_owner("owner")
    taxonomy = make_taxonomy()
    response = client_as("owner").post(
        "/studies/new/",
        {
            "name": "DDL bugs",
            "taxonomy_version": taxonomy["version"].pk,
            "dimensions": [taxonomy["dims"]["symptom"].pk, taxonomy["dims"]["root_cause"].pk],
            "raters": [users["rater_a"].pk, users["rater_b"].pk],
            "adjudicators": [users["adjudicator"].pk],
            "raters_per_issue": 2,
            "assignment_mode": "fixed",
            "blind": "on",
            "guidelines": "Be careful.",
            "pilot_size": 20,
            "agreement_threshold": "0.8",
        },
    )
    study = Study.objects.get(name="DDL bugs")
    assert response.status_code == 302 and response.url == f"/studies/{study.pk}/draw/"
    assert member_roles(study) == {
        ("owner", "owner"),
        ("rater_a", "rater"),
        ("rater_b", "rater"),
        ("adjudicator", "adjudicator"),
    }
    assert study.blind and study.pilot_size == 20 and study.dimensions.count() == 2


def test_a_rater_cannot_create_studies(db, users, client_as):
    response = client_as("rater_a").post("/studies/new/", {"name": "Mine"})
    assert response.status_code == 403
    assert not Study.objects.exists()


def test_the_create_form_shows_service_errors(db, users, client_as):
    make_owner("owner")
    taxonomy = make_taxonomy()
    response = client_as("owner").post(
        "/studies/new/",
        {
            "name": "Too few",
            "taxonomy_version": taxonomy["version"].pk,
            "raters": [users["rater_a"].pk],
            "raters_per_issue": 2,
            "assignment_mode": "balanced",
            "pilot_size": 0,
            "agreement_threshold": "0.8",
        },
    )
    assert response.status_code == 200
    assert "needs at least 2 raters" in response.content.decode()
    assert not Study.objects.exists()


def test_drawing_a_sample_from_the_page(world, client_as):
    IssueFactory.create_batch(4, repository=world.repo)
    response = client_as("owner").post(
        f"/studies/{world.study.pk}/draw/",
        {"round_kind": "main", "stratification": "none", "size": 3, "seed": 5, "state": "", "kind": ""},
    )
    assert response.status_code == 302
    assert StudyIssue.objects.filter(study=world.study, round__number=2).count() == 3


def test_the_dashboard_shows_to_the_owner_only(world, client_as):
    owner_page = client_as("owner").get(f"/studies/{world.study.pk}/").content.decode()
    rater_page = client_as("rater_a").get(f"/studies/{world.study.pk}/").content.decode()
    assert 'data-testid="dashboard"' in owner_page and 'data-testid="proposals"' not in rater_page
    assert 'data-testid="dashboard"' not in rater_page
    assert "Label the <strong>root cause</strong>" in rater_page


def test_the_labelling_page_has_pickers_guidelines_and_stable_test_ids(world, client_as):
    page = client_as("rater_a").get(f"/studies/{world.study.pk}/label/{world.a.pk}/").content.decode()
    for testid in (
        "picker-symptom",
        "picker-root_cause",
        "picker-stage",
        "note",
        "submit",
        "progress",
        "guidelines-panel",
    ):
        assert f'data-testid="{testid}"' in page, testid
    assert world.cats["symptom"][0].definition in page
    assert 'data-version="1"' in page
    assert 'type="checkbox" name="dim_stage"' in page and 'type="radio" name="dim_symptom"' in page
    assert "<script>" not in page and " style=" not in page


def test_the_post_fallback_saves_a_draft_and_submits(world, client_as, users):
    client = client_as("rater_a")
    url = f"/studies/{world.study.pk}/label/{world.a.pk}/"
    draft = client.post(
        url, {"action": "draft", "version": 1, "note": "no js", "dim_symptom": world.cats["symptom"][1].pk}
    )
    assert draft.status_code == 302
    submit = client.post(
        url,
        {
            "action": "submit",
            "version": 2,
            "dim_symptom": world.cats["symptom"][1].pk,
            "dim_root_cause": world.cats["root_cause"][2].pk,
            "confidence": "2",
        },
    )
    assert submit.status_code == 302 and submit.url == f"/studies/{world.study.pk}/next/"
    annotation = Annotation.objects.get(pk=world.a.annotation.pk)
    assert annotation.submitted_at and annotation.confidence == 2 and annotation.version == 3


@pytest.mark.parametrize("action", ["draft", "submit"])
def test_the_page_refuses_a_category_and_a_proposal_in_one_single_valued_dimension(world, client_as, action):
    client = client_as("rater_a")
    url = f"/studies/{world.study.pk}/label/{world.a.pk}/"
    chosen = world.cats["symptom"][1]
    response = client.post(
        url,
        {
            "action": action,
            "version": 1,
            "note": "my careful note",
            "dim_symptom": chosen.pk,
            "dim_root_cause": world.cats["root_cause"][2].pk,
            "proposal_symptom": "NCCL watchdog timeout",
        },
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "&#x27;Symptom&#x27; takes a single category" in html and "not both" in html
    # The rater's input is still on the page, nothing was saved.
    assert 'value="NCCL watchdog timeout"' in html and "my careful note" in html
    assert response.context["values"]["symptom"] == [chosen.pk]
    annotation = Annotation.objects.get(pk=world.a.annotation.pk)
    assert (annotation.version, annotation.note, annotation.proposals) == (1, "", {})
    assert not annotation.values.exists()


def test_the_post_fallback_reports_a_conflict(world, client_as):
    client = client_as("rater_a")
    url = f"/studies/{world.study.pk}/label/{world.a.pk}/"
    client.post(url, {"action": "draft", "version": 1, "note": "one"})
    response = client.post(url, {"action": "draft", "version": 1, "note": "two"})
    assert response.status_code == 409
    assert "changed in another tab or window" in response.content.decode()
    assert Annotation.objects.get(pk=world.a.annotation.pk).note == "one"
    # The page shows what is stored, with its version, so the rater's next save goes through.
    shown = response.context["annotation"]
    assert (shown.note, shown.version) == ("one", 2)
    assert 'data-version="2"' in response.content.decode()


def test_skip_and_next(world, client_as):
    client = client_as("rater_a")
    response = client.post(f"/studies/{world.study.pk}/label/{world.a.pk}/skip/", {"reason": "Chinese only"})
    assert response.status_code == 302
    assert Assignment.objects.get(pk=world.a.pk).skip_reason == "Chinese only"
    following = client.get(f"/studies/{world.study.pk}/next/")
    assert following.url == f"/studies/{world.study.pk}/label/{world.assignments['rater_a'][1].pk}/"


def test_the_queue_shows_progress(world, client_as):
    page = client_as("rater_a").get(f"/studies/{world.study.pk}/queue/").content.decode()
    assert re.search(r'data-testid="progress">0 / 5<', page)
    assert 'data-testid="next-issue"' in page


@pytest.mark.parametrize("role", ["owner", "adjudicator"])
def test_members_who_are_not_raters_have_no_queue(world, client_as, role):
    assert client_as(role).get(f"/studies/{world.study.pk}/queue/").status_code == 403
    assert StudyMember.objects.filter(study=world.study).count() == 4


def test_the_queue_lists_my_submissions_with_link_short_title_and_time(world, users, client_as):
    from django.utils import timezone

    from annotator.models import Issue
    from annotator.services.annotations import annotation_submit
    from tests.annotator.worlds import complete_input

    long_title = "NCCL timeout " * 20
    Issue.objects.filter(pk=world.a.study_issue.issue_id).update(title=long_title)
    annotation_submit(
        annotation=world.a.annotation, actor=users["rater_a"], data=complete_input(world), expected_version=1
    )
    world.a.refresh_from_db()
    page = client_as("rater_a").get(f"/studies/{world.study.pk}/queue/").content.decode()
    assert f'href="/studies/{world.study.pk}/label/{world.a.pk}/"' in page
    assert long_title[:99].strip() in page and long_title not in page and "…" in page
    assert timezone.localtime(world.a.submitted_at).strftime("%Y-%m-%d %H:%M") in page
