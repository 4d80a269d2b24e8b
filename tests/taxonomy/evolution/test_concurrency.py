"""Two owners editing one draft at the same moment: the version row lock serialises them, the revision check
turns the loser's stale edit into a conflict instead of a silent overwrite."""

import pytest

from core.errors import ConflictError
from taxonomy.models import CategoryLineage, TaxonomyVersion
from taxonomy.services.operations import category_add, category_rename
from tests.concurrency import raised, run_together
from tests.taxonomy.evolution.conftest import cat

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_owners_with_the_same_revision_one_wins(draft, editors):
    hang, timeout = cat(draft, "hang").pk, cat(draft, "timeout").pk
    outcomes = run_together(
        lambda: category_rename(category=hang, actor=editors.alice, name="stall", expected_revision=0),
        lambda: category_rename(category=timeout, actor=editors.bob, name="time-out", expected_revision=0),
    )
    conflicts = [error for error in raised(outcomes) if isinstance(error, ConflictError)]
    assert len(conflicts) == 1, outcomes
    assert TaxonomyVersion.objects.get(pk=draft.pk).edit_revision == 1
    assert CategoryLineage.objects.filter(version=draft, operation="rename").count() == 1


def test_edits_without_a_revision_serialise_and_both_count(draft, editors):
    outcomes = run_together(
        *[
            (lambda n=n: category_add(version=draft, actor=editors.alice, dimension_key="symptom", name=f"new {n}"))
            for n in range(4)
        ]
    )
    assert raised(outcomes) == [], outcomes
    assert TaxonomyVersion.objects.get(pk=draft.pk).edit_revision == 4
