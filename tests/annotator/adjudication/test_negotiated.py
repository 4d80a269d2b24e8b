"""No disagreement disappears: an issue the raters settle by discussion stays in the record as negotiated.

Disagree -> the adjudicator sends the issue back -> both raters resubmit alike. The issue stays in the
disagreement list (queue, resolutions API, admin), with method "negotiated" for the dimension that differed,
the send-back note, and the two independent labels that differed.
"""

import json

import pytest

from annotator.models import Assignment, Resolution
from tests.annotator.final_labels import values_of

pytestmark = pytest.mark.django_db

REASON = Resolution.Reason.AMBIGUOUS_TEXT
NOTE = "Root cause unclear: discuss whether the launcher or NCCL is at fault."


def _send_back(client, world, study_issue) -> None:
    resolution = Resolution.objects.get(study_issue=study_issue)
    response = client.post(
        f"/studies/{world.study.pk}/adjudication/{study_issue.pk}/send-back/",
        {"note": NOTE, "version": resolution.version},
    )
    assert response.status_code == 302, response.content[:500]


def _resubmit(client, users, role: str, study_issue, values: dict) -> None:
    annotation = Assignment.objects.get(study_issue=study_issue, rater=users[role]).annotation
    annotation.refresh_from_db()
    response = client.post(
        f"/api/v1/annotations/{annotation.pk}/submit/",
        data=json.dumps({"values": values, "version": annotation.version}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content[:500]


@pytest.fixture
def negotiated(world, users, disputed, client_as):
    """Issue 0 after discussion: rater B came round to rater A's root cause."""
    _send_back(client_as("adjudicator"), world, disputed)
    agreed = {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][0].pk]}
    _resubmit(client_as("rater_a"), users, "rater_a", disputed, agreed)
    _resubmit(client_as("rater_b"), users, "rater_b", disputed, agreed)
    return disputed


def test_a_disagreement_settled_by_discussion_stays_recorded_as_negotiated(world, negotiated):
    resolution = Resolution.objects.get(study_issue=negotiated)
    assert resolution.status == Resolution.Status.RESOLVED
    assert resolution.disagreements == ["root_cause"]
    assert resolution.disagreement_count == 1
    assert resolution.methods["symptom"] == "unanimous"
    assert resolution.methods["root_cause"] == "negotiated"
    assert resolution.method == "negotiated"
    assert resolution.note == NOTE
    assert values_of(resolution)["root_cause"] == [world.cats["root_cause"][0].pk]


def test_the_resolutions_api_lists_it_with_the_independent_labels(world, negotiated, client_as):
    for query in ("?status=all", "?status=resolved", ""):
        body = client_as("adjudicator").get(f"/api/v1/studies/{world.study.pk}/resolutions/{query}").json()
        rows = [row for row in body["results"] if row["study_issue"] == negotiated.pk]
        assert len(rows) == 1, query
    row = rows[0]
    assert row["method"] == "negotiated"
    assert row["methods"]["root_cause"] == "negotiated"
    assert row["disagreements"] == ["root_cause"]
    assert row["note"] == NOTE
    independent = {entry["rater"]: entry["values"]["root_cause"] for entry in row["independent"]}
    assert independent == {
        "rater_a": [world.cats["root_cause"][0].pk],
        "rater_b": [world.cats["root_cause"][1].pk],
    }


def test_an_unknown_status_filter_is_refused(world, negotiated, client_as):
    response = client_as("adjudicator").get(f"/api/v1/studies/{world.study.pk}/resolutions/?status=settled-ish")
    assert response.status_code == 400
    assert "status" in response.content.decode()


def test_the_queue_lists_it_among_the_settled_and_all(world, negotiated, client_as):
    for status in ("resolved", "all"):
        response = client_as("adjudicator").get(f"/studies/{world.study.pk}/adjudication/?status={status}")
        rows = [row["study_issue"].pk for row in response.context["rows"]]
        assert rows == [negotiated.pk], status
        body = response.content.decode()
        assert 'data-testid="queue-method">Negotiated' in body
        assert "Root cause unclear" in body
    pending = client_as("adjudicator").get(f"/studies/{world.study.pk}/adjudication/?status=pending")
    assert pending.context["rows"] == []


def test_the_adjudication_page_shows_the_two_independent_labels(world, negotiated, client_as):
    body = client_as("adjudicator").get(f"/studies/{world.study.pk}/adjudication/{negotiated.pk}/").content.decode()
    assert 'data-testid="method-root_cause">negotiated' in body
    independent = body.split('data-testid="independent-root_cause"', 1)[1].split("</section>", 1)[0]
    assert world.cats["root_cause"][0].name in independent and world.cats["root_cause"][1].name in independent
    assert NOTE in body


def test_the_admin_lists_it_with_method_note_and_independent_labels(world, negotiated, users, client_as):
    changelist = client_as("staff").get("/admin/annotator/disagreement/")
    assert changelist.status_code == 200
    assert [obj.pk for obj in changelist.context["cl"].result_list] == [negotiated.pk]
    assert "Negotiated" in changelist.content.decode()
    page = client_as("staff").get(f"/admin/annotator/disagreement/{negotiated.pk}/change/").content.decode()
    assert NOTE in page
    independent = page.split('data-testid="admin-independent"', 1)[1].split("</tr>", 1)[0]
    assert world.cats["root_cause"][0].name in independent and world.cats["root_cause"][1].name in independent


def test_a_dimension_still_in_dispute_after_discussion_waits_again_and_keeps_its_record(
    world, users, disputed, client_as
):
    _send_back(client_as("adjudicator"), world, disputed)
    _resubmit(
        client_as("rater_a"),
        users,
        "rater_a",
        disputed,
        {"symptom": [world.cats["symptom"][1].pk], "root_cause": [world.cats["root_cause"][0].pk]},
    )
    _resubmit(
        client_as("rater_b"),
        users,
        "rater_b",
        disputed,
        {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][0].pk]},
    )
    resolution = Resolution.objects.get(study_issue=disputed)
    assert resolution.status == Resolution.Status.PENDING
    assert resolution.disagreements == ["root_cause", "symptom"]
    assert resolution.methods["root_cause"] == "negotiated" and "symptom" not in resolution.methods
    response = client_as("adjudicator").put(
        f"/api/v1/study-issues/{disputed.pk}/resolution/",
        data=json.dumps(
            {
                "version": resolution.version,
                "values": {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][0].pk]},
                "method": "adjudicated",
                "reason": REASON,
            }
        ),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content[:500]
    body = response.json()
    assert body["methods"]["root_cause"] == "negotiated"
    assert body["methods"]["symptom"] == "adjudicated"
    assert body["method"] == "adjudicated"
    assert body["disagreements"] == ["root_cause", "symptom"]
