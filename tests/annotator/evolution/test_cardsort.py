"""The card-sorting board: owners only (proposals reveal raters' words), decisions stored, applied to a draft."""

import pytest
from django.urls import reverse

from annotator.models import ProposalDecision
from annotator.services.cardsort import cardsort_apply, proposal_decide
from core.errors import DomainError, PermissionDeniedError
from taxonomy.models import Category, CategoryLineage


@pytest.fixture
def world(proposing_world):
    return proposing_world


def url(world, name="study_cardsort"):
    return reverse(f"annotator:{name}", args=[world.study.pk])


@pytest.mark.parametrize(
    ("role", "status"),
    [("anonymous", 302), ("outsider", 404), ("rater_a", 403), ("adjudicator", 403), ("owner", 200), ("staff", 200)],
)
def test_only_owners_see_the_board(world, client_for, role, status):
    client = client_for(role) if role != "anonymous" else __import__("django.test").test.Client()
    response = client.get(url(world))
    assert response.status_code == status
    if status == 200:
        assert b"NCCL timeout 0" in response.content and b"NCCL timeout 1" in response.content


@pytest.mark.parametrize(("role", "status"), [("outsider", 404), ("rater_a", 403), ("adjudicator", 403)])
def test_a_denied_decision_changes_nothing(world, client_for, role, status):
    response = client_for(role).post(
        url(world, "study_cardsort_decide"),
        {"dimension": "stage", "proposal": "nccl timeout 0", "action": "reject", "reason": "no"},
    )
    assert response.status_code == status
    assert not ProposalDecision.objects.exists()


def test_cards_group_spellings_and_count_issues(world, client_for):
    response = client_for("owner").get(url(world))
    [column] = [c for c in response.context["columns"] if c.dimension.key == "stage"]
    by_key = {card.key: card for card in column.cards}
    # Five issues, proposals alternate "NCCL timeout 0"/"1" per issue index, same for both raters.
    assert by_key["nccl timeout 0"].issues == 3 and by_key["nccl timeout 1"].issues == 2
    assert by_key["nccl timeout 0"].examples[0]["ref"].startswith("DeepSpeed#")


def test_decisions_are_stored_and_resume_the_board(world, client_for):
    client = client_for("owner")
    response = client.post(
        url(world, "study_cardsort_decide"),
        {"dimension": "stage", "proposal": ["NCCL  Timeout 0"], "action": "new", "name": "collective timeout"},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 200, response.content
    decision = ProposalDecision.objects.get()
    assert (decision.proposal, decision.action, decision.new_category_name) == (
        "nccl timeout 0",
        "new",
        "collective timeout",
    )
    column = next(c for c in client.get(url(world)).context["columns"] if c.dimension.key == "stage")
    assert [c.key for c in column.open_cards] == ["nccl timeout 1"]


def test_reject_needs_a_reason(world, users):
    with pytest.raises(DomainError):
        proposal_decide(
            study=world.study, actor=users["owner"], dimension_key="stage", proposals=["x"], action="reject"
        )
    with pytest.raises(PermissionDeniedError):
        proposal_decide(
            study=world.study,
            actor=users["rater_a"],
            dimension_key="stage",
            proposals=["NCCL timeout 0"],
            action="reject",
            reason="dup",
        )
    assert not ProposalDecision.objects.exists()


def test_applying_builds_a_draft_with_new_categories_and_aliases(world, users):
    owner = users["owner"]
    target = world.cats["stage"][2]
    proposal_decide(
        study=world.study,
        actor=owner,
        dimension_key="stage",
        proposals=["NCCL timeout 0"],
        action="new",
        new_category_name="collective timeout",
    )
    proposal_decide(
        study=world.study,
        actor=owner,
        dimension_key="stage",
        proposals=["NCCL timeout 1"],
        action="alias",
        target_lineage_id=str(target.lineage_id),
    )
    draft = cardsort_apply(study=world.study, actor=owner)
    assert draft.based_on_id == world.study.taxonomy_version_id and not draft.is_published
    new = Category.objects.get(dimension__version=draft, name="collective timeout")
    assert new.aliases == ["NCCL timeout 0"] and new.examples
    aliased = Category.objects.get(dimension__version=draft, lineage_id=target.lineage_id)
    assert "NCCL timeout 1" in aliased.aliases
    add = CategoryLineage.objects.get(version=draft, operation="add")
    assert add.note == "from 1 proposal covering 3 issues"
    draft.refresh_from_db()
    assert "added 'collective timeout' (from 1 proposal covering 3 issues)" in draft.changelog
    assert set(ProposalDecision.objects.values_list("applied_to", flat=True)) == {draft.pk}
    with pytest.raises(DomainError, match="No sorted proposals"):
        cardsort_apply(study=world.study, actor=owner)
