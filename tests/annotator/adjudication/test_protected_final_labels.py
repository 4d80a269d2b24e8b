"""Issue #13's case: deleting a draft category that only a final label used. Every surface that deletes taxonomy
content (the service, the admin) refuses it with a message, and the final dataset keeps its label."""

import pytest
from django.urls import reverse
from django.utils import timezone

from annotator.models import Resolution, ResolutionValue
from annotator.services.exports import export_context
from annotator.services.exports.lines import final_dataset_csv_lines
from core.errors import ConflictError
from taxonomy.models import Category, TaxonomyVersion
from taxonomy.services import version_delete
from tests.annotator.final_labels import resolution_make, values_of
from tests.annotator.worlds import make_world


@pytest.fixture
def world(users):
    """A study on a draft version; one final label (imported, say) uses a category no rater chose."""
    world = make_world(users, n_issues=1)
    assert not world.study.taxonomy_version.is_published
    world.used = world.cats["root_cause"][2]
    world.resolution = resolution_make(
        study_issue=world.a.study_issue,
        values={"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.used.pk]},
        method=Resolution.Method.ADJUDICATED,
        status=Resolution.Status.RESOLVED,
        decided_at=timezone.now(),
    )
    return world


def csv_text(world) -> str:
    return "".join(final_dataset_csv_lines(export_context(study=world.study, pseudonymous=False)))


def test_the_service_refuses_with_a_message_naming_the_final_label(world):
    exported = csv_text(world)
    with pytest.raises(ConflictError, match=r"used by .*\d+ final labels?.*nothing was deleted"):
        version_delete(version=world.study.taxonomy_version)
    assert Category.objects.filter(pk=world.used.pk).exists()
    assert values_of(world.resolution)["root_cause"] == [world.used.pk]
    assert csv_text(world) == exported
    assert world.used.code in exported, "root_cause is not blank in final.csv"


def test_the_admin_refuses_naming_the_final_labels_and_keeps_everything(world, client_as):
    version = world.study.taxonomy_version
    rows = list(ResolutionValue.objects.values_list("pk", "category_id"))
    response = client_as("staff").post(
        reverse("admin:taxonomy_taxonomyversion_delete", args=[version.pk]), {"post": "yes"}, follow=True
    )
    page = response.content.decode()
    # Django's admin lists what protects the version (the study using it, whose final labels hold its categories).
    assert response.status_code == 200 and "Cannot delete taxonomy version" in page
    assert TaxonomyVersion.objects.filter(pk=version.pk).exists()
    assert list(ResolutionValue.objects.values_list("pk", "category_id")) == rows
