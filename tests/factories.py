"""factory_boy factories for the domain models; tests build data through these (issues: factories_issues.py)."""

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from taxonomy.models import Category, Dimension, Taxonomy, TaxonomyVersion


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


class TaxonomyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Taxonomy
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"taxonomy-{n}")
    name = factory.LazyAttribute(lambda t: f"Taxonomy {t.slug}")


class TaxonomyVersionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = TaxonomyVersion

    taxonomy = factory.SubFactory(TaxonomyFactory)
    number = factory.Sequence(lambda n: n + 1)
    status = TaxonomyVersion.Status.DRAFT

    class Params:
        published = factory.Trait(
            status=TaxonomyVersion.Status.PUBLISHED, published_at=factory.LazyFunction(timezone.now)
        )


class DimensionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Dimension

    version = factory.SubFactory(TaxonomyVersionFactory)
    key = factory.Sequence(lambda n: f"dimension_{n}")
    name = factory.LazyAttribute(lambda d: d.key.replace("_", " "))


class CategoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Category

    dimension = factory.SubFactory(DimensionFactory)
    code = factory.Sequence(lambda n: f"category-{n}")
    name = factory.LazyAttribute(lambda c: c.code.replace("-", " "))
