"""The study forms read posted ids as the outside numbers they are: a digit of another script or an id no
column holds is a form error on the page, never a different object and never an error page."""

import pytest

from annotator.models import Study
from tests.annotator.studies.factories import make_owner, make_taxonomy

HUGE = "9" * 23


def _post(client, taxonomy, users, **changes):
    data = {
        "name": "Hostile ids",
        "taxonomy_version": taxonomy["version"].pk,
        "dimensions": [taxonomy["dims"]["symptom"].pk],
        "raters": [users["rater_a"].pk, users["rater_b"].pk],
        "raters_per_issue": 2,
        "assignment_mode": "fixed",
        "guidelines": "",
        "pilot_size": 0,
        "agreement_threshold": "0.8",
        **changes,
    }
    return client.post("/studies/new/", data)


@pytest.mark.parametrize(
    "changes",
    [
        {"taxonomy_version": "\u0661"},  # ARABIC-INDIC DIGIT ONE: int() reads it as 1
        {"taxonomy_version": HUGE},
        {"dimensions": [HUGE]},
        {"dimensions": ["\u0661"]},
        {"raters": [HUGE]},
        {"adjudicators": [HUGE]},
        {"frame_kind": "repositories", "frame_repositories": [HUGE]},
        {"frame_kind": "import", "import_job": HUGE},
        {"frame_kind": "search", "search_repository": HUGE},
    ],
    ids=lambda changes: ",".join(changes),
)
def test_a_hostile_id_is_a_form_error(db, users, client_as, changes):
    make_owner("owner")
    taxonomy = make_taxonomy()
    response = _post(client_as("owner"), taxonomy, users, **changes)
    assert response.status_code == 200, response.status_code
    assert 'aria-invalid="true"' in response.content.decode() or "errorlist" in response.content.decode()
    assert not Study.objects.filter(name="Hostile ids").exists()


def test_the_same_form_with_plain_ids_creates_the_study(db, users, client_as):
    make_owner("owner")
    taxonomy = make_taxonomy()
    response = _post(client_as("owner"), taxonomy, users)
    assert response.status_code == 302
    assert Study.objects.filter(name="Hostile ids").exists()
