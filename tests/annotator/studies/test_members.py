"""Owners manage a study's people on the study page: add by username or e-mail, change roles, remove (work kept)."""

import pytest

from annotator.models import Annotation, StudyMember
from annotator.services.annotations import annotation_submit
from tests.annotator.worlds import complete_input
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _memberships(study):
    return set(StudyMember.objects.filter(study=study).values_list("user__username", "role"))


def test_the_owner_adds_a_rater_by_e_mail(client_as, world):
    UserFactory(username="carol", email="Carol@Example.org")
    response = client_as("owner").post(
        f"/studies/{world.study.pk}/members/add/", {"who": "carol@example.org", "role": "rater"}, follow=True
    )
    assert response.status_code == 200
    assert ("carol", "rater") in _memberships(world.study)
    assert "carol" in response.content.decode()


def test_an_unknown_person_is_refused_with_a_message_and_nothing_changes(client_as, world):
    before = _memberships(world.study)
    response = client_as("owner").post(
        f"/studies/{world.study.pk}/members/add/", {"who": "nobody@example.org", "role": "rater"}, follow=True
    )
    assert "No single account" in response.content.decode()
    assert _memberships(world.study) == before


@pytest.mark.parametrize(("role", "status"), [("rater_a", 403), ("adjudicator", 403), ("outsider", 404)])
def test_only_the_owner_manages_members(client_as, world, users, outsider, role, status):
    from django.test import Client

    UserFactory(username="carol")
    client = Client()
    client.force_login(outsider if role == "outsider" else users[role])
    before = _memberships(world.study)
    member = StudyMember.objects.get(study=world.study, user=users["rater_b"])
    for url, data in [
        (f"/studies/{world.study.pk}/members/add/", {"who": "carol", "role": "owner"}),
        (f"/studies/{world.study.pk}/members/{member.pk}/role/", {"role": "owner"}),
        (f"/studies/{world.study.pk}/members/{member.pk}/remove/", {}),
    ]:
        assert client.post(url, data).status_code == status, url
    assert _memberships(world.study) == before


def test_a_role_changes_and_the_last_owner_stays(client_as, world, users):
    owner = StudyMember.objects.get(study=world.study, user=users["owner"], role="owner")
    response = client_as("owner").post(
        f"/studies/{world.study.pk}/members/{owner.pk}/role/", {"role": "rater"}, follow=True
    )
    assert "at least one owner" in response.content.decode()
    assert ("owner", "owner") in _memberships(world.study)
    rater_b = StudyMember.objects.get(study=world.study, user=users["rater_b"])
    client_as("owner").post(f"/studies/{world.study.pk}/members/{rater_b.pk}/role/", {"role": "adjudicator"})
    assert ("rater_b", "adjudicator") in _memberships(world.study)
    assert ("rater_b", "rater") not in _memberships(world.study)


def test_removing_a_rater_keeps_their_work(client_as, world, users):
    annotation_submit(
        annotation=world.b.annotation, actor=users["rater_b"], data=complete_input(world), expected_version=1
    )
    member = StudyMember.objects.get(study=world.study, user=users["rater_b"])
    client_as("owner").post(f"/studies/{world.study.pk}/members/{member.pk}/remove/")
    assert ("rater_b", "rater") not in _memberships(world.study)
    kept = Annotation.objects.get(pk=world.b.annotation.pk)
    assert kept.submitted_at is not None and kept.values.exists()


def test_the_owner_sees_the_member_forms_and_a_rater_only_the_list(client_as, world):
    owner_page = client_as("owner").get(f"/studies/{world.study.pk}/").content.decode()
    rater_page = client_as("rater_a").get(f"/studies/{world.study.pk}/").content.decode()
    assert 'data-testid="member-add"' in owner_page
    assert 'data-testid="member-add"' not in rater_page
