"""A study's dimensions are cached per process, and every way of changing them is seen at once."""

import pytest

from annotator.models import Study
from annotator.selectors.studies import study_dimension_ids
from annotator.services.annotations import AnnotationInput, annotation_save_draft
from core.errors import DomainError
from tests.annotator.worlds import build_world

pytestmark = pytest.mark.django_db


def _fresh(study) -> Study:
    return Study.objects.get(pk=study.pk)  # as the next request reads it


def test_changes_from_the_study_side_are_seen(users):
    world = build_world(users, n_issues=1)
    symptom, root_cause = world.dims["symptom"], world.dims["root_cause"]
    assert set(study_dimension_ids(study=_fresh(world.study))) >= {symptom.pk, root_cause.pk}

    world.study.dimensions.remove(symptom)
    assert symptom.pk not in study_dimension_ids(study=_fresh(world.study))
    world.study.dimensions.add(symptom)
    assert symptom.pk in study_dimension_ids(study=_fresh(world.study))
    world.study.dimensions.set([root_cause])
    assert study_dimension_ids(study=_fresh(world.study)) == (root_cause.pk,)
    world.study.dimensions.clear()
    assert study_dimension_ids(study=_fresh(world.study)) == ()


def test_changes_from_the_dimension_side_are_seen(users):
    world = build_world(users, n_issues=1)
    symptom = world.dims["symptom"]
    study_dimension_ids(study=_fresh(world.study))  # cached

    symptom.studies.remove(world.study)
    assert symptom.pk not in study_dimension_ids(study=_fresh(world.study))
    symptom.studies.add(world.study)
    assert symptom.pk in study_dimension_ids(study=_fresh(world.study))
    symptom.studies.clear()
    assert symptom.pk not in study_dimension_ids(study=_fresh(world.study))


def test_a_label_of_a_dimension_taken_from_the_study_is_refused_at_once(users):
    world = build_world(users, n_issues=1)
    annotation = world.a.annotation
    values = {"symptom": [world.cats["symptom"][0].pk]}
    saved = annotation_save_draft(
        annotation=annotation.pk, actor=users["rater_a"], data=AnnotationInput(values=values), expected_version=1
    )
    world.study.dimensions.remove(world.dims["symptom"])

    with pytest.raises(DomainError, match="does not label the dimension"):
        annotation_save_draft(
            annotation=annotation.pk,
            actor=users["rater_a"],
            data=AnnotationInput(values=values),
            expected_version=saved.version,
        )
