"""A rater's texts have one set of bounds, held by the services: the API, the page's form and any other caller."""

import pytest

from annotator.models import Annotation, AnnotationHistory, FirstSubmission
from annotator.services.annotations import (
    EXCLUDED_TEXT_MAX_CHARS,
    NOTE_MAX_CHARS,
    PROPOSAL_MAX_CHARS,
    AnnotationInput,
    annotation_save_draft,
    annotation_submit,
)
from core.errors import DomainError
from tests.annotator.worlds import build_world, complete_input

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(users):
    return build_world(users)


def _untouched(world) -> None:
    annotation = Annotation.objects.get(pk=world.a.annotation.pk)
    assert (annotation.version, annotation.note, annotation.excluded_text) == (1, "", "")
    assert not AnnotationHistory.objects.filter(annotation=annotation).exists()
    assert not FirstSubmission.objects.filter(annotation=annotation).exists()


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"note": "n" * (NOTE_MAX_CHARS + 1)}, "note"),
        (
            {"excluded": True, "excluded_reason": "not_a_bug", "excluded_text": "t" * (EXCLUDED_TEXT_MAX_CHARS + 1)},
            "excluded_text",
        ),
        ({"values": {}, "proposals": {"symptom": "p" * (PROPOSAL_MAX_CHARS + 1)}}, "proposals"),
    ],
)
@pytest.mark.parametrize("service", [annotation_save_draft, annotation_submit])
def test_the_services_refuse_a_text_over_its_bound(world, users, service, overrides, field):
    with pytest.raises(DomainError) as refused:
        service(
            annotation=world.a.annotation,
            actor=users["rater_a"],
            data=complete_input(world, **overrides),
            expected_version=1,
        )
    assert refused.value.field == field
    _untouched(world)


def test_texts_at_their_bounds_are_kept_whole(world, users):
    note, details, proposal = "n" * NOTE_MAX_CHARS, "t" * EXCLUDED_TEXT_MAX_CHARS, "p" * PROPOSAL_MAX_CHARS
    annotation_save_draft(
        annotation=world.a.annotation,
        actor=users["rater_a"],
        data=AnnotationInput(note=note, excluded=True, excluded_reason="not_a_bug", excluded_text=details),
        expected_version=1,
    )
    saved = annotation_save_draft(
        annotation=world.a.annotation,
        actor=users["rater_a"],
        data=AnnotationInput(note=note, proposals={"symptom": proposal}),
        expected_version=2,
    )
    assert (saved.note, saved.proposals) == (note, {"symptom": proposal})


@pytest.mark.parametrize(
    ("field", "length", "named"),
    [("note", NOTE_MAX_CHARS + 1, "Note"), ("excluded_text", EXCLUDED_TEXT_MAX_CHARS + 1, "Exclusion details")],
)
@pytest.mark.parametrize("action", ["draft", "submit"])
def test_the_page_form_refuses_a_text_over_its_bound_and_says_which(world, client_as, action, field, length, named):
    data = {"action": action, "version": "1", "excluded_reason": "not_a_bug", field: "x" * length}
    if field == "excluded_text":
        data["excluded"] = "on"
    data["dim_symptom"] = str(world.cats["symptom"][0].pk)
    data["dim_root_cause"] = str(world.cats["root_cause"][0].pk)

    response = client_as("rater_a").post(f"/studies/{world.study.pk}/label/{world.a.pk}/", data)

    assert response.status_code == 200
    assert f"{named}: Ensure this value has at most" in response.content.decode()
    _untouched(world)


def test_the_page_bounds_its_text_boxes_as_the_services_do(world, client_as):
    html = client_as("rater_a").get(f"/studies/{world.study.pk}/label/{world.a.pk}/").content.decode()
    assert f'maxlength="{NOTE_MAX_CHARS}" data-testid="note"' in html
    assert f'maxlength="{EXCLUDED_TEXT_MAX_CHARS}" aria-label="Exclusion details"' in html
    assert f'maxlength="{PROPOSAL_MAX_CHARS}" data-testid="proposal-symptom"' in html


def test_the_api_refuses_a_note_over_its_bound(world, api_as):
    response = api_as("rater_a").put(
        f"/api/v1/annotations/{world.a.annotation.pk}/draft/",
        {"note": "n" * (NOTE_MAX_CHARS + 1), "version": 1},
        format="json",
    )
    assert response.status_code == 400
    _untouched(world)
