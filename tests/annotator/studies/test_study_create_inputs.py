"""What creating a study looks up and refuses: accounts by username, a name already taken."""

import pytest

from annotator.selectors.studies import active_users_by_username
from core.errors import NotFoundError
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_accounts_come_in_the_order_named_each_once():
    ada, bob = UserFactory(username="ada"), UserFactory(username="bob")
    assert active_users_by_username(usernames=["bob", "ada ", "bob"]) == [bob, ada]
    assert active_users_by_username(usernames=[]) == []


@pytest.mark.parametrize("who", ["nobody", "inactive"])
def test_an_unknown_or_inactive_account_is_not_found_and_named(who):
    UserFactory(username="ada")
    UserFactory(username="inactive", is_active=False)
    with pytest.raises(NotFoundError, match=f"'{who}'"):
        active_users_by_username(usernames=["ada", who])


def test_a_taken_study_name_is_a_conflict_on_the_name_field_whatever_its_case():
    from annotator.services.studies import study_create
    from core.errors import ConflictError
    from tests.annotator.studies.factories import make_owner, make_study, make_taxonomy

    owner, rater = make_owner(), UserFactory(username="rater")
    taxonomy = make_taxonomy()
    make_study(owner=owner, raters=[rater], taxonomy=taxonomy, name="Megatron hangs", raters_per_issue=1)
    with pytest.raises(ConflictError, match="exists already") as refused:
        study_create(
            name="  megatron HANGS ",
            taxonomy_version=taxonomy["version"],
            created_by=owner,
            raters=[rater],
            raters_per_issue=1,
        )
    assert refused.value.field == "name"
