"""The pilot gate: refused below the threshold (naming the dimensions), allowed above, override kept."""

import pytest

from annotator.models import PhaseChange, Study
from annotator.services.agreement import agreement_gate, study_leave_pilot
from core.errors import DomainError, PermissionDeniedError
from tests.annotator.agreement_study.factories import assignments_of, grant_study, study_with_issues, write_label

pytestmark = pytest.mark.django_db


def perfect_study(users, **options):
    """Symptom only, both raters always agree, two categories used: kappa 1."""
    study = study_with_issues(users, n_issues=10, kind="pilot", **options)
    yes, no = study.taxonomy_fixture["cats"]["symptom"][:2]
    for role in ("rater_a", "rater_b"):
        for assignment in assignments_of(study, users[role]):
            write_label(assignment, [yes if assignment.study_issue.position % 2 else no])
    return study


def only_symptom(users):
    from tests.annotator.studies.factories import make_taxonomy

    taxonomy = make_taxonomy()
    return {"taxonomy": taxonomy, "dimensions": [taxonomy["dims"]["symptom"]]}


def test_below_the_threshold_the_pilot_cannot_end_and_the_message_names_the_dimension(users):
    study = grant_study(users, kind="pilot")
    with pytest.raises(DomainError) as refused:
        study_leave_pilot(study=study, actor=users["owner"])
    message = refused.value.message
    assert "Symptom (kappa 0.40, n=50)" in message
    assert "Root Cause (kappa undefined" in message and "Stage (alpha (MASI) undefined" in message
    assert "threshold 0.80" in message and "written reason" in message
    study.refresh_from_db()
    assert study.phase == Study.Phase.PILOT
    assert not PhaseChange.objects.exists()


def test_at_or_above_the_threshold_the_owner_leaves_the_pilot(users):
    study = perfect_study(users, **only_symptom(users))
    gate = agreement_gate(study=study)
    assert gate["passed"] and gate["round"] == 1
    change = study_leave_pilot(study=study, actor=users["owner"])
    study.refresh_from_db()
    assert study.phase == Study.Phase.LABELLING
    assert (change.from_phase, change.to_phase, change.overridden, change.reason) == ("pilot", "labelling", False, "")
    assert change.figures["dimensions"][0]["value"] == pytest.approx(1.0)


def test_the_threshold_is_the_studys_own(users):
    study = grant_study(users, kind="pilot", only_symptom=True, agreement_threshold=0.4)
    assert agreement_gate(study=study)["passed"] is True  # kappa 0.4 reaches a threshold of 0.4
    Study.objects.filter(pk=study.pk).update(agreement_threshold=0.41)
    study.refresh_from_db()
    assert agreement_gate(study=study)["passed"] is False


def test_an_override_with_a_reason_is_kept_with_the_figures(users):
    study = grant_study(users, kind="pilot", only_symptom=True)
    change = study_leave_pilot(
        study=study, actor=users["owner"], override_reason="  Kappa 0.4 on 50 issues; guidelines revised.  "
    )
    study.refresh_from_db()
    assert study.phase == Study.Phase.LABELLING
    stored = PhaseChange.objects.get(pk=change.pk)
    assert stored.overridden is True
    assert stored.reason == "Kappa 0.4 on 50 issues; guidelines revised."
    assert stored.actor == users["owner"]
    assert stored.figures["failing"] == ["Symptom"]
    assert stored.figures["dimensions"][0]["value"] == pytest.approx(0.4)


def test_a_blank_reason_is_no_override(users):
    study = grant_study(users, kind="pilot", only_symptom=True)
    with pytest.raises(DomainError, match="Symptom"):
        study_leave_pilot(study=study, actor=users["owner"], override_reason="   ")
    assert not PhaseChange.objects.exists()


@pytest.mark.parametrize("role", ["rater_a", "adjudicator"])
def test_only_the_owner_ends_the_pilot(users, role):
    study = perfect_study(users, **only_symptom(users))
    with pytest.raises(PermissionDeniedError):
        study_leave_pilot(study=study, actor=users[role], override_reason="because")
    study.refresh_from_db()
    assert study.phase == Study.Phase.PILOT and not PhaseChange.objects.exists()


def test_a_study_out_of_its_pilot_has_no_pilot_to_leave(users):
    study = perfect_study(users, **only_symptom(users))
    study_leave_pilot(study=study, actor=users["owner"])
    with pytest.raises(DomainError, match="not in the pilot"):
        study_leave_pilot(study=study, actor=users["owner"])
    assert PhaseChange.objects.count() == 1


def test_the_study_settings_form_cannot_skip_the_gate(users, client_as):
    study = grant_study(users, kind="pilot", only_symptom=True)
    response = client_as("owner").post(
        f"/studies/{study.pk}/edit/", {"phase": "labelling", "guidelines": "new"}, follow=True
    )
    assert response.status_code == 200
    assert "below the threshold" in response.content.decode()
    study.refresh_from_db()
    assert study.phase == Study.Phase.PILOT and study.guidelines != "new"


def test_the_study_settings_form_leaves_a_passed_pilot(users, client_as):
    study = perfect_study(users, **only_symptom(users))
    client_as("owner").post(f"/studies/{study.pk}/edit/", {"phase": "labelling", "guidelines": "new"})
    study.refresh_from_db()
    assert (study.phase, study.guidelines) == ("labelling", "new")
    assert PhaseChange.objects.get().overridden is False
