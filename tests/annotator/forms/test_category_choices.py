"""The labelling and adjudication forms read category ids (and "p<annotation id>") as ASCII digits only:
"²" and "١" are digits to str.isdigit, but int() refuses the first and reads the second as 1."""

from types import SimpleNamespace

import pytest
from django.http import QueryDict

from annotator.forms.adjudication import ResolutionForm
from annotator.forms.labelling import AnnotationForm

DIMENSIONS = [SimpleNamespace(key="symptom")]
NOT_IDS = ["x", "-1", "²", "١", "𝟙", "9" * 19]


def _data(**fields) -> QueryDict:
    data = QueryDict(mutable=True)
    for name, values in fields.items():
        data.setlist(name, values)
    return data


def _annotation(values: list[str]) -> AnnotationForm:
    return AnnotationForm(_data(action=["draft"], version=["1"], dim_symptom=values), dimensions=DIMENSIONS)


def _resolution(values: list[str]) -> ResolutionForm:
    return ResolutionForm(_data(version=["1"], method=["adjudicated"], dim_symptom=values), dimensions=DIMENSIONS)


@pytest.mark.parametrize("make", [_annotation, _resolution])
def test_ascii_category_ids_are_read(make):
    form = make(["12", "7"])
    assert form.is_valid(), form.errors
    assert form.cleaned_data["values"] == {"symptom": [12, 7]}


@pytest.mark.parametrize("make", [_annotation, _resolution])
@pytest.mark.parametrize("value", NOT_IDS)
def test_a_category_id_not_in_ascii_digits_could_not_be_read(make, value):
    form = make(["12", value])
    assert not form.is_valid()
    assert form.errors["__all__"] == ["A category choice could not be read; reload the page."]


def test_a_proposal_is_read_from_ascii_digits_only():
    form = _resolution(["p31"])
    assert form.is_valid(), form.errors
    assert form.cleaned_data["proposals"] == {"symptom": 31}
    for value in NOT_IDS:
        assert not _resolution([f"p{value}"]).is_valid()
