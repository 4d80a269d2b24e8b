import pytest
from django.contrib.auth.models import Group

from annotator.models import ComponentRule, Repository
from core.permissions import STUDY_OWNERS_GROUP, TAXONOMY_MAINTAINERS_GROUP


@pytest.fixture
def editors(users):
    """owner is a study owner and rater_b a taxonomy maintainer; rater_a and the adjudicator are neither."""
    users["owner"].groups.add(Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)[0])
    users["rater_b"].groups.add(Group.objects.get_or_create(name=TAXONOMY_MAINTAINERS_GROUP)[0])
    return users


@pytest.fixture
def deepspeed(db) -> Repository:
    repository, _ = Repository.objects.get_or_create(host="github.com", owner="deepspeedai", name="DeepSpeed")
    for position, (pattern, component) in enumerate(
        [
            ("deepspeed/runtime/zero/stage3.py", "ZeRO-3"),
            ("deepspeed/runtime/zero/**", "ZeRO"),
            ("deepspeed/runtime/pipe/**", "Pipeline parallelism"),
        ]
    ):
        ComponentRule.objects.create(repository=repository, pattern=pattern, component=component, position=position)
    return repository


def rules_of(repository) -> list[tuple[str, str]]:
    return list(
        ComponentRule.objects.filter(repository=repository)
        .order_by("position", "id")
        .values_list("pattern", "component")
    )
