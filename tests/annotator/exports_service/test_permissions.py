"""Who may download what: a role matrix over every export, report and package endpoint, blind and published."""

import pytest

from annotator.models import ExportJob, Study

LABEL_PAGES = [
    "/studies/{pk}/exports/final.csv",
    "/studies/{pk}/exports/final.json",
    "/studies/{pk}/exports/labels.jsonl",
    "/studies/{pk}/report/",
    "/studies/{pk}/report/frameworks.csv",
    "/api/v1/studies/{pk}/exports/final.csv",
    "/api/v1/studies/{pk}/exports/labels.csv",
    "/api/v1/studies/{pk}/report/",
    "/api/v1/studies/{pk}/report/mapping.tex",
    "/api/v1/studies/{pk}/replication-packages/",
]
TAXONOMY_PAGES = [
    "/studies/{pk}/exports/",
    "/studies/{pk}/exports/taxonomy.md",
    "/api/v1/studies/{pk}/exports/taxonomy.json",
]


def _anonymous(path: str) -> int:
    return 403 if path.startswith("/api/") else 302


@pytest.mark.parametrize("path", LABEL_PAGES)
@pytest.mark.parametrize(
    ("role", "status"),
    [("owner", 200), ("adjudicator", 200), ("staff", 200), ("rater_a", 403), ("rater_b", 403), ("outsider", 404)],
)
def test_labels_while_blind(world, client_for, path, role, status):
    assert client_for(role).get(path.format(pk=world.study.pk)).status_code == status


@pytest.mark.parametrize("path", LABEL_PAGES)
def test_labels_need_a_signed_in_user(world, client_for, path):
    response = client_for("anonymous").get(path.format(pk=world.study.pk))
    assert response.status_code in (_anonymous(path), 401)


@pytest.mark.parametrize("path", LABEL_PAGES)
@pytest.mark.parametrize("role", ["rater_a", "outsider"])
def test_labels_once_published(world, client_for, path, role):
    Study.objects.filter(pk=world.study.pk).update(phase=Study.Phase.PUBLISHED)
    assert client_for(role).get(path.format(pk=world.study.pk)).status_code == 200


@pytest.mark.parametrize("path", LABEL_PAGES[:3])
def test_raters_of_a_study_that_is_not_blind_may_download(world, client_for, path):
    Study.objects.filter(pk=world.study.pk).update(blind=False)
    assert client_for("rater_b").get(path.format(pk=world.study.pk)).status_code == 200


@pytest.mark.parametrize("path", TAXONOMY_PAGES)
@pytest.mark.parametrize(("role", "status"), [("owner", 200), ("rater_a", 200), ("outsider", 404)])
def test_taxonomy_for_members(world, client_for, path, role, status):
    assert client_for(role).get(path.format(pk=world.study.pk)).status_code == status


def test_the_export_page_hides_label_downloads_from_blind_raters(world, client_for):
    body = client_for("rater_a").get(f"/studies/{world.study.pk}/exports/").content.decode()
    assert 'data-testid="blind-note"' in body
    assert "final.csv" not in body


@pytest.mark.parametrize(
    ("role", "status"), [("rater_a", 403), ("adjudicator", 403), ("outsider", 404), ("anonymous", 302)]
)
def test_only_owners_build_packages_and_nothing_is_queued_on_denial(world, client_for, role, status):
    response = client_for(role).post(f"/studies/{world.study.pk}/exports/replication/")
    assert response.status_code == status
    assert ExportJob.objects.count() == 0


@pytest.mark.parametrize(("role", "status"), [("rater_a", 403), ("adjudicator", 403), ("outsider", 404)])
def test_api_build_is_for_owners_only(world, client_for, role, status):
    response = client_for(role).post(f"/api/v1/studies/{world.study.pk}/replication-packages/")
    assert response.status_code == status
    assert ExportJob.objects.count() == 0
