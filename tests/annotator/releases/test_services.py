"""The publication service: releases numbered 1, 2, ..., change notes, refusals, hiding and showing again."""

import hashlib

import pytest

from annotator.models import PhaseChange, Release, ReleaseFile, ReleaseVisibilityChange, Study
from annotator.selectors.releases import public_release_get, release_json, releases_with_visibility
from annotator.services.publication import (
    study_publish,
    study_publish_preview,
    study_republish,
    study_republish_preview,
    study_unpublish,
    study_unpublish_preview,
)
from core.errors import ConflictError, DomainError, PermissionDeniedError
from tests.annotator.releases.conftest import revise_final_label, state

pytestmark = pytest.mark.django_db
FILES = {
    "README.md", "CITATION.cff", "SHA256SUMS", "study.json", "taxonomy.json", "dataset.jsonl", "dataset.csv",
    "agreement.json", "findings.json", "replication-package.zip",
}  # fmt: skip


def test_publishing_makes_release_1_with_every_file_and_its_checksum(published):
    release = Release.objects.get(study=published.study)
    assert release.number == 1 and release.change_note == ""
    assert release.taxonomy_version_id == published.study.taxonomy_version_id
    files = {f.name: f for f in ReleaseFile.objects.filter(release=release)}
    assert set(files) == FILES
    for f in files.values():
        assert f.sha256 == hashlib.sha256(bytes(f.content)).hexdigest() and f.size == len(bytes(f.content))
    sums = bytes(files["SHA256SUMS"].content).decode()
    assert f"{files['dataset.csv'].sha256}  dataset.csv" in sums and "SHA256SUMS" not in sums
    assert release_json(release=release, name="study.json")["issues"] == 5


def test_the_release_readme_and_citation_name_the_release_and_its_date(published, users):
    release = Release.objects.get(study=published.study)
    readme = bytes(release.files.get(name="README.md").content).decode()
    cff = bytes(release.files.get(name="CITATION.cff").content).decode()
    date = f"{release.created_at:%Y-%m-%d}"
    assert "release 1" in readme and date in readme and release.figures["citation"] in readme
    assert 'version: "1"' in cff and f'date-released: "{date}"' in cff
    assert f"/p/{published.study.slug}/releases/1/" in release.figures["citation"]
    assert "owner" not in release.figures["citation"], "a username was published as an author"


def test_the_citation_names_the_owners_by_the_name_in_their_account(labelled, users):
    users["owner"].first_name, users["owner"].last_name = "Ada", "Lovelace"
    users["owner"].save()
    release = study_publish(study=labelled.study, actor=users["owner"], base_url="https://example.org/")
    assert release.figures["citation"].startswith("Ada Lovelace (")
    assert f"https://example.org/p/{labelled.study.slug}/releases/1/" in release.figures["citation"]


def test_the_replication_package_of_a_release_carries_its_citation(published):
    import io
    import zipfile

    release = Release.objects.get(study=published.study)
    archive = zipfile.ZipFile(io.BytesIO(bytes(release.files.get(name="replication-package.zip").content)))
    readme = next(n for n in archive.namelist() if n.endswith("/README.md"))
    assert release.figures["citation"] in archive.read(readme).decode()


def test_publishing_an_unchanged_study_again_is_refused(published, users):
    before = state(published.study)
    with pytest.raises(ConflictError, match="Nothing changed since release 1"):
        study_publish(study=published.study, actor=users["owner"], change_note="again")
    assert state(published.study) == before


def test_publishing_a_changed_study_needs_a_change_note(published, users):
    revise_final_label(published, users)
    before = state(published.study)
    with pytest.raises(DomainError, match="Say what changed since release 1") as caught:
        study_publish(study=published.study, actor=users["owner"], change_note="   ")
    assert caught.value.field == "change_note"
    assert state(published.study) == before


def test_a_changed_study_is_published_as_release_2_and_release_1_is_untouched(published, users):
    first = {f.name: bytes(f.content) for f in ReleaseFile.objects.filter(release__study=published.study)}
    revise_final_label(published, users)
    release = study_publish(study=published.study, actor=users["owner"], change_note="One root cause revised.")
    assert (release.number, release.change_note) == (2, "One root cause revised.")
    again = {
        f.name: bytes(f.content) for f in ReleaseFile.objects.filter(release__number=1, release__study=published.study)
    }
    assert again == first
    assert public_release_get(slug=published.study.slug).number == 2
    readme = bytes(release.files.get(name="README.md").content).decode()
    assert "Changes since release 1" in readme and "One root cause revised." in readme
    published.study.refresh_from_db()
    assert PhaseChange.objects.filter(study=published.study, to_phase="published").count() == 1


def test_the_preview_counts_what_changed_and_writes_nothing(published, users):
    revise_final_label(published, users)
    before = state(published.study)
    preview = study_publish_preview(study=published.study, actor=users["owner"])
    assert state(published.study) == before
    body = preview.as_dict()
    assert (body["release"], body["previous_release"], body["issues"], body["allowed"]) == (2, 1, 5, True)
    assert body["changes"] == {
        "issues_added": 0, "issues_removed": 0, "final_labels_changed": 1, "rows_changed": 1,
        "findings_changed": True,  # the findings join the final labels: a revised label changes them
    }  # fmt: skip
    assert body["change_note_required"] is True


def test_the_preview_says_why_publishing_is_refused(published, users):
    preview = study_publish_preview(study=published.study, actor=users["owner"])
    assert preview.as_dict()["allowed"] is False and "Nothing changed" in preview.as_dict()["refusal"]


@pytest.mark.parametrize("role", ["rater_a", "rater_b", "adjudicator"])
def test_only_owners_publish_or_preview(labelled, users, role):
    before = state(labelled.study)
    with pytest.raises(PermissionDeniedError):
        study_publish_preview(study=labelled.study, actor=users[role])
    with pytest.raises(PermissionDeniedError):
        study_publish(study=labelled.study, actor=users[role])
    assert state(labelled.study) == before


def test_unpublishing_hides_every_release_and_leaves_the_published_phase(republished, users):
    preview = study_unpublish_preview(study=republished.study, actor=users["owner"])
    assert (preview.changed, preview.visible_after, preview.phase_after) == ([1, 2], [], "pilot")
    study_unpublish(study=republished.study, actor=users["owner"], reason="embargo")
    assert [r.shown for r in releases_with_visibility(study=republished.study)] == [False, False]
    assert state(republished.study)[:3] == ("pilot", 2, 20), "nothing may be deleted"
    with pytest.raises(ConflictError, match="already hidden"):
        study_unpublish(study=republished.study, actor=users["owner"])


def test_hiding_one_release_keeps_the_study_published(republished, users):
    study_unpublish(study=republished.study, actor=users["owner"], releases=[2])
    assert public_release_get(slug=republished.study.slug).number == 1
    republished.study.refresh_from_db()
    assert republished.study.phase == Study.Phase.PUBLISHED


def test_an_unknown_release_number_is_refused(republished, users):
    before = state(republished.study)
    with pytest.raises(DomainError, match="no release 7"):
        study_unpublish(study=republished.study, actor=users["owner"], releases=[7])
    assert state(republished.study) == before


def test_unpublishing_is_undone_by_publishing_the_releases_again(republished, users):
    study_unpublish(study=republished.study, actor=users["owner"])
    preview = study_republish_preview(study=republished.study, actor=users["owner"], releases=[1])
    assert (preview.changed, preview.visible_after, preview.phase_after) == ([1], [1], "published")
    study_republish(study=republished.study, actor=users["owner"], releases=[1])
    assert public_release_get(slug=republished.study.slug).number == 1
    study_republish(study=republished.study, actor=users["owner"])
    assert public_release_get(slug=republished.study.slug).number == 2
    assert state(republished.study)[0] == "published"
    assert ReleaseVisibilityChange.objects.filter(release__study=republished.study).count() == 4


def test_publishing_an_unchanged_hidden_study_points_to_publishing_it_again(published, users):
    study_unpublish(study=published.study, actor=users["owner"])
    with pytest.raises(ConflictError, match="publish it again"):
        study_publish(study=published.study, actor=users["owner"], change_note="x")


@pytest.mark.parametrize("role", ["rater_a", "adjudicator"])
def test_only_owners_hide_or_show_releases(republished, users, role):
    before = state(republished.study)
    for call in (study_unpublish, study_republish, study_unpublish_preview, study_republish_preview):
        with pytest.raises(PermissionDeniedError):
            call(study=republished.study, actor=users[role])
    assert state(republished.study) == before


def test_a_study_without_releases_has_nothing_to_unpublish(labelled, users):
    with pytest.raises(ConflictError, match="no release yet"):
        study_unpublish(study=labelled.study, actor=users["owner"])


@pytest.mark.parametrize("action", ["add/", "{pk}/change/", "{pk}/delete/"])
def test_the_admin_shows_releases_read_only_even_to_superusers(published, users, action):
    from django.test import Client

    release = Release.objects.get(study=published.study)
    client = Client()
    client.force_login(users["staff"])
    assert client.get("/admin/annotator/release/").status_code == 200
    before = state(published.study)
    url = f"/admin/annotator/release/{action.format(pk=release.pk)}"
    assert client.post(url, {"change_note": "rewritten", "post": "yes"}).status_code == 403
    assert state(published.study) == before
    release.refresh_from_db()
    assert release.change_note == ""


def test_a_release_s_replication_package_imports_as_an_unpublished_study(published, users, tmp_path):
    from annotator.services.exports.importing import study_export_import

    release = Release.objects.get(study=published.study)
    package = tmp_path / "release.zip"
    package.write_bytes(bytes(release.files.get(name="replication-package.zip").content))
    imported = study_export_import(path=package, name="Imported copy", owner=users["owner"]).study
    assert imported.phase == Study.Phase.ADJUDICATION, "a study without a release cannot be in the published phase"
    assert not Release.objects.filter(study=imported).exists()
