"""The Disagreements admin: staff only, the raters side by side, resolving by form or bulk action."""

import pytest

from annotator.models import Resolution, ResolutionHistory, ResolutionValue
from tests.annotator.final_labels import values_of
from tests.annotator.worlds import labels, submit

pytestmark = pytest.mark.django_db

LIST = "/admin/annotator/disagreement/"


def _client(client_for, staff_member, role):
    if role == "reviewer":
        from django.test import Client

        c = Client()
        c.force_login(staff_member)
        return c
    return client_for(role)


def state() -> list:
    return (
        list(Resolution.objects.order_by("pk").values_list("pk", "version", "status", "methods")),
        list(ResolutionValue.objects.order_by("pk").values_list("resolution_id", "category_id", "proposal")),
    )


@pytest.mark.parametrize(
    ("role", "status"),
    [
        ("anonymous", 302),
        ("outsider", 302),
        ("rater_a", 302),
        ("adjudicator", 302),
        ("owner", 302),
        ("reviewer", 200),
        ("staff", 200),
    ],
)
def test_only_staff_reach_the_disagreements(world, disputed, client_for, staff_member, role, status):
    client = _client(client_for, staff_member, role)
    for url in (LIST, f"{LIST}{disputed.pk}/change/"):
        response = client.get(url)
        assert response.status_code == status, f"{url} as {role}"
        if status == 302:
            assert "/admin/login/" in response["Location"]


@pytest.mark.parametrize("role", ["anonymous", "rater_a", "owner"])
def test_non_staff_cannot_resolve_through_the_admin(world, disputed, client_for, staff_member, role):
    before = state()
    response = _client(client_for, staff_member, role).post(
        LIST, {"action": "accept_rater_1", "_selected_action": [disputed.pk]}
    )
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert state() == before


def test_the_list_holds_only_issues_with_a_disagreement_and_filters_them(world, users, client_for, disputed):
    submit(world, users, "rater_a", 1, **labels(world, 2, 2))
    submit(world, users, "rater_b", 1, **labels(world, 2, 2))
    client = client_for("staff")
    assert [o.pk for o in client.get(LIST).context["cl"].result_list] == [disputed.pk]
    assert list(client.get(LIST + "?dimension=symptom").context["cl"].result_list) == []
    assert len(client.get(LIST + "?dimension=root_cause&resolved=no").context["cl"].result_list) == 1
    assert list(client.get(LIST + "?resolved=yes").context["cl"].result_list) == []
    assert client.get(LIST + f"?study__id__exact={world.study.pk}").status_code == 200


def test_the_change_view_shows_both_raters_read_only_and_records_a_decision(world, disputed, client_for, staff_member):
    client = _client(client_for, staff_member, "reviewer")
    response = client.get(f"{LIST}{disputed.pk}/change/")
    body = response.content.decode()
    assert world.cats["root_cause"][0].name in body and world.cats["root_cause"][1].name in body
    assert "Root Cause (in dispute)" in body
    response = client.post(
        f"{LIST}{disputed.pk}/change/",
        {
            "version": 1,
            "dim_symptom": world.cats["symptom"][0].pk,
            "dim_root_cause": world.cats["root_cause"][0].pk,
            "method": "adjudicated",
            "reason": "taxonomy_gap",
            "note": "Overlap between two root causes.",
        },
    )
    assert response.status_code == 302
    resolution = Resolution.objects.get(study_issue=disputed)
    assert values_of(resolution)["root_cause"] == [world.cats["root_cause"][0].pk]
    assert resolution.decided_by == staff_member
    assert resolution.disagreement_reason == "taxonomy_gap"


def test_a_stale_admin_form_shows_the_conflict(world, disputed, client_for):
    client = client_for("staff")
    data = {"version": 1, "dim_symptom": world.cats["symptom"][0].pk, "method": "adjudicated", "reason": "other"}
    client.post(f"{LIST}{disputed.pk}/change/", {**data, "dim_root_cause": world.cats["root_cause"][0].pk})
    response = client.post(f"{LIST}{disputed.pk}/change/", {**data, "dim_root_cause": world.cats["root_cause"][1].pk})
    assert response.status_code == 200
    assert "Someone else changed this resolution" in response.content.decode()
    assert values_of(Resolution.objects.get(study_issue=disputed))["root_cause"] == [world.cats["root_cause"][0].pk]


@pytest.mark.parametrize(("action", "index"), [("accept_rater_1", 0), ("accept_rater_2", 1)])
def test_bulk_actions_accept_one_raters_labels(world, disputed, client_for, action, index):
    response = client_for("staff").post(LIST, {"action": action, "_selected_action": [disputed.pk]})
    assert response.status_code == 302
    resolution = Resolution.objects.get(study_issue=disputed)
    assert resolution.status == "resolved"
    assert values_of(resolution)["root_cause"] == [world.cats["root_cause"][index].pk]
    assert resolution.method == "adjudicated"


def test_the_admin_never_adds_or_deletes_disagreements_or_history(world, disputed, client_for):
    client = client_for("staff")
    assert client.get(f"{LIST}add/").status_code == 403
    assert client.post(f"{LIST}{disputed.pk}/delete/", {"post": "yes"}).status_code == 403
    entry = ResolutionHistory.objects.first()
    history = "/admin/annotator/resolutionhistory/"
    assert client.post(f"{history}{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.post(f"{history}{entry.pk}/change/", {"action": "record"}).status_code == 403
    assert ResolutionHistory.objects.filter(pk=entry.pk, action="auto").exists()
