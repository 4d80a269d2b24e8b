"""The data migration 0024: annotations imported from a package without the `independent` layer before the
import recorded their first submissions get them now, by 0012's rule (the first "submit" entry of the
history); first submissions already recorded are left as they were."""

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotator.models import Annotation, AnnotationValue, FirstSubmission, FirstSubmissionValue
from annotator.services.annotations import annotation_reopen
from tests.annotator.exports_service.test_package_without_first_layer import import_old_package

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("annotator", "0023_append_only_guards")]
AFTER = [("annotator", "0024_first_submissions_of_imported_annotations")]


def migrate(targets) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


@pytest.fixture
def back_to_latest():
    yield
    call_command("migrate", verbosity=0)  # the next tests expect the current schema


def recorded() -> dict[int, tuple]:
    """Every first submission: annotation -> (pk, source, submitted_at, values)."""
    return {
        first.annotation_id: (
            first.pk,
            first.source,
            first.submitted_at,
            sorted(first.values.values_list("dimension_id", "category_id")),
        )
        for first in FirstSubmission.objects.all()
    }


def test_imported_annotations_without_a_first_submission_get_their_imported_labels(
    users, outsider, tmp_path, back_to_latest
):
    world = import_old_package(users, tmp_path)
    imported = Annotation.objects.filter(assignment__study_issue__study=world.imported).order_by("pk")
    as_imported = {a.pk: sorted(a.values.values_list("dimension_id", "category_id")) for a in imported}
    submitted_at = {a.pk: a.submitted_at for a in imported}
    # As an import before the fix left them: no first submission.
    FirstSubmissionValue.objects.filter(first_submission__annotation__in=imported).delete()
    FirstSubmission.objects.filter(annotation__in=imported).delete()
    kept = recorded()
    assert set(kept).isdisjoint(as_imported) and len(kept) == 2, "the source study's own first submissions"
    # One is reopened (a send-back, a version move) and holds a draft of revised labels, not yet resubmitted.
    reopened = annotation_reopen(annotation=imported[0], actor=users["owner"], reason="discuss")
    revised = next(c for c in world.cats["root_cause"] if (c.dimension_id, c.pk) not in as_imported[reopened.pk])
    AnnotationValue.objects.filter(annotation=reopened, dimension__key="root_cause").update(category_id=revised.pk)

    migrate(BEFORE)
    migrate(AFTER)

    after = recorded()
    assert {pk: after[pk] for pk in kept} == kept, "a first submission already recorded is left as it was"
    for pk, values in as_imported.items():
        _, source, when, first_values = after[pk]
        assert (source, when, first_values) == ("history", submitted_at[pk], values), (
            f"annotation {pk}: first submission {first_values} from {source}, the imported labels were {values}"
        )
    migrate(BEFORE)
    migrate(AFTER)
    assert recorded() == after, "a second run records nothing more"
