"""The adjudication pages: what they show, filters and order of the queue, recording, history."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.models import Resolution, Study
from tests.annotator.adjudication.test_failed_submit import selected
from tests.annotator.final_labels import values_of
from tests.annotator.worlds import labels, make_world, submit

pytestmark = pytest.mark.django_db


def queue_url(world, **params) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"/studies/{world.study.pk}/adjudication/" + (f"?{query}" if query else "")


def page_url(world, study_issue) -> str:
    return f"/studies/{world.study.pk}/adjudication/{study_issue.pk}/"


def test_the_page_shows_both_raters_side_by_side_with_the_difference_marked(world, disputed, client_for):
    body = client_for("adjudicator").get(page_url(world, disputed)).content.decode()
    assert 'data-testid="dim-root_cause"' in body
    assert body.count('data-testid="differs"') == 1
    assert "rater_a" in body and "rater_b" in body
    assert world.cats["root_cause"][0].name in body and world.cats["root_cause"][1].name in body
    assert world.cats["root_cause"][0].definition in body
    assert f'data-rater-1="{world.cats["root_cause"][0].pk}"' in body
    assert f'data-rater-2="{world.cats["root_cause"][1].pk}"' in body
    assert disputed.issue.title in body


def test_anonymous_adjudication_hides_names_from_adjudicators_but_not_from_the_owner(world, disputed, client_for):
    Study.objects.filter(pk=world.study.pk).update(anonymous_adjudication=True)
    body = client_for("adjudicator").get(page_url(world, disputed)).content.decode()
    assert "R1" in body and "R2" in body
    assert "rater_a" not in body and "rater_b" not in body
    queue = client_for("adjudicator").get(queue_url(world)).content.decode()
    assert "rater_a" not in queue and "R1 &amp; R2" in queue
    history = client_for("adjudicator").get(f"/studies/{world.study.pk}/issues/{disputed.pk}/history/")
    assert "rater_a" not in history.content.decode()
    assert "rater_a" in client_for("owner").get(page_url(world, disputed)).content.decode()


def test_the_queue_lists_disagreements_most_disputed_first_with_progress(world, users, client_for):
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    submit(world, users, "rater_b", 0, **labels(world, 0, 1))  # one dimension in dispute
    submit(world, users, "rater_a", 1, **labels(world, 0, 0))
    submit(world, users, "rater_b", 1, **labels(world, 1, 1))  # two
    submit(world, users, "rater_a", 2, **labels(world, 2, 2))
    submit(world, users, "rater_b", 2, **labels(world, 2, 2))  # agreement
    response = client_for("adjudicator").get(queue_url(world))
    rows = response.context["rows"]
    assert [row["study_issue"].pk for row in rows] == [world.issue_ids[1], world.issue_ids[0]]
    progress = response.context["progress"]
    assert {k: progress[k] for k in ("resolved", "pending", "excluded", "with_raters")} == {
        "resolved": 1,
        "pending": 2,
        "excluded": 0,
        "with_raters": 0,
    }
    body = response.content.decode()
    assert 'data-testid="progress-pending">2<' in body


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"dimension": "symptom"}, [1]),
        ({"dimension": "root_cause"}, [1, 0]),
        ({"round": 1}, [1, 0]),
        ({"round": 9}, []),
        ({"status": "resolved"}, []),
        ({"category": "SYMPTOM1"}, [1]),
        ({"pair": "PAIR"}, [1, 0]),
    ],
)
def test_queue_filters(world, users, client_for, params, expected):
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    submit(world, users, "rater_b", 0, **labels(world, 0, 1))
    submit(world, users, "rater_a", 1, **labels(world, 0, 0))
    submit(world, users, "rater_b", 1, **labels(world, 1, 1))
    if params.get("category") == "SYMPTOM1":
        params = {"category": world.cats["symptom"][1].pk}
    if params.get("pair") == "PAIR":
        a, b = sorted([users["rater_a"].pk, users["rater_b"].pk])
        params = {"pair": f"{a}-{b}"}
    rows = client_for("adjudicator").get(queue_url(world, **params)).context["rows"]
    assert [row["study_issue"].pk for row in rows] == [world.issue_ids[i] for i in expected]


def test_queue_filter_by_reason_finds_resolved_issues(world, disputed, client_for):
    client_for("adjudicator").post(
        page_url(world, disputed),
        {
            "version": 1,
            "dim_root_cause": world.cats["root_cause"][1].pk,
            "method": "adjudicated",
            "reason": "rater_error",
        },
    )
    found = client_for("owner").get(queue_url(world, status="resolved", reason="rater_error")).context["rows"]
    other = client_for("owner").get(queue_url(world, status="resolved", reason="guideline_gap")).context["rows"]
    assert [row["study_issue"].pk for row in found] == [disputed.pk]
    assert other == []


def test_recording_moves_on_to_the_next_disagreement(world, users, client_for):
    for index in (0, 1):
        submit(world, users, "rater_a", index, **labels(world, 0, 0))
        submit(world, users, "rater_b", index, **labels(world, 0, 1))
    first = Resolution.objects.get(study_issue_id=world.issue_ids[0])
    response = client_for("adjudicator").post(
        page_url(world, first.study_issue),
        {"version": 1, "dim_root_cause": world.cats["root_cause"][1].pk, "method": "negotiated", "reason": "other"},
    )
    assert response.status_code == 302
    assert response["Location"] == f"/studies/{world.study.pk}/adjudication/{world.issue_ids[1]}/"
    first.refresh_from_db()
    assert first.status == "resolved" and first.method == "negotiated"


def test_a_stale_form_answers_409_with_the_winning_decision(world, disputed, client_for):
    data = {"version": 1, "dim_root_cause": world.cats["root_cause"][1].pk, "method": "adjudicated", "reason": "other"}
    assert client_for("adjudicator").post(page_url(world, disputed), data).status_code == 302
    response = client_for("owner").post(
        page_url(world, disputed), {**data, "dim_root_cause": world.cats["root_cause"][0].pk}
    )
    assert response.status_code == 409
    assert "Someone else changed this resolution" in response.content.decode()
    assert values_of(Resolution.objects.get(study_issue=disputed))["root_cause"] == [world.cats["root_cause"][1].pk]
    # The page shows the winner's choice, not the one that lost (a refusal of any other kind keeps the form's).
    assert selected(response.content.decode(), "dim_root_cause") == [str(world.cats["root_cause"][1].pk)]


def test_a_missing_decision_is_explained_on_the_page(world, disputed, client_for):
    response = client_for("adjudicator").post(
        page_url(world, disputed), {"version": 1, "dim_root_cause": "", "method": "adjudicated", "reason": "other"}
    )
    assert response.status_code == 400
    assert "Choose the final category for Root Cause" in response.content.decode()


def test_the_history_shows_every_change_with_category_names(world, disputed, client_for):
    client_for("adjudicator").post(
        page_url(world, disputed),
        {"version": 1, "dim_root_cause": world.cats["root_cause"][1].pk, "method": "adjudicated", "reason": "other"},
    )
    response = client_for("owner").get(f"/studies/{world.study.pk}/issues/{disputed.pk}/history/")
    entries = response.context["entries"]
    actions = [(e.kind, e.action) for e in entries]
    assert ("annotation", "Submitted") in actions
    assert ("annotation", "Frozen for adjudication") in actions
    assert actions[-2:] == [("resolution", "Compared automatically"), ("resolution", "Recorded")]
    assert entries[-1].who == "adjudicator"
    body = response.content.decode()
    assert world.cats["root_cause"][1].name in body


def test_the_study_page_shows_adjudication_progress_to_owners_not_raters(world, disputed, client_for):
    url = f"/studies/{world.study.pk}/"
    assert 'data-testid="study-adjudication"' in client_for("owner").get(url).content.decode()
    assert 'data-testid="study-adjudication"' in client_for("adjudicator").get(url).content.decode()
    assert 'data-testid="study-adjudication"' not in client_for("rater_a").get(url).content.decode()


def test_the_owner_switches_anonymous_adjudication_on_the_queue_page(world, client_for):
    response = client_for("owner").post(f"/studies/{world.study.pk}/adjudication/settings/", {"anonymous": "on"})
    assert response.status_code == 302
    world.study.refresh_from_db()
    assert world.study.anonymous_adjudication is True


def _count_queries(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_queue_page_and_api_list_cost_the_same_whatever_the_number_of_disagreements(users, outsider, client_for):
    world = make_world(users, n_issues=6)
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    submit(world, users, "rater_b", 0, **labels(world, 0, 1))
    client = client_for("adjudicator")
    small = _count_queries(client, queue_url(world))
    small_api = _count_queries(client, f"/api/v1/studies/{world.study.pk}/resolutions/")
    for index in range(1, 6):
        submit(world, users, "rater_a", index, **labels(world, 0, 0))
        submit(world, users, "rater_b", index, **labels(world, index % 3, 1))
    assert _count_queries(client, queue_url(world)) == small
    assert _count_queries(client, f"/api/v1/studies/{world.study.pk}/resolutions/") == small_api
