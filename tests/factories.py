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


def published(version: TaxonomyVersion) -> TaxonomyVersion:
    """Publish a version built in a test (after its dimensions and categories: the database refuses rows added
    to a published version), without the publishing service's checks."""
    version.status, version.published_at = TaxonomyVersion.Status.PUBLISHED, timezone.now()
    version.save(update_fields=["status", "published_at", "updated_at"])
    return version


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


def make_bugs_taxonomy() -> TaxonomyVersion:
    """A published taxonomy 'bugs': cause (crash, hang, wrong result; alias 'freeze' for hang) and
    fix (multi-valued: fix config, fix code)."""
    taxonomy = Taxonomy.objects.create(slug="bugs", name="Bugs")
    version = TaxonomyVersion.objects.create(taxonomy=taxonomy, number=1)
    cause = Dimension.objects.create(version=version, key="cause", name="Cause", order=0)
    fix = Dimension.objects.create(version=version, key="fix", name="Fix", order=1, multi_valued=True)
    Category.objects.create(dimension=cause, code="crash", name="Crash")
    Category.objects.create(dimension=cause, code="hang", name="Hang", aliases=["freeze"])
    Category.objects.create(dimension=cause, code="wrong-result", name="Wrong result")
    Category.objects.create(dimension=fix, code="fix-config", name="fix config")
    Category.objects.create(dimension=fix, code="fix-code", name="fix code")
    return published(version)
