"""Labels change only through the services (which keep history): the admin shows them, nobody edits them there."""

import pytest

from annotator.models import Annotation

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("model", ["annotation", "assignment", "studyissue", "studyframe", "resolution"])
def test_even_a_superuser_cannot_add_labels_or_work_in_the_admin(client_as, world, model):
    response = client_as("staff").get(f"/admin/annotator/{model}/add/")
    assert response.status_code == 403


def test_even_a_superuser_cannot_edit_an_annotation_in_the_admin(client_as, world):
    annotation = world.a.annotation
    before = Annotation.objects.filter(pk=annotation.pk).values().get()
    response = client_as("staff").post(
        f"/admin/annotator/annotation/{annotation.pk}/change/", {"note": "edited behind the service's back"}
    )
    assert response.status_code == 403
    assert Annotation.objects.filter(pk=annotation.pk).values().get() == before


def test_staff_can_still_read_annotations_in_the_admin(client_as, world):
    response = client_as("staff").get(f"/admin/annotator/annotation/{world.a.annotation.pk}/change/")
    assert response.status_code == 200


def test_the_settings_form_cannot_publish_a_study_past_the_publish_checks(client_as, world):
    from annotator.models import Study

    study = world.study
    Study.objects.filter(pk=study.pk).update(phase=Study.Phase.LABELLING)
    response = client_as("owner").post(
        f"/studies/{study.pk}/edit/", {"phase": Study.Phase.PUBLISHED, "guidelines": "x"}
    )
    assert response.status_code == 302
    study.refresh_from_db()
    assert study.phase == Study.Phase.LABELLING


def test_staff_read_a_studys_recorded_frames_in_the_admin(client_as, world):
    response = client_as("staff").get("/admin/annotator/studyframe/")
    assert response.status_code == 200
    assert world.study.name in response.content.decode()
