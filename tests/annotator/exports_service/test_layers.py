"""Exports carry everything: proposals in CSV, the owner's final CSV with the public columns, and both layers of
every rater's labels (first, independent submission and revised) in the labels exports and the public dataset."""

import csv
import io
import json

import pytest

from annotator.models import FirstSubmission, Resolution, Study
from annotator.services.resolutions import resolution_send_back
from tests.annotator.worlds import labels, make_world, submit

pytestmark = pytest.mark.django_db

PROPOSAL = "NCCL watchdog hang"


@pytest.fixture
def layered(users, outsider):
    """Issue 0 disputed on root cause, sent back, both converge; issue 1 a proposal by both; issue 2 excluded."""
    world = make_world(users, n_issues=3)
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    submit(world, users, "rater_b", 0, **labels(world, 0, 1))
    resolution = Resolution.objects.get(study_issue_id=world.issue_ids[0])
    resolution_send_back(
        study_issue=resolution.study_issue, actor=users["adjudicator"], note="discuss", expected_version=1
    )
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    submit(world, users, "rater_b", 0, **labels(world, 0, 0))
    root_cause = {"root_cause": [world.cats["root_cause"][2].pk]}
    for role in ("rater_a", "rater_b"):
        submit(world, users, role, 1, values=root_cause, proposals={"symptom": PROPOSAL})
        submit(world, users, role, 2, excluded=True, excluded_reason="not_a_bug")
    return world


def _csv(client, url: str) -> list[dict]:
    response = client.get(url)
    assert response.status_code == 200, response
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def _jsonl(client, url: str) -> list[dict]:
    response = client.get(url)
    assert response.status_code == 200
    return [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]


def test_the_labels_csv_carries_the_proposals(layered, client_for):
    rows = _csv(client_for("owner"), f"/studies/{layered.study.pk}/exports/labels.csv")
    proposing = [row for row in rows if row["symptom_proposal"]]
    assert len(proposing) == 2 and {row["symptom_proposal"] for row in proposing} == {PROPOSAL}
    assert all(row["symptom_code"] == "" for row in rows if row["symptom_proposal"])
    assert {row["independent_symptom_proposal"] for row in rows if row["symptom_proposal"]} == {PROPOSAL}


def test_the_labels_exports_carry_the_independent_and_the_revised_labels(layered, client_for):
    url = Resolution.objects.get(study_issue_id=layered.issue_ids[0]).study_issue.issue.url
    code = {c.pk: c.code for c in layered.cats["root_cause"]}
    rows = {
        row["rater"]: row
        for row in _csv(client_for("owner"), f"/studies/{layered.study.pk}/exports/labels.csv")
        if row["issue_url"] == url
    }
    assert rows["rater_b"]["root_cause_code"] == code[layered.cats["root_cause"][0].pk]  # revised
    assert rows["rater_b"]["independent_root_cause_code"] == code[layered.cats["root_cause"][1].pk]  # first
    assert rows["rater_a"]["independent_root_cause_code"] == rows["rater_a"]["root_cause_code"]
    assert rows["rater_b"]["independent_source"] == "app"
    records = {
        r["rater"]: r
        for r in _jsonl(client_for("owner"), f"/studies/{layered.study.pk}/exports/labels.jsonl")
        if r["issue_url"] == url
    }
    assert records["rater_b"]["labels"]["root_cause"] == [code[layered.cats["root_cause"][0].pk]]
    assert records["rater_b"]["independent"]["labels"]["root_cause"] == [code[layered.cats["root_cause"][1].pk]]


def test_the_owners_final_csv_has_the_public_columns(layered, client_for):
    rows = _csv(client_for("owner"), f"/studies/{layered.study.pk}/exports/final.csv")
    assert {"position", "round", "disagreements", "excluded_reason"} <= set(rows[0])
    by_position = {int(row["position"]): row for row in rows}
    first = Resolution.objects.get(study_issue_id=layered.issue_ids[0]).study_issue.position
    assert by_position[first]["disagreements"] == "root_cause"
    assert by_position[first]["method"] == "negotiated"
    assert by_position[first]["round"] == "1"
    excluded = [row for row in rows if row["excluded"] == "true"]
    assert [row["excluded_reason"] for row in excluded] == ["not_a_bug"]
    records = _jsonl(client_for("owner"), f"/studies/{layered.study.pk}/exports/final.jsonl")
    assert {r["position"]: r["disagreements"] for r in records}[first] == ["root_cause"]


def test_the_public_dataset_carries_both_layers(layered, users, client_for):
    from annotator.services.publication import study_publish

    study_publish(study=layered.study, actor=users["owner"])
    slug = layered.study.slug
    rows = client_for("outsider").get(f"/api/v1/public/studies/{slug}/dataset/").json()["results"]
    first = Resolution.objects.get(study_issue_id=layered.issue_ids[0]).study_issue.position
    (row,) = [row for row in rows if row["position"] == first]
    code = {c.pk: c.code for c in layered.cats["root_cause"]}
    raters = {r["rater"]: r for r in row["raters"]}
    assert raters["R2"]["labels"]["root_cause"] == [code[layered.cats["root_cause"][0].pk]]
    assert raters["R2"]["independent"]["labels"]["root_cause"] == [code[layered.cats["root_cause"][1].pk]]
    assert row["disagreements"] == ["root_cause"]
    response = client_for("outsider").get(f"/api/v1/public/studies/{slug}/dataset/?format=csv")
    table = list(csv.DictReader(io.StringIO(response.content.decode())))
    (line,) = [line for line in table if line["position"] == str(first)]
    assert f"R2: {code[layered.cats['root_cause'][1].pk]}" in line["root_cause_raters_independent"]
    assert f"R2: {code[layered.cats['root_cause'][0].pk]}" in line["root_cause_raters"]
    assert line["disagreements"] == "root_cause"


def test_an_adjudicator_of_an_anonymous_study_gets_pseudonymous_exports(layered, client_for):
    Study.objects.filter(pk=layered.study.pk).update(anonymous_adjudication=True)
    for fmt in ("csv", "jsonl"):
        response = client_for("adjudicator").get(f"/studies/{layered.study.pk}/exports/labels.{fmt}")
        body = b"".join(response.streaming_content).decode()
        assert "rater_a" not in body and "rater_b" not in body
        assert "R1" in body and "R2" in body
    owner = client_for("owner").get(f"/studies/{layered.study.pk}/exports/labels.jsonl")
    assert "rater_a" in b"".join(owner.streaming_content).decode()


def test_the_round_trip_restores_the_first_submissions(layered, users, tmp_path):
    from annotator.services.exports import replication_package_write
    from annotator.services.exports.importing import study_export_import

    path = tmp_path / "package.zip"
    replication_package_write(study=Study.objects.get(pk=layered.study.pk), target=path)
    result = study_export_import(path=path, name="Round trip")
    firsts = FirstSubmission.objects.filter(study_issue__study=result.study)
    assert firsts.count() == 6
    assert set(firsts.values_list("source", flat=True)) == {FirstSubmission.Source.PACKAGE}
    code = {c.pk: c.code for c in layered.cats["root_cause"]}
    issue_url = Resolution.objects.get(study_issue_id=layered.issue_ids[0]).study_issue.issue.url
    restored = sorted(
        code.get(value.category.pk, value.category.code)
        for value in FirstSubmission.objects.get(
            study_issue__study=result.study, study_issue__issue__url=issue_url, rater__username="R2"
        )
        .values.filter(dimension__key="root_cause")
        .select_related("category")
    )
    assert restored == [layered.cats["root_cause"][1].code]
    resolution = Resolution.objects.get(study_issue__study=result.study, study_issue__issue__url=issue_url)
    assert resolution.disagreements == ["root_cause"]  # the disagreement settled by discussion is kept
