"""factory_boy factories for the domain models; tests build data through these."""

import factory
from django.contrib.auth import get_user_model


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.django.Password("correct horse battery staple")


def make_taxonomy_maintainer(user):
    """Add the user to the taxonomy maintainers (who draft, edit and publish taxonomies); returns the user."""
    from django.contrib.auth.models import Group

    from core.permissions import TAXONOMY_MAINTAINERS_GROUP

    user.groups.add(Group.objects.get_or_create(name=TAXONOMY_MAINTAINERS_GROUP)[0])
    return user
