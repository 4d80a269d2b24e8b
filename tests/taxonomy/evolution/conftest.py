"""A published two-dimension taxonomy (v1) and taxonomy maintainers allowed to edit it."""

from types import SimpleNamespace

import pytest
from django.contrib.auth.models import Group

from core.permissions import STUDY_OWNERS_GROUP
from taxonomy.models import Category, TaxonomyVersion
from taxonomy.services import version_publish
from taxonomy.services.operations import version_draft_from
from tests.factories import (
    CategoryFactory,
    DimensionFactory,
    TaxonomyVersionFactory,
    UserFactory,
    make_taxonomy_maintainer,
)


def in_group(username: str, group_name: str):
    user = UserFactory(username=username)
    group, _ = Group.objects.get_or_create(name=group_name)
    user.groups.add(group)
    return user


def make_owner(username: str):
    """A taxonomy maintainer (the role that edits taxonomies)."""
    return make_taxonomy_maintainer(UserFactory(username=username))


@pytest.fixture
def editors(db):
    return SimpleNamespace(
        alice=make_owner("alice"),
        bob=make_owner("bob"),
        rater=UserFactory(username="plain"),
        study_owner=in_group("study_owner", STUDY_OWNERS_GROUP),
    )


@pytest.fixture
def v1(db) -> TaxonomyVersion:
    """symptom: setup > (hang, timeout, crash), memory > (oom); root_cause: config, api."""
    version = TaxonomyVersionFactory(number=1)
    symptom = DimensionFactory(version=version, key="symptom", name="Symptom", order=0)
    cause = DimensionFactory(version=version, key="root_cause", name="Root cause", order=1)
    setup = CategoryFactory(dimension=symptom, code="setup", name="setup failure", selectable=False)
    memory = CategoryFactory(dimension=symptom, code="memory", name="memory issue", selectable=False)
    for code in ("hang", "timeout", "crash"):
        CategoryFactory(dimension=symptom, parent=setup, code=code, name=code)
    CategoryFactory(dimension=symptom, parent=memory, code="oom", name="out of memory")
    CategoryFactory(dimension=cause, code="config", name="misconfiguration")
    CategoryFactory(dimension=cause, code="api", name="misused API")
    return version_publish(version=version)


@pytest.fixture
def draft(v1, editors) -> TaxonomyVersion:
    return version_draft_from(version=v1, actor=editors.alice)


def cat(version: TaxonomyVersion, name: str) -> Category:
    return Category.objects.get(dimension__version=version, name=name)
