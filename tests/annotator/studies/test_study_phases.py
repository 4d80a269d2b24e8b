"""A study's phase moves only along its own paths, whichever surface asks: service, page or admin."""

import pytest

from annotator.models import PhaseChange, Study
from annotator.services.studies import study_update
from core.errors import DomainError

pytestmark = pytest.mark.django_db


def _in_phase(study, phase):
    Study.objects.filter(pk=study.pk).update(phase=phase)
    study.refresh_from_db()
    return study


def test_the_service_refuses_to_publish_a_study_without_final_labels(world, users):
    study = _in_phase(world.study, Study.Phase.ADJUDICATION)
    with pytest.raises(DomainError, match="Publish"):
        study_update(study=study, actor=users["owner"], phase=Study.Phase.PUBLISHED)
    study.refresh_from_db()
    assert study.phase == Study.Phase.ADJUDICATION
    assert not PhaseChange.objects.filter(study=study).exists()


def test_the_service_refuses_to_leave_the_pilot_around_the_agreement_gate(world, users):
    study = _in_phase(world.study, Study.Phase.PILOT)
    with pytest.raises(DomainError, match="agreement gate"):
        study_update(study=study, actor=users["owner"], phase=Study.Phase.LABELLING)
    study.refresh_from_db()
    assert study.phase == Study.Phase.PILOT


def test_a_published_study_changes_phase_only_by_unpublishing(world, users):
    study = _in_phase(world.study, Study.Phase.PUBLISHED)
    with pytest.raises(DomainError, match="unpublish"):
        study_update(study=study, actor=users["owner"], phase=Study.Phase.LABELLING)


def test_an_allowed_phase_move_is_recorded(world, users):
    study = _in_phase(world.study, Study.Phase.LABELLING)
    study_update(study=study, actor=users["owner"], phase=Study.Phase.ADJUDICATION)
    change = PhaseChange.objects.get(study=study)
    assert (change.from_phase, change.to_phase, change.actor) == ("labelling", "adjudication", users["owner"])


def test_guidelines_change_without_a_phase_move(world, users):
    study = _in_phase(world.study, Study.Phase.PILOT)
    study_update(study=study, actor=users["owner"], guidelines="new", phase=Study.Phase.PILOT)
    study.refresh_from_db()
    assert study.guidelines == "new" and not PhaseChange.objects.filter(study=study).exists()


@pytest.mark.parametrize("path", ["add/", "{pk}/change/", "{pk}/delete/"])
def test_even_a_superuser_cannot_write_a_study_in_the_admin(client_as, world, path):
    study = world.study
    before = Study.objects.filter(pk=study.pk).values().get()
    url = f"/admin/annotator/study/{path.format(pk=study.pk)}"
    response = client_as("staff").post(url, {"phase": "published", "name": "renamed", "post": "yes"})
    assert response.status_code == 403
    assert Study.objects.filter(pk=study.pk).values().get() == before


def test_staff_can_still_read_a_study_in_the_admin(client_as, world):
    assert client_as("staff").get(f"/admin/annotator/study/{world.study.pk}/change/").status_code == 200
