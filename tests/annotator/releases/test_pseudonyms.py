"""Pseudonyms in releases: everyone whose work is in the study has one, and a published pseudonym stays with its
person in every later release, also after they leave the study (study_member_remove keeps their work)."""

import hashlib
import io
import json
import zipfile

import pytest
from django.test import Client

from annotator.models import Release, ReleaseFile, Resolution, StudyIssue, StudyMember
from annotator.selectors.pseudonyms import study_rater_pseudonyms
from annotator.selectors.publication import member_pseudonyms
from annotator.selectors.releases import release_dataset, release_json
from annotator.services.publication import study_publish
from annotator.services.studies import study_member_remove
from tests.annotator.releases.conftest import revise_final_label
from tests.annotator.worlds import labelled_world

pytestmark = pytest.mark.django_db
DISPUTED = 1  # labelled_world: on issue 1 rater A chose root cause leaf 1 and rater B leaf 2


@pytest.fixture
def world(users, outsider):
    """Owner, raters A and B (A joined first), an adjudicator whose notes say "rater_a was right"."""
    return labelled_world(users, n_issues=4)


def remove(world, users, role: str, member_role: str = StudyMember.Role.RATER) -> None:
    member = StudyMember.objects.get(study=world.study, user=users[role], role=member_role)
    study_member_remove(study=world.study, actor=users["owner"], member=member)


def raters_of(release) -> set[str]:
    return {rater["rater"] for row in release_dataset(release=release) for rater in row["raters"]}


def pseudonym_by_rater(world, release) -> dict[str, str]:
    """Who is who in the release, told by the raters' different root causes on the disputed issue."""
    url = StudyIssue.objects.get(pk=world.issue_ids[DISPUTED]).issue.url
    (row,) = [row for row in release_dataset(release=release) if row["issue"]["url"] == url]
    by_code = {rater["labels"]["root_cause"][0]: rater["rater"] for rater in row["raters"]}
    return {"rater_a": by_code[world.cats["root_cause"][1].code], "rater_b": by_code[world.cats["root_cause"][2].code]}


def notes_of(release) -> list[str]:
    return [row["note"] for row in release_dataset(release=release) if row["note"]]


def test_a_study_nobody_left_numbers_its_members_by_role_in_the_order_they_joined(world, users):
    StudyMember.objects.filter(study=world.study, user=users["rater_a"]).update(added_at="2100-01-01T00:00Z")
    assert member_pseudonyms(study=world.study) == {
        users["rater_b"].pk: "R1",
        users["rater_a"].pk: "R2",
        users["adjudicator"].pk: "A1",
        users["owner"].pk: "O1",
    }, "the numbering of studies nobody left changed: their published pseudonyms would move"


def test_a_removed_raters_labels_keep_a_pseudonym_of_their_own(world, users):
    remove(world, users, "rater_a")
    release = study_publish(study=world.study, actor=users["owner"])
    agreement = release_json(release=release, name="agreement.json")
    assert raters_of(release) == {"R1", "R2"}, f"the dataset attributes labels to {sorted(raters_of(release))}"
    assert sorted(agreement["raters"]) == ["R1", "R2"], f"the agreement names raters {agreement['raters']}"


def test_two_removed_raters_keep_two_pseudonyms(world, users):
    remove(world, users, "rater_a")
    remove(world, users, "rater_b")
    release = study_publish(study=world.study, actor=users["owner"])
    assert raters_of(release) == {"R1", "R2"}
    assert len(set(pseudonym_by_rater(world, release).values())) == 2


def test_pseudonyms_stay_with_their_raters_in_a_later_release_after_a_rater_leaves(world, users):
    first = study_publish(study=world.study, actor=users["owner"])
    frozen = {f.name: f.sha256 for f in ReleaseFile.objects.filter(release=first)}
    before = pseudonym_by_rater(world, first)
    assert before == {"rater_a": "R1", "rater_b": "R2"}
    remove(world, users, "rater_a")
    revise_final_label(world, users, index=0)
    second = study_publish(study=world.study, actor=users["owner"], change_note="Issue 0's root cause revised.")
    after = pseudonym_by_rater(world, second)
    assert after == before, f"release 1 published {before}, release 2 {after}"
    kept = {f.name: hashlib.sha256(bytes(f.content)).hexdigest() for f in ReleaseFile.objects.filter(release=first)}
    assert kept == frozen, "release 1's files changed"


def test_a_removed_raters_name_is_redacted_from_decision_notes(world, users):
    remove(world, users, "rater_a")
    release = study_publish(study=world.study, actor=users["owner"])
    rater_a = pseudonym_by_rater(world, release)["rater_a"]
    notes = notes_of(release)
    assert notes, "the world has adjudicated issues with notes"
    assert set(notes) == {f"{rater_a} was right"}, notes


def test_a_removed_adjudicators_name_is_redacted_from_decision_notes(world, users):
    Resolution.objects.filter(study_issue__study=world.study).exclude(note="").update(note="adjudicator decided")
    remove(world, users, "adjudicator", StudyMember.Role.ADJUDICATOR)
    release = study_publish(study=world.study, actor=users["owner"])
    assert set(notes_of(release)) == {"A1 decided"}, notes_of(release)


def test_the_kept_pseudonyms_are_not_served(world, users):
    release = study_publish(study=world.study, actor=users["owner"])
    assert Release.objects.get(pk=release.pk).figures["pseudonyms"] == {
        str(users["rater_a"].pk): "R1",
        str(users["rater_b"].pk): "R2",
        str(users["adjudicator"].pk): "A1",
        str(users["owner"].pk): "O1",
    }
    slug = world.study.slug
    for url in (f"/api/v1/public/studies/{slug}/releases/1/", "/api/v1/public/studies/", f"/p/{slug}/releases/1/"):
        response = Client().get(url)
        assert response.status_code == 200, url
        assert b"pseudonyms" not in response.content, f"{url} serves the release's pseudonym map"


def test_a_releases_package_names_the_raters_as_its_dataset_does_after_a_rater_leaves(world, users):
    study_publish(study=world.study, actor=users["owner"])
    remove(world, users, "rater_a")
    revise_final_label(world, users, index=0)
    second = study_publish(study=world.study, actor=users["owner"], change_note="Issue 0's root cause revised.")

    package = ReleaseFile.objects.get(release=second, name="replication-package.zip")
    with zipfile.ZipFile(io.BytesIO(bytes(package.content))) as archive:
        (name,) = [name for name in archive.namelist() if name.endswith("/data/labels.jsonl")]
        records = [json.loads(line) for line in archive.read(name).splitlines() if line.strip()]
    url = StudyIssue.objects.get(pk=world.issue_ids[DISPUTED]).issue.url
    by_code = {r["labels"]["root_cause"][0]: r["rater"] for r in records if r["issue_url"] == url}
    in_package = {
        "rater_a": by_code[world.cats["root_cause"][1].code],
        "rater_b": by_code[world.cats["root_cause"][2].code],
    }
    assert in_package == pseudonym_by_rater(world, second) == {"rater_a": "R1", "rater_b": "R2"}


def test_anonymous_adjudication_shows_a_former_rater_by_the_releases_pseudonym(world, users):
    study_publish(study=world.study, actor=users["owner"])
    remove(world, users, "rater_a")
    pseudonyms = study_rater_pseudonyms(study=world.study, rater_ids=[users["rater_a"].pk, users["rater_b"].pk])
    assert pseudonyms == {users["rater_a"].pk: "R1", users["rater_b"].pk: "R2"}
