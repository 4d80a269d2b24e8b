"""A labelled study: both raters submitted every issue, disagreements adjudicated, one title a formula."""

import pytest
from django.core.cache import cache

from annotator.models import Resolution
from annotator.services.resolutions import resolution_record
from tests.annotator.adjudication.conftest import labels, make_world, submit
from tests.annotator.studies.conftest import client_for, outsider  # noqa: F401 - fixtures

FORMULA_TITLE = "=cmd()"


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()
    yield
    cache.clear()


def labelled_world(users, n_issues: int = 6):
    world = make_world(users, n_issues=n_issues)
    first = world.a.study_issue.issue
    first.title = FORMULA_TITLE
    first.save(update_fields=["title"])
    for index in range(n_issues):
        symptom, cause = index % 3, index % 3
        submit(world, users, "rater_a", index, note="agree with rater_b", **labels(world, symptom, cause, [0]))
        other_cause = cause if index % 2 == 0 else (cause + 1) % 3
        submit(world, users, "rater_b", index, **labels(world, symptom, other_cause, [0, 1] if index == 1 else [0]))
    for resolution in Resolution.objects.filter(study_issue__study=world.study, status=Resolution.Status.PENDING):
        values = {"root_cause": [world.cats["root_cause"][0].pk]}
        if "stage" in resolution.disagreements:
            values["stage"] = [world.cats["stage"][0].pk]
        resolution_record(
            study_issue=resolution.study_issue,
            actor=users["adjudicator"],
            values=values,
            method=Resolution.Method.ADJUDICATED,
            reason=Resolution.Reason.RATER_ERROR,
            note="rater_a was right",
            expected_version=resolution.version,
        )
    return world


@pytest.fixture
def world(users, outsider):  # noqa: F811
    return labelled_world(users)
