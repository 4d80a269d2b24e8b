"""Publishing: owner only, preconditions, public reads without login, 404 while unpublished, pseudonyms."""

import pytest
from django.test import Client

from annotator.models import PhaseChange, Release, Study
from annotator.services.publication import study_publish, study_unpublish
from core.errors import ConflictError, DomainError, PermissionDeniedError
from taxonomy.models import TaxonomyVersion
from tests.annotator.api_resources.conftest import ROLES, submit

pytestmark = pytest.mark.django_db
NAMES = ("rater_a", "rater_b", "owner", "adjudicator")
PUBLIC = ("/api/v1/public/studies/{slug}/", "/api/v1/public/studies/{slug}/dataset/",
          "/api/v1/public/studies/{slug}/agreement/", "/p/{slug}/")  # fmt: skip


def snapshot(study):
    study.refresh_from_db()
    return study.phase, PhaseChange.objects.filter(study=study).count()


def test_publishing_needs_every_issue_resolved(world, users):
    with pytest.raises(DomainError, match="no issue has a final label"):
        study_publish(study=world.study, actor=users["owner"])
    submit(world, users, "rater_a", 0)
    submit(world, users, "rater_b", 0, root_cause=2)  # a disagreement waits for adjudication
    with pytest.raises(DomainError, match="1 issue"):
        study_publish(study=world.study, actor=users["owner"])
    assert snapshot(world.study) == ("pilot", 0)


def test_publishing_freezes_the_taxonomy_version_and_records_the_phase_change(labelled, users):
    study_publish(study=labelled.study, actor=users["owner"])
    labelled.study.refresh_from_db()
    assert labelled.study.phase == Study.Phase.PUBLISHED
    assert labelled.study.taxonomy_version.status == TaxonomyVersion.Status.PUBLISHED
    change = PhaseChange.objects.get(study=labelled.study, to_phase="published")
    assert (change.from_phase, change.actor, change.figures["resolved"]) == ("pilot", users["owner"], 5)
    with pytest.raises(ConflictError):
        study_publish(study=labelled.study, actor=users["owner"])


@pytest.mark.parametrize("role", ["rater_a", "rater_b", "adjudicator"])
def test_only_the_owner_publishes(labelled, users, role):
    with pytest.raises(PermissionDeniedError):
        study_publish(study=labelled.study, actor=users[role])
    assert snapshot(labelled.study) == ("pilot", 0)


def test_unpublishing_returns_to_the_previous_phase_and_hides_it_again(published, users):
    study_unpublish(study=published.study, actor=users["owner"])
    published.study.refresh_from_db()
    assert published.study.phase == "pilot"
    for url in PUBLIC:
        assert Client().get(url.format(slug=published.study.slug)).status_code == 404


# The publish button: POST with CSRF, owner (and staff) only; others change nothing.
PUBLISH = {
    "anonymous": 302,
    "rater_a": 302,
    "rater_b": 302,
    "adjudicator": 302,
    "owner": 302,
    "staff": 302,
    "outsider": 404,
}


@pytest.mark.parametrize("role", ROLES)
def test_publish_button_role_matrix(labelled, client_for_pages, role):
    response = client_for_pages(role).post(f"/studies/{labelled.study.pk}/publish/")
    assert response.status_code == PUBLISH[role]
    expected = "published" if role in {"owner", "staff"} else "pilot"
    assert snapshot(labelled.study)[0] == expected


def test_publish_button_needs_the_csrf_token(labelled, users):
    client = Client(enforce_csrf_checks=True)
    client.force_login(users["owner"])
    assert client.post(f"/studies/{labelled.study.pk}/publish/").status_code == 403
    assert snapshot(labelled.study) == ("pilot", 0)
    page = client.get(f"/studies/{labelled.study.pk}/")
    assert b'data-testid="publish-button"' in page.content
    token = page.cookies["csrftoken"].value
    assert client.post(f"/studies/{labelled.study.pk}/publish/", {"csrfmiddlewaretoken": token}).status_code == 302
    assert snapshot(labelled.study)[0] == "published"


@pytest.mark.parametrize("url", PUBLIC)
def test_unpublished_studies_are_404_for_anonymous_not_403(labelled, url):
    assert Client().get(url.format(slug=labelled.study.slug)).status_code == 404


@pytest.mark.parametrize("url", PUBLIC)
def test_published_studies_are_readable_without_login(published, url):
    response = Client().get(url.format(slug=published.study.slug))
    assert response.status_code == 200


def test_unknown_slug_is_the_same_404_as_unpublished(labelled):
    unknown = Client().get("/api/v1/public/studies/no-such-study/").json()
    private = Client().get(f"/api/v1/public/studies/{labelled.study.slug}/").json()
    assert unknown == private


def test_public_study_has_the_taxonomy_with_definitions_and_counts(published):
    body = Client().get(f"/api/v1/public/studies/{published.study.slug}/").json()
    assert body["issues"] == 5 and body["taxonomy"]["version"] == published.taxonomy["version"].number
    symptom = next(d for d in body["dimensions"] if d["key"] == "symptom")
    leaf = next(c for c in symptom["categories"] if c["code"] == "symptom-0")
    assert leaf["definition"] == "Definition of symptom leaf 0." and leaf["total"] == 5
    assert body["links"]["dataset"].endswith(f"/api/v1/public/studies/{published.study.slug}/dataset/")


def test_public_dataset_uses_codes_and_pseudonyms_only(labelled, users):
    from annotator.models import Resolution
    from annotator.services.publication import study_publish

    Resolution.objects.filter(study_issue__study=labelled.study).update(note="rater_a convinced rater_b")
    study_publish(study=labelled.study, actor=users["owner"])
    published = labelled
    response = Client().get(f"/api/v1/public/studies/{published.study.slug}/dataset/")
    text = response.content.decode()
    body = response.json()
    assert body["count"] == 5
    row = body["results"][0]
    assert row["labels"]["symptom"] == ["symptom-0"]
    assert sorted(r["rater"] for r in row["raters"]) == ["R1", "R2"]
    assert row["note"] == "R1 convinced R2"
    for name in NAMES:
        assert name not in text, f"{name} leaked into the public dataset"


def test_public_csv_is_pseudonymised(published):
    response = Client().get(f"/api/v1/public/studies/{published.study.slug}/dataset/?format=csv")
    text = response.content.decode()
    lines = text.strip().splitlines()
    assert lines[0].startswith("position,round,repository") and len(lines) == 6
    assert "R1: symptom-0" in text
    for name in NAMES:
        assert name not in text


def test_public_agreement_is_pseudonymised(published):
    response = Client().get(f"/api/v1/public/studies/{published.study.slug}/agreement/")
    body = response.json()
    assert body["raters"] == ["R1", "R2"] and body["pairs"][0]["key"] == "R1-R2"
    assert body["dimensions"][0]["summary"]["percent"] == 1.0
    for name in NAMES:
        assert name not in response.content.decode()


def test_public_page_shows_summary_taxonomy_and_downloads(published):
    page = Client().get(f"/p/{published.study.slug}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert published.study.name in html and "Definition of root_cause leaf 0." in html
    assert f"/api/v1/public/studies/{published.study.slug}/releases/1/dataset/?format=csv" in html
    assert "Release 1 of" in html and f"/p/{published.study.slug}/releases/1/" in html
    assert "<script>" not in html and "style=" not in html  # the CSP forbids inline code


def test_public_study_list_queries_do_not_grow_with_studies(published, users):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.annotator.studies.factories import make_study

    def queries():
        with CaptureQueriesContext(connection) as ctx:
            body = Client().get("/api/v1/public/studies/?limit=100").json()
        return len(ctx), body["count"]

    small, count = queries()
    assert count == 1
    first = Release.objects.get(study=published.study)
    for i in range(9):
        study = make_study(owner=users["owner"], raters=[users["rater_a"], users["rater_b"]], name=f"more {i}")
        Study.objects.filter(pk=study.pk).update(phase=Study.Phase.PUBLISHED)
        for number in (1, 2):  # only the latest of a study's releases is listed
            Release.objects.create(
                study=study,
                number=number,
                taxonomy_version=first.taxonomy_version,
                created_at=first.created_at,
                change_note="" if number == 1 else "more",
                content_sha256=f"{i}{number}",
                figures=first.figures | {"slug": study.slug, "name": study.name},
            )
    assert queries() == (small, 10)
