"""The resource API's study world for the API-wide tests here (the clients: `api_as` in tests/conftest.py)."""

from types import SimpleNamespace

import pytest
from django.core.cache import cache

from tests.annotator.worlds import build_world


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    """Throttle counters and cached agreement reports live in the cache: no test may see another's."""


@pytest.fixture
def world(users, outsider):
    return build_world(users)


def build_api_world(users, *, others=()) -> SimpleNamespace:
    """A published study (labelled by both raters), an open one where rater A still has work, an import job.

    What the contract tests (schemathesis, the generated client) call every operation against: ``ids`` per
    resource of the path, the published study's slug, and tokens of the owner, of rater A and (in ``tokens``,
    by username) of the ``others``.
    """
    from rest_framework.authtoken.models import Token

    from annotator.models import Annotation, ImportJob, Issue, Repository, StudyIssue
    from annotator.services.publication import study_publish
    from tests.annotator.api_resources.conftest import label_everything
    from tests.annotator.studies.factories import draw, make_study

    world = build_world(users, n_issues=3)
    label_everything(world, users)
    study_publish(study=world.study, actor=users["owner"])
    open_study = make_study(
        owner=users["owner"], raters=[users["rater_a"], users["rater_b"]], taxonomy=world.taxonomy, name="Open study"
    )
    draw(open_study, actor=users["owner"], size=3, seed=3)
    job = ImportJob.objects.create(kind=ImportJob.Kind.FILE, status=ImportJob.Status.DONE, created_by=users["owner"])
    cache.clear()  # no throttle counts carried over between operations
    open_work = Annotation.objects.filter(assignment__rater=users["rater_a"], submitted_at__isnull=True)
    ids = {
        "studies": [world.study.pk, open_study.pk],
        "annotations": list(open_work.values_list("pk", flat=True)),
        "issues": list(Issue.objects.values_list("pk", flat=True)),
        "repositories": list(Repository.objects.values_list("pk", flat=True)),
        "import-jobs": [job.pk],
        "study-issues": list(StudyIssue.objects.filter(study=world.study).values_list("pk", flat=True)),
    }
    return SimpleNamespace(
        world=world,
        published=world.study,
        open_study=open_study,
        slug=world.study.slug,
        ids=ids,
        owner=Token.objects.create(user=users["owner"]).key,
        rater=Token.objects.create(user=users["rater_a"]).key,
        tokens={user.username: Token.objects.create(user=user).key for user in others},
    )
