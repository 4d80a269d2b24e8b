"""Final labels as rows: the adjudicator settles a dimension on a rater's proposal (service, page, API, admin), the
row keeps it, and the database refuses a row that is both or neither, or losing a category a final label uses."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models import ProtectedError
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotator.models import Resolution, ResolutionHistory, ResolutionValue
from annotator.selectors.resolution_values import ProposedLabel, resolution_labels_fresh
from annotator.services.resolutions import resolution_record
from core.errors import DomainError
from tests.annotator.adjudication.proposal_world import (
    PROPOSAL,
    proposal_world,
    proposer,
    resolution_of,
    settle_on_proposal,
)
from tests.annotator.final_labels import values_of


@pytest.fixture
def world(users):
    return proposal_world(users)


def rows() -> list[tuple]:
    return list(
        ResolutionValue.objects.order_by("pk").values_list(
            "resolution_id", "dimension__key", "category_id", "proposal_annotation_id", "proposal"
        )
    )


def test_the_symptom_is_in_dispute_until_the_adjudicator_settles_it_on_the_proposal(world, users):
    pending = resolution_of(world)
    assert pending.status == Resolution.Status.PENDING and "symptom" in pending.disagreements
    resolution = settle_on_proposal(world, users)
    assert resolution.status == Resolution.Status.RESOLVED
    labels = resolution_labels_fresh(resolution)
    assert labels["symptom"] == [ProposedLabel(PROPOSAL, proposer(world).pk)]
    assert labels["root_cause"] == [world.cats["root_cause"][0].pk], "the agreed root cause is kept"
    assert values_of(resolution)["symptom"] == [], "no category yet"
    entry = ResolutionHistory.objects.filter(resolution=resolution).order_by("pk").last()
    assert entry.action == ResolutionHistory.Action.RECORD
    assert entry.after["proposals"] == {"symptom": {"text": PROPOSAL, "annotation": proposer(world).pk}}
    assert "proposals" not in entry.before, "the revision before has no proposal: history is not overwritten"


def test_a_revision_to_a_category_replaces_the_proposal_and_keeps_both_in_the_history(world, users):
    settle_on_proposal(world, users)
    resolution = resolution_of(world)
    resolution_record(
        study_issue=resolution.study_issue,
        actor=users["adjudicator"],
        values={"symptom": [world.cats["symptom"][1].pk]},
        method=Resolution.Method.ADJUDICATED,
        reason=Resolution.Reason.TAXONOMY_GAP,
        expected_version=resolution.version,
    )
    assert resolution_labels_fresh(resolution)["symptom"] == [world.cats["symptom"][1].pk]
    assert not ResolutionValue.objects.filter(category__isnull=True).exists()
    revise = ResolutionHistory.objects.filter(resolution=resolution).order_by("pk").last()
    assert revise.action == ResolutionHistory.Action.REVISE
    assert revise.before["proposals"]["symptom"]["text"] == PROPOSAL
    assert revise.after["values"]["symptom"] == [world.cats["symptom"][1].pk]


@pytest.mark.parametrize(
    ("proposals", "values", "message"),
    [
        ({"symptom": "rater_a"}, {}, "No rater of this issue proposed"),  # rater A proposed nothing
        ({"symptom": 987654}, {}, "No rater of this issue proposed"),
        ({"stage": "rater_b"}, {}, "No rater of this issue proposed"),  # B proposed nothing for the stage
        ({"nope": "rater_b"}, {}, "does not label the dimension"),
        ({"symptom": "rater_b"}, {"symptom": ["first"]}, "takes a single value"),
    ],
)
def test_a_proposal_that_is_not_there_is_refused_and_nothing_changes(world, users, proposals, values, message):
    def resolve(ref):
        if ref == "rater_a":
            return resolution_of(world).study_issue.assignments.get(rater=users["rater_a"]).annotation.pk
        return proposer(world).pk if ref == "rater_b" else ref

    resolution = resolution_of(world)
    before = (rows(), ResolutionHistory.objects.count(), resolution.version)
    with pytest.raises(DomainError, match=message):
        resolution_record(
            study_issue=resolution.study_issue,
            actor=users["adjudicator"],
            values={key: [world.cats[key][0].pk] for key in values},
            proposals={key: resolve(ref) for key, ref in proposals.items()},
            method=Resolution.Method.ADJUDICATED,
            reason=Resolution.Reason.TAXONOMY_GAP,
            expected_version=resolution.version,
        )
    resolution.refresh_from_db()
    assert (rows(), ResolutionHistory.objects.count(), resolution.version) == before


def test_the_database_refuses_a_row_that_is_both_or_neither(world, users):
    resolution = settle_on_proposal(world, users)
    dimension = world.dims["symptom"]
    for fields in (
        {"category": world.cats["symptom"][0], "proposal_annotation": proposer(world), "proposal": "x"},
        {},
        {"proposal_annotation": proposer(world), "proposal": ""},
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            ResolutionValue.objects.create(resolution=resolution, dimension=dimension, **fields)
    with pytest.raises(IntegrityError), transaction.atomic():  # one proposal per dimension
        ResolutionValue.objects.create(
            resolution=resolution, dimension=dimension, proposal_annotation=proposer(world), proposal="another"
        )


def test_a_category_a_final_label_uses_cannot_be_deleted(world, users):
    settle_on_proposal(world, users)
    used = world.cats["root_cause"][0]
    with pytest.raises(ProtectedError), transaction.atomic():
        used.delete()
    with pytest.raises(ProtectedError), transaction.atomic():
        proposer(world).delete()


# --- the page ----------------------------------------------------------------------------------------------


def page_url(world, index: int = 0) -> str:
    return reverse("annotator:adjudicate", args=[world.study.pk, world.issue_ids[index]])


def test_the_page_offers_the_proposal_and_records_it(world, users, client_for):
    client = client_for("adjudicator")
    page = client.get(page_url(world)).content.decode()
    assert f'value="p{proposer(world).pk}"' in page and f"Proposal: {PROPOSAL}" in page
    resolution = resolution_of(world)
    response = client.post(
        page_url(world),
        {
            "version": resolution.version,
            "method": "adjudicated",
            "reason": "taxonomy_gap",
            "dim_symptom": f"p{proposer(world).pk}",
            "dim_root_cause": str(world.cats["root_cause"][0].pk),
        },
    )
    assert response.status_code == 302
    assert resolution_labels_fresh(resolution)["symptom"] == [ProposedLabel(PROPOSAL, proposer(world).pk)]
    shown = client.get(page_url(world)).content.decode()
    assert f"Settled on a rater's proposal: {PROPOSAL}" in shown
    assert f'value="p{proposer(world).pk}" data-testid="final-symptom-proposal" selected' in shown


def test_the_page_refuses_a_proposal_of_another_issue_with_a_message(world, users, client_for):
    client = client_for("adjudicator")
    resolution = resolution_of(world)
    before = rows()
    response = client.post(
        page_url(world),
        {
            "version": resolution.version,
            "method": "adjudicated",
            "reason": "taxonomy_gap",
            "dim_symptom": f"p{proposer(world, 1).pk}",
            "dim_root_cause": str(world.cats["root_cause"][0].pk),
        },
    )
    assert response.status_code == 400
    assert "No rater of this issue proposed" in response.content.decode()
    assert rows() == before


# --- the API -----------------------------------------------------------------------------------------------


def api_url(world, index: int = 0) -> str:
    return reverse("api:study_issue_resolution", args=[world.issue_ids[index]])


def test_the_api_lists_the_proposals_and_records_one(world, users, client_for):
    client = client_for("adjudicator")
    got = client.get(api_url(world)).json()
    assert got["proposal_choices"] == {"symptom": [{"annotation": proposer(world).pk, "text": PROPOSAL}]}
    assert got["proposals"] == {}
    put = client.put(
        api_url(world),
        {
            "version": got["version"],
            "method": "adjudicated",
            "reason": "taxonomy_gap",
            "proposals": {"symptom": proposer(world).pk},
        },
        content_type="application/json",
    )
    assert put.status_code == 200, put.content
    body = put.json()
    assert body["proposals"] == {"symptom": {"annotation": proposer(world).pk, "text": PROPOSAL}}
    assert body["values"]["symptom"] == [] and body["status"] == "resolved"


def test_the_api_refuses_someone_elses_proposal_with_400_and_changes_nothing(world, users, client_for):
    client = client_for("adjudicator")
    version = resolution_of(world).version
    before = rows()
    put = client.put(
        api_url(world),
        {
            "version": version,
            "method": "adjudicated",
            "reason": "other",
            "proposals": {"symptom": proposer(world, 1).pk},
        },
        content_type="application/json",
    )
    assert put.status_code == 400
    assert "No rater of this issue proposed" in str(put.json())
    assert rows() == before


def test_the_study_list_of_resolutions_reads_the_labels_in_a_constant_number_of_queries(world, users, client_for):
    client = client_for("adjudicator")
    url = reverse("api:study_resolutions", args=[world.study.pk])
    settle_on_proposal(world, users, 0)
    client.get(url)  # warm the session
    with CaptureQueriesContext(connection) as one:
        client.get(url)
    settle_on_proposal(world, users, 1)
    with CaptureQueriesContext(connection) as two:
        body = client.get(url).json()
    assert [r["proposals"]["symptom"]["text"] for r in body["results"]] == [PROPOSAL, f"{PROPOSAL} 1"]
    assert len(two) == len(one), "one more final label on the page costs no query"


# --- the admin ---------------------------------------------------------------------------------------------


def test_accepting_a_raters_labels_in_the_admin_takes_their_proposal(world, users, client_for):
    client = client_for("staff")
    response = client.post(
        reverse("admin:annotator_disagreement_changelist"),
        {"action": "accept_rater_2", "_selected_action": [world.issue_ids[0]]},
    )
    assert response.status_code == 302
    labels = resolution_labels_fresh(resolution_of(world))
    assert labels["symptom"] == [ProposedLabel(PROPOSAL, proposer(world).pk)]


def test_the_resolution_admin_shows_the_final_labels_and_cannot_change_them(world, users, client_for):
    resolution = settle_on_proposal(world, users)
    client = client_for("staff")
    url = reverse("admin:annotator_resolution_change", args=[resolution.pk])
    page = client.get(url)
    assert page.status_code == 200 and PROPOSAL in page.content.decode()
    before = rows()
    response = client.post(url, {"final_values-TOTAL_FORMS": "1", "final_values-0-proposal": "sneaky"})
    assert response.status_code == 403
    assert rows() == before
