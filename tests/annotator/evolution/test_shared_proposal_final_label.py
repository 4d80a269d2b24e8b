"""Raters who chose no category but proposed the same new one agree: the final label is that proposal, and a
move to a version where the card board made it a category turns the final label into that category too."""

import pytest

from annotator.models import Resolution
from annotator.selectors.resolution_values import ProposedLabel, resolution_labels_fresh
from annotator.services.annotations import AnnotationInput, annotation_submit
from annotator.services.cardsort import cardsort_apply, proposal_decide
from annotator.services.migration import study_version_move
from taxonomy.models import Category
from taxonomy.services import version_publish
from taxonomy.services.operations import version_publish_with_changelog
from tests.annotator.final_labels import values_of
from tests.annotator.worlds import build_world
from tests.factories import make_taxonomy_maintainer

pytestmark = pytest.mark.django_db
PROPOSAL = "Gradient overflow in the optimizer"


@pytest.fixture
def world(users):
    make_taxonomy_maintainer(users["owner"])
    world = build_world(users, n_issues=2)
    version_publish(version=world.study.taxonomy_version)
    symptom = world.cats["symptom"][0].pk
    for role in ("rater_a", "rater_b"):
        for i, assignment in enumerate(world.assignments[role]):
            annotation = assignment.annotation
            annotation.refresh_from_db()
            # Issue 0: both propose the same root cause (spelled a little differently); issue 1: both choose one.
            data = (
                AnnotationInput(values={"symptom": [symptom]}, proposals={"root_cause": f"  {PROPOSAL.upper()} "})
                if i == 0 and role == "rater_b"
                else AnnotationInput(values={"symptom": [symptom]}, proposals={"root_cause": PROPOSAL})
                if i == 0
                else AnnotationInput(values={"symptom": [symptom], "root_cause": [world.cats["root_cause"][0].pk]})
            )
            annotation_submit(annotation=annotation, actor=users[role], data=data, expected_version=annotation.version)
    return world


def final_of(world, index: int) -> Resolution:
    return Resolution.objects.get(study_issue_id=world.assignments["rater_a"][index].study_issue_id)


def test_a_shared_proposal_is_the_final_label(world):
    resolution = final_of(world, 0)
    assert resolution.status == Resolution.Status.RESOLVED and resolution.method == Resolution.Method.UNANIMOUS
    labels = resolution_labels_fresh(resolution)
    (proposed,) = labels["root_cause"]
    assert isinstance(proposed, ProposedLabel) and proposed.text == PROPOSAL
    assert proposed.annotation_id == world.assignments["rater_a"][0].annotation.pk  # the first rater's
    assert values_of(resolution)["symptom"] == [world.cats["symptom"][0].pk]


def test_different_proposals_still_disagree(users):
    make_taxonomy_maintainer(users["owner"])
    world = build_world(users, n_issues=1)
    symptom = world.cats["symptom"][0].pk
    for role, text in (("rater_a", "gradient overflow"), ("rater_b", "loss scale underflow")):
        annotation = world.assignments[role][0].annotation
        annotation.refresh_from_db()
        annotation_submit(
            annotation=annotation,
            actor=users[role],
            data=AnnotationInput(values={"symptom": [symptom]}, proposals={"root_cause": text}),
            expected_version=annotation.version,
        )
    resolution = final_of(world, 0)
    assert resolution.status == Resolution.Status.PENDING and "root_cause" in resolution.disagreements


def test_the_move_makes_the_shared_proposal_its_category_for_raters_and_final_label(world, users):
    owner = users["owner"]
    proposal_decide(
        study=world.study,
        actor=owner,
        dimension_key="root_cause",
        proposals=[PROPOSAL],
        action="new",
        new_category_name="gradient overflow",
    )
    v2 = version_publish_with_changelog(version=cardsort_apply(study=world.study, actor=owner), actor=owner)
    study_version_move(study=world.study, to_version=v2, actor=owner)
    new = Category.objects.get(dimension__version=v2, name="gradient overflow")
    resolution = final_of(world, 0)
    assert values_of(resolution)["root_cause"] == [new.pk]
    assert resolution.status == Resolution.Status.RESOLVED
    for role in ("rater_a", "rater_b"):
        annotation = world.assignments[role][0].annotation
        annotation.refresh_from_db()
        assert list(annotation.values.filter(dimension__key="root_cause").values_list("category_id", flat=True)) == [
            new.pk
        ]
