"""A final label settled on a rater's proposal: the card board shows it as decided by adjudication, the exports
show its text marked as a proposal, and once the board sorts it into a category and the study moves to that
version, the final label becomes the category (the history keeps the proposal)."""

import csv
import io

import pytest
from django.urls import reverse

from annotator.models import ResolutionHistory, ResolutionValue
from annotator.selectors.cardsort import cardsort_board
from annotator.selectors.resolution_values import ProposedLabel, resolution_labels_fresh
from annotator.services.cardsort import cardsort_apply, proposal_decide
from annotator.services.exports import export_context
from annotator.services.exports.lines import final_dataset_csv_lines
from annotator.services.migration import study_version_move, study_version_preview
from annotator.services.migration.final_labels import final_label_proposals_preview
from taxonomy.models import Category
from taxonomy.services.operations import version_publish_with_changelog
from tests.annotator.adjudication.proposal_world import (
    PROPOSAL,
    proposal_world,
    proposer,
    resolution_of,
    settle_on_proposal,
)
from tests.factories import make_taxonomy_maintainer


@pytest.fixture
def world(users):
    make_taxonomy_maintainer(users["owner"])
    world = proposal_world(users, published=True)
    settle_on_proposal(world, users, 0)
    settle_on_proposal(world, users, 1)
    return world


def card(world, text: str):
    column = next(c for c in cardsort_board(study=world.study) if c.dimension.key == "symptom")
    return next(c for c in column.cards if c.text == text)


def test_the_board_shows_the_proposal_as_decided_by_adjudication(world, client_for):
    assert card(world, PROPOSAL).adjudicated == 1
    page = client_for("owner").get(reverse("annotator:study_cardsort", args=[world.study.pk])).content.decode()
    assert "decided by adjudication: 1" in page


def test_the_final_dataset_shows_the_proposal_text_marked_as_such(world):
    context = export_context(study=world.study, pseudonymous=False)
    text = "".join(final_dataset_csv_lines(context))
    rows = list(csv.DictReader(io.StringIO(text)))
    first = next(row for row in rows if row["position"] == str(resolution_of(world).study_issue.position))
    assert first["symptom_code"] == f"proposal: {PROPOSAL}" and first["symptom_name"] == f"proposal: {PROPOSAL}"
    assert first["method"] == "adjudicated"


def sort_and_publish(world, users):
    proposal_decide(
        study=world.study,
        actor=users["owner"],
        dimension_key="symptom",
        proposals=[PROPOSAL],
        action="new",
        new_category_name="Gradient overflow",
    )
    draft = cardsort_apply(study=world.study, actor=users["owner"])
    return version_publish_with_changelog(version=draft, actor=users["owner"])


def test_a_sorted_proposal_becomes_the_category_on_the_move(world, users):
    v2 = sort_and_publish(world, users)
    assert final_label_proposals_preview(study=world.study, to_version=v2) == {
        "final_proposals_to_category": 1,
        "final_proposals_kept": 1,
    }
    move = study_version_move(study=world.study, to_version=v2, actor=users["owner"])
    new = Category.objects.get(dimension__version=v2, name="Gradient overflow")
    sorted_one = resolution_of(world, 0)
    assert resolution_labels_fresh(sorted_one)["symptom"] == [new.pk]
    assert move.counts["final_proposals_to_category"] == 1
    entry = ResolutionHistory.objects.filter(resolution=sorted_one).order_by("pk").last()
    assert entry.after["from_proposal"] == ["symptom"]
    assert entry.before["proposals"]["symptom"]["text"] == PROPOSAL, "the history keeps what it was"
    # The other proposal was not sorted: it stays the final label, under v2's dimension.
    kept = ResolutionValue.objects.get(resolution=resolution_of(world, 1), dimension__key="symptom")
    assert kept.category_id is None and kept.dimension.version_id == v2.pk
    assert resolution_labels_fresh(resolution_of(world, 1))["symptom"] == [
        ProposedLabel(f"{PROPOSAL} 1", proposer(world, 1).pk)
    ]
    assert set(
        ResolutionValue.objects.filter(resolution__study_issue__study=world.study).values_list(
            "dimension__version", flat=True
        )
    ) == {v2.pk}


def test_the_move_page_says_what_happens_to_final_labels_settled_on_a_proposal(world, users, client_for):
    v2 = sort_and_publish(world, users)
    preview = study_version_preview(study=world.study, to_version=v2)
    assert (preview.final_proposals_to_category, preview.final_proposals_kept) == (1, 1)
    page = client_for("owner").get(f"/studies/{world.study.pk}/version/?to={v2.pk}").content.decode()
    assert 'data-testid="n-final-proposals-to-category">1<' in page
    assert 'data-testid="n-final-proposals-kept">1<' in page
