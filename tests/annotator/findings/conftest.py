"""The findings tests' world: the labelled study of the report tests, whose issues got fixes with fix details."""

import pytest


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    """Reports and exports are cached: every test here starts and ends with an empty cache."""


@pytest.fixture
def fixed_world(users, outsider):
    from tests.annotator.factories_issues import (
        ComponentRuleFactory,
        FixDetailFactory,
        FixFileFactory,
        IssueLinkFactory,
    )
    from tests.annotator.worlds import labelled_world

    world = labelled_world(users)
    study_issues = list(world.study.study_issues.select_related("issue__repository").order_by("position"))
    repository = study_issues[0].issue.repository
    ComponentRuleFactory(repository=repository, pattern="deepspeed/runtime/zero/**", component="ZeRO", position=0)
    # Issue i (position i + 1): a merged pull request of 3 * (i + 1) added and 1 deleted lines, one file; the
    # last issue has no linked fix at all.
    for i, study_issue in enumerate(study_issues[:-1]):
        link = IssueLinkFactory(issue=study_issue.issue)
        detail = FixDetailFactory(link=link, additions=3 * (i + 1), deletions=1, changed_files=1)
        folder = "deepspeed/runtime/zero" if i % 2 == 0 else "docs"
        FixFileFactory(detail=detail, path=f"{folder}/file_{i}.py")
    world.study_issues = study_issues
    return world
