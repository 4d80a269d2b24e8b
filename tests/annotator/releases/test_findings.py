"""A release's findings: findings.json holds what the live findings API answered at publication, frozen; fix data
imported again allows a new release; the public API serves it like the release's other files."""

import hashlib
import json

import pytest
from django.test import Client

from annotator.models import Release
from annotator.services.publication import study_publish, study_publish_preview, study_unpublish
from core.errors import ConflictError
from tests.annotator.factories_issues import CommentFactory
from tests.annotator.releases.conftest import reimport_fix, revise_final_label
from tests.annotator.releases.test_immutability import served

pytestmark = pytest.mark.django_db


def frozen(release: Release, name: str = "findings.json") -> bytes:
    return bytes(release.files.get(name=name).content)


def live_findings(client: Client, study) -> dict:
    """The live findings API: the tables, and every page of the tests."""
    body = client.get(f"/api/v1/studies/{study.pk}/findings/").json()
    tests, url = [], f"/api/v1/studies/{study.pk}/findings/tests/?limit=5"
    while url:
        page = client.get(url).json()
        tests += page["results"]
        url = page["next"]
    return body | {"tests": tests}


def test_findings_json_holds_the_numbers_of_the_live_findings_api_at_publication(fixed, users, client_for_pages):
    live = live_findings(client_for_pages("owner"), fixed.study)
    assert live["issues_with_fix"] == 5 and len(live["tests"]) > 5, "the tests' pages were not all read"
    release = study_publish(study=fixed.study, actor=users["owner"])
    findings = json.loads(frozen(release))
    assert findings["study"] == {"slug": fixed.study.slug, "name": fixed.study.name}
    assert list(findings) == ["study", "issues", "issues_with_fix", "tables", "tests"]
    for key in ("issues", "issues_with_fix", "tables", "tests"):
        assert findings[key] == live[key], key
    sums = frozen(release, "SHA256SUMS").decode()
    assert f"{hashlib.sha256(frozen(release)).hexdigest()}  findings.json\n" in sums
    readme = frozen(release, "README.md").decode()
    assert "| findings.json | the findings:" in readme and "5 with fix data" in readme
    assert "`data/fixes.csv` in the replication package" in readme


def test_a_study_without_fix_data_publishes_the_findings_it_has(published, client_for_pages):
    release = Release.objects.get(study=published.study)
    findings = json.loads(frozen(release))
    live = live_findings(client_for_pages("owner"), published.study)
    assert (findings["issues"], findings["issues_with_fix"]) == (5, 0)
    assert findings["tables"] == live["tables"] and findings["tests"] == live["tests"]
    assert "No issue had fix data" in frozen(release, "README.md").decode()


def test_fix_data_imported_again_allows_release_2_and_release_1_reads_byte_identical(fixed, users):
    slug = fixed.study.slug
    study_publish(study=fixed.study, actor=users["owner"])
    first = served(slug, 1)
    with pytest.raises(ConflictError, match="dataset, agreement report and findings"):
        study_publish(study=fixed.study, actor=users["owner"], change_note="nothing new")

    reimport_fix(fixed.study_issues[0], additions=400)
    preview = study_publish_preview(study=fixed.study, actor=users["owner"]).as_dict()
    assert preview["allowed"] is True
    assert preview["changes"] == {
        "issues_added": 0, "issues_removed": 0, "final_labels_changed": 0, "rows_changed": 0, "findings_changed": True,
    }  # fmt: skip
    assert served(slug, 1) == first, "a re-import of fix details changed a release"
    second = study_publish(study=fixed.study, actor=users["owner"], change_note="Fix details imported again.")
    assert served(slug, 1) == first
    revise_final_label(fixed, users)
    study_publish(study=fixed.study, actor=users["owner"], change_note="Issue 1 revised.")
    assert served(slug, 1) == first

    one, two = (json.loads(frozen(Release.objects.get(study=fixed.study, number=n))) for n in (1, 2))
    size = next(t for t in one["tables"] if t["slug"] == "findings-size-framework")
    size_after = next(t for t in two["tables"] if t["slug"] == "findings-size-framework")
    assert size["rows"] != size_after["rows"], "release 2 does not hold the fix data imported again"
    assert frozen(second, "dataset.jsonl") == first[f"/api/v1/public/studies/{slug}/releases/1/files/dataset.jsonl"]


def test_fix_data_the_findings_do_not_show_still_allows_a_new_release(fixed, users):
    """The package's data/fixes.csv is fingerprinted too: one more participant in a fix's discussion."""
    study_publish(study=fixed.study, actor=users["owner"])
    CommentFactory(issue=fixed.study_issues[0].issue, author="a-new-participant")
    preview = study_publish_preview(study=fixed.study, actor=users["owner"]).as_dict()
    assert preview["allowed"] is True and preview["changes"]["findings_changed"] is False
    assert preview["changes"]["rows_changed"] == 0


def test_the_publish_confirmation_says_the_findings_changed(fixed, users, client_for_pages):
    study_publish(study=fixed.study, actor=users["owner"])
    page = client_for_pages("owner").get(f"/studies/{fixed.study.pk}/publish/").content.decode()
    assert "The findings changed" not in page
    reimport_fix(fixed.study_issues[2], additions=70)
    page = client_for_pages("owner").get(f"/studies/{fixed.study.pk}/publish/").content.decode()
    assert "0 rows changed in all. The findings changed (fix data or components)." in page


def test_the_public_api_serves_the_findings_of_each_release_and_of_the_latest(fixed, users):
    slug = fixed.study.slug
    release = study_publish(study=fixed.study, actor=users["owner"])
    client = Client()
    body = client.get(f"/api/v1/public/studies/{slug}/releases/1/findings/").json()
    assert {k: v for k, v in body.items() if k != "release"} == json.loads(frozen(release))
    assert body["release"]["number"] == 1
    links = client.get(f"/api/v1/public/studies/{slug}/releases/1/").json()["links"]
    assert links["findings"].endswith(f"/api/v1/public/studies/{slug}/releases/1/findings/")
    reimport_fix(fixed.study_issues[1], additions=90)
    study_publish(study=fixed.study, actor=users["owner"], change_note="Fix details imported again.")
    latest = client.get(f"/api/v1/public/studies/{slug}/findings/").json()
    assert latest["release"]["number"] == 2 and latest["tables"] != body["tables"]
    assert client.get(f"/api/v1/public/studies/{slug}/").json()["links"]["findings"].endswith(f"{slug}/findings/")
    study_unpublish(study=fixed.study, actor=users["owner"], releases=[2])
    assert client.get(f"/api/v1/public/studies/{slug}/findings/").json()["release"]["number"] == 1
    assert client.get(f"/api/v1/public/studies/{slug}/releases/2/findings/").status_code == 404
