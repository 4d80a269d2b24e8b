"""A rater's "All my issues": every assigned issue in queue order, filtered by status or title, a jump to a
position, pages that cost the same deep in the queue, and nobody else's issues."""

import pytest

from annotator.models import Assignment, Issue
from annotator.services.annotations import annotation_submit
from annotator.views.labelling import ALL_PAGE_SIZE
from tests.annotator.worlds import build_world, complete_input

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(users):
    world = build_world(users, n_issues=5)
    for assignment in world.assignments["rater_a"][:2]:
        annotation_submit(
            annotation=assignment.annotation, actor=users["rater_a"], data=complete_input(world), expected_version=1
        )
    return world


def url(world, **query) -> str:
    from urllib.parse import urlencode

    return f"/studies/{world.study.pk}/queue/all/" + (f"?{urlencode(query)}" if query else "")


def rows(response) -> list[int]:
    return [a.position for a in response.context["assignments"]]


def test_every_assigned_issue_is_listed_in_queue_order(world, client_as):
    response = client_as("rater_a").get(url(world))
    assert response.status_code == 200
    assert rows(response) == sorted(a.position for a in world.assignments["rater_a"])
    assert "5 issues assigned to you" in response.content.decode()


def test_the_queue_page_links_to_it(world, client_as):
    page = client_as("rater_a").get(f"/studies/{world.study.pk}/queue/").content.decode()
    assert f'href="/studies/{world.study.pk}/queue/all/"' in page


def test_filter_by_status(world, client_as):
    submitted = rows(client_as("rater_a").get(url(world, status="submitted")))
    assert submitted == sorted(a.position for a in world.assignments["rater_a"][:2])
    assert len(rows(client_as("rater_a").get(url(world, status="assigned")))) == 3
    # An unknown status is ignored, not an error.
    assert len(rows(client_as("rater_a").get(url(world, status="nope")))) == 5


def test_filter_by_title(world, client_as):
    target = world.assignments["rater_a"][3]
    Issue.objects.filter(pk=target.study_issue.issue_id).update(title="ZeRO-3 hangs at checkpoint save")
    assert rows(client_as("rater_a").get(url(world, q="zero-3"))) == [target.position]


def test_jump_opens_the_issue_at_that_position(world, client_as):
    target = world.assignments["rater_a"][2]
    response = client_as("rater_a").get(url(world, jump=f"#{target.position}"))
    assert response.status_code == 302
    assert response["Location"] == f"/studies/{world.study.pk}/label/{target.pk}/"


# "²" and "١" are digits to str.isdigit: int() refuses the first and reads the second as 1 (a real position here).
@pytest.mark.parametrize("jump", ["999", "abc", "99999999999999999999", "", "²", "#١", "𝟙"])
def test_a_jump_to_no_issue_says_so_and_lists_the_queue(world, client_as, jump):
    response = client_as("rater_a").get(url(world, jump=jump), follow=True)
    assert response.status_code == 200
    assert "You have no issue at position" in response.content.decode()


def test_a_rater_never_sees_or_jumps_to_another_raters_issue(world, client_as):
    theirs = {a.pk for a in world.assignments["rater_b"]}
    assert not theirs & {a.pk for a in client_as("rater_a").get(url(world)).context["assignments"]}
    # A position only rater B holds: rater A's issue there moves elsewhere in A's queue.
    mine = world.assignments["rater_a"][0]
    Assignment.objects.filter(pk=mine.pk).update(position=999)
    response = client_as("rater_a").get(url(world, jump=mine.position), follow=True)
    assert response.redirect_chain == []
    assert "You have no issue at position" in response.content.decode()


@pytest.mark.parametrize(
    ("role", "status"), [("anonymous", 302), ("owner", 403), ("adjudicator", 403), ("outsider", 404)]
)
def test_only_raters_have_the_page(world, client_for, role, status):
    assert client_for(role).get(url(world)).status_code == status


def test_pages_continue_after_the_last_position_and_cost_the_same(users, django_assert_max_num_queries, client_as):
    world = build_world(users, n_issues=ALL_PAGE_SIZE + 5)
    client = client_as("rater_a")
    first = client.get(url(world))
    assert len(rows(first)) == ALL_PAGE_SIZE and first.context["following"] is not None
    with django_assert_max_num_queries(7):
        second = client.get(url(world, after=first.context["following"]))
    assert len(rows(second)) == 5
    assert set(rows(first)).isdisjoint(rows(second))


def test_the_queue_page_lists_the_latest_submits_and_links_to_every_one(world, client_as, monkeypatch):
    import annotator.selectors.labelling as labelling

    monkeypatch.setattr(labelling, "QUEUE_RECENT_SUBMITTED", 1)
    response = client_as("rater_a").get(f"/studies/{world.study.pk}/queue/")
    assert len(response.context["submitted"]) == 1 and response.context["submitted_count"] == 2
    page = response.content.decode()
    assert "The latest 1 of 2" in page
    assert f'/studies/{world.study.pk}/queue/all/?status=submitted"' in page
    listed = client_as("rater_a").get(url(world, status="submitted"))
    assert len(rows(listed)) == 2
