"""Release pages and the release API: who reads what, the owner's confirmations and the API's dry run."""

import pytest
from django.test import Client

from annotator.models import Release
from annotator.services.publication import study_unpublish
from tests.annotator.api_resources.conftest import ROLES
from tests.annotator.releases.conftest import revise_final_label, state

pytestmark = pytest.mark.django_db


READS = ("/p/{slug}/releases/", "/p/{slug}/releases/1/", "/p/{slug}/releases/1/files/README.md",
         "/api/v1/public/studies/{slug}/releases/", "/api/v1/public/studies/{slug}/releases/1/",
         "/api/v1/public/studies/{slug}/releases/1/dataset/", "/api/v1/public/studies/{slug}/releases/1/agreement/",
         "/api/v1/public/studies/{slug}/releases/1/findings/", "/api/v1/public/studies/{slug}/findings/",
         "/p/{slug}/releases/1/files/findings.json", "/api/v1/public/studies/{slug}/releases/1/files/findings.json",
         "/api/v1/public/studies/{slug}/releases/1/files/SHA256SUMS")  # fmt: skip


@pytest.mark.parametrize("role", ROLES)
def test_everyone_reads_a_visible_release_and_nobody_a_hidden_one(published, users, client_for_pages, role):
    client = client_for_pages(role)
    for url in READS:
        assert client.get(url.format(slug=published.study.slug)).status_code == 200, url
    study_unpublish(study=published.study, actor=users["owner"])
    for url in READS:
        assert client.get(url.format(slug=published.study.slug)).status_code == 404, url


@pytest.mark.parametrize(
    "url",
    [
        "/p/{slug}/releases/2/",
        "/api/v1/public/studies/{slug}/releases/2/",
        "/api/v1/public/studies/{slug}/releases/2/findings/",
        "/p/{slug}/releases/1/files/x.txt",
        "/api/v1/public/studies/nobody-published-this/findings/",
    ],
)
def test_an_unknown_release_or_file_is_404(published, url):
    assert Client().get(url.format(slug=published.study.slug)).status_code == 404


def test_the_release_page_shows_its_citation_number_date_and_checksums(published):
    release = Release.objects.get(study=published.study)
    html = Client().get(f"/p/{published.study.slug}/releases/1/").content.decode()
    assert f"Release 1 of {release.created_at:%Y-%m-%d}" in html
    assert release.figures["citation"] in html
    assert release.files.get(name="dataset.csv").sha256 in html
    assert "<script>" not in html and "style=" not in html


def test_an_older_release_page_says_a_later_one_exists(published, users):
    from annotator.services.publication import study_publish

    revise_final_label(published, users)
    study_publish(study=published.study, actor=users["owner"], change_note="Revised one issue.")
    old = Client().get(f"/p/{published.study.slug}/releases/1/").content.decode()
    assert 'data-testid="not-latest"' in old
    latest = Client().get(f"/p/{published.study.slug}/").content.decode()
    assert "Release 2 of" in latest and "Revised one issue." in latest
    listing = Client().get(f"/api/v1/public/studies/{published.study.slug}/releases/").json()
    assert listing["count"] == 2  # the paginated envelope of every list
    releases = listing["results"]
    assert [r["number"] for r in releases] == [1, 2] and releases[1]["change_note"] == "Revised one issue."


# --- the owner's confirmation pages ----------------------------------------------------------------------


def test_the_publish_confirmation_shows_counts_and_writes_nothing(labelled, client_for_pages):
    before = state(labelled.study)
    page = client_for_pages("owner").get(f"/studies/{labelled.study.pk}/publish/")
    html = page.content.decode()
    assert page.status_code == 200 and "Publish release 1" in html
    assert "5 issues with a final label" in html and 'data-testid="confirm-publish"' in html
    assert state(labelled.study) == before


def test_the_second_publish_asks_for_a_change_note_and_shows_the_changes(published, users, client_for_pages):
    revise_final_label(published, users)
    owner = client_for_pages("owner")
    html = owner.get(f"/studies/{published.study.pk}/publish/").content.decode()
    assert 'name="change_note"' in html and "1 final label changed" in html
    before = state(published.study)
    response = owner.post(f"/studies/{published.study.pk}/publish/", {"change_note": ""})
    assert response.status_code == 302 and response["Location"].endswith(f"/studies/{published.study.pk}/publish/")
    assert state(published.study) == before
    owner.post(f"/studies/{published.study.pk}/publish/", {"change_note": "Revised issue 1."})
    assert Release.objects.filter(study=published.study).count() == 2


def test_an_unchanged_study_gets_no_publish_button(published, client_for_pages):
    html = client_for_pages("owner").get(f"/studies/{published.study.pk}/publish/").content.decode()
    assert "Nothing changed since release 1" in html and 'data-testid="confirm-publish"' not in html


def test_the_unpublish_confirmation_lists_the_releases_it_hides(published, client_for_pages):
    before = state(published.study)
    owner = client_for_pages("owner")
    html = owner.get(f"/studies/{published.study.pk}/unpublish/").content.decode()
    assert "1 release (1) is hidden" in html and "from the published phase to the pilot phase" in html
    assert state(published.study) == before
    owner.post(f"/studies/{published.study.pk}/unpublish/", {"releases": ["1"]})
    assert Client().get(f"/p/{published.study.slug}/").status_code == 404
    html = owner.get(f"/studies/{published.study.pk}/republish/").content.decode()
    assert "can be read again" in html
    owner.post(f"/studies/{published.study.pk}/republish/")
    assert Client().get(f"/p/{published.study.slug}/").status_code == 200


@pytest.mark.parametrize("value", ["x", "²", "١"])  # "²" and "١" are digits to str.isdigit, not numbers
def test_a_release_number_not_in_ascii_digits_is_ignored_like_any_other_bad_value(published, client_for_pages, value):
    response = client_for_pages("owner").post(f"/studies/{published.study.pk}/unpublish/", {"releases": [value]})
    assert response.status_code == 302
    assert Client().get(f"/p/{published.study.slug}/").status_code == 404  # no number read: every release


CONFIRM_PAGES = {"anonymous": 302, "rater_a": 302, "rater_b": 302, "adjudicator": 302, "owner": 200, "staff": 200,
                 "outsider": 404}  # fmt: skip


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("page", ["publish", "unpublish"])
def test_confirmation_pages_role_matrix(published, users, client_for_pages, role, page):
    if page == "publish":
        revise_final_label(published, users)
    before = state(published.study)
    response = client_for_pages(role).get(f"/studies/{published.study.pk}/{page}/")
    assert response.status_code == CONFIRM_PAGES[role]
    assert state(published.study) == before


@pytest.mark.parametrize("role", ROLES)
def test_unpublish_button_role_matrix(published, client_for_pages, role):
    before = state(published.study)
    response = client_for_pages(role).post(f"/studies/{published.study.pk}/unpublish/")
    assert response.status_code == (404 if role == "outsider" else 302)
    if role in {"owner", "staff"}:
        assert state(published.study)[0] == "pilot"
    else:
        assert state(published.study) == before


# --- the owner's API ------------------------------------------------------------------------------------

PUBLISH_API = {"anonymous": 401, "rater_a": 403, "rater_b": 403, "adjudicator": 403, "owner": 201, "staff": 201,
               "outsider": 404}  # fmt: skip


@pytest.mark.parametrize("role", ROLES)
def test_publish_api_role_matrix(labelled, client_for_pages, role):
    before = state(labelled.study)
    response = client_for_pages(role).post(
        f"/api/v1/studies/{labelled.study.pk}/publish/", {}, content_type="application/json"
    )
    assert response.status_code == PUBLISH_API[role]
    if PUBLISH_API[role] == 201:
        assert response.json()["release"] == 1
    else:
        assert state(labelled.study) == before


def test_the_publish_dry_run_answers_the_counts_and_writes_nothing(published, users, client_for_pages):
    revise_final_label(published, users)
    client = client_for_pages("owner")
    before = state(published.study)
    note = {"change_note": "revised"}
    for url, body in ((f"/api/v1/studies/{published.study.pk}/publish/?dry_run=1", note),
                      (f"/api/v1/studies/{published.study.pk}/publish/", {"dry_run": True, **note})):  # fmt: skip
        response = client.post(url, body, content_type="application/json")
        assert response.status_code == 200
        data = response.json()
        assert (data["release"], data["dry_run"], data["changes"]["final_labels_changed"]) == (2, True, 1)
    # A dry run is refused exactly when the real call would be: here, without the change note release 2 needs.
    dry = client.post(f"/api/v1/studies/{published.study.pk}/publish/?dry_run=1", {}, content_type="application/json")
    assert dry.status_code == 400 and "change_note" in dry.json()["error"]["fields"]
    assert state(published.study) == before
    refused = client.post(f"/api/v1/studies/{published.study.pk}/publish/", {}, content_type="application/json")
    assert refused.status_code == 400 and "change_note" in refused.json()["error"]["fields"]
    done = client.post(
        f"/api/v1/studies/{published.study.pk}/publish/", {"change_note": "revised"}, content_type="application/json"
    )
    assert done.status_code == 201 and done.json()["url"].endswith(f"/p/{published.study.slug}/releases/2/")


def test_a_dry_run_of_an_unchanged_study_answers_the_refusal(published, users, client_for_pages):
    response = client_for_pages("owner").post(
        f"/api/v1/studies/{published.study.pk}/publish/", {"dry_run": True}, content_type="application/json"
    )
    assert response.status_code == 409 and "Nothing changed" in response.json()["error"]["message"]


def test_unpublish_and_republish_through_the_api(published, users, client_for_pages):
    client = client_for_pages("owner")
    url = f"/api/v1/studies/{published.study.pk}"
    before = state(published.study)
    dry = client.post(f"{url}/unpublish/", {"dry_run": True}, content_type="application/json").json()
    assert (dry["releases"], dry["visible_after"], dry["phase_after"], dry["dry_run"]) == ([1], [], "pilot", True)
    assert state(published.study) == before
    assert client.post(f"{url}/unpublish/", {"releases": [1]}, content_type="application/json").status_code == 200
    assert Client().get(f"/api/v1/public/studies/{published.study.slug}/").status_code == 404
    listing = client.get(f"{url}/releases/").json()
    assert [(r["number"], r["visible"]) for r in listing["results"]] == [(1, False)]
    assert client.post(f"{url}/republish/", {}, content_type="application/json").json()["visible_after"] == [1]
    assert Client().get(f"/api/v1/public/studies/{published.study.slug}/").status_code == 200


VISIBILITY_API = {"anonymous": 401, "rater_a": 403, "rater_b": 403, "adjudicator": 403, "owner": 200, "staff": 200,
                  "outsider": 404}  # fmt: skip


@pytest.mark.parametrize("role", ROLES)
def test_unpublish_api_role_matrix(published, client_for_pages, role):
    before = state(published.study)
    response = client_for_pages(role).post(
        f"/api/v1/studies/{published.study.pk}/unpublish/", {}, content_type="application/json"
    )
    assert response.status_code == VISIBILITY_API[role]
    if VISIBILITY_API[role] != 200:
        assert state(published.study) == before


@pytest.mark.parametrize("role", ROLES)
def test_release_list_api_role_matrix(published, client_for_pages, role):
    response = client_for_pages(role).get(f"/api/v1/studies/{published.study.pk}/releases/")
    assert response.status_code == VISIBILITY_API[role]


def test_the_dry_run_of_a_first_release_has_no_changes_to_count(labelled, client_for_pages):
    before = state(labelled.study)
    response = client_for_pages("owner").post(
        f"/api/v1/studies/{labelled.study.pk}/publish/", {"dry_run": True}, content_type="application/json"
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["release"], body["previous_release"], body["issues"], body["changes"]) == (1, None, 5, None)
    assert body["publishes_taxonomy_version"] is True and body["change_note_required"] is False  # a draft
    assert state(labelled.study) == before
