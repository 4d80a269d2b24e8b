"""Releases: the resource API's study world (two raters, five issues, all labelled alike) and ways to change it."""

import pytest

from annotator.models import (
    FixDetail,
    PhaseChange,
    Release,
    ReleaseFile,
    ReleaseVisibilityChange,
    Resolution,
    StudyIssue,
)
from annotator.services.publication import study_publish
from annotator.services.resolutions import resolution_record
from tests.annotator.api_resources import conftest as resources
from tests.annotator.worlds import add_fixes

# The resource API's fixtures, shared: a world, everything labelled alike, published as release 1.
_empty_cache = resources._empty_cache
world = resources.world
labelled = resources.labelled
published = resources.published
client_for_pages = resources.client_for_pages


def state(study) -> tuple:
    """What publishing, hiding and showing write: a denied or previewed call leaves all of it as it was."""
    study.refresh_from_db()
    return (
        study.phase,
        Release.objects.filter(study=study).count(),
        ReleaseFile.objects.filter(release__study=study).count(),
        ReleaseVisibilityChange.objects.filter(release__study=study).count(),
        PhaseChange.objects.filter(study=study).count(),
    )


def revise_final_label(world, users, index: int = 0) -> Resolution:
    """The adjudicator changes the final root cause of the issue at ``index``: more adjudication after publishing."""
    study_issue = StudyIssue.objects.get(pk=world.assignments["rater_a"][index].study_issue_id)
    current = Resolution.objects.get(study_issue=study_issue)
    other = world.cats["root_cause"][(index + 1) % 2]  # label_everything chose leaf index % 2
    return resolution_record(
        study_issue=study_issue,
        actor=users["adjudicator"],
        values={"root_cause": [other.pk]},
        method=Resolution.Method.ADJUDICATED,
        reason="",
        note="revised after publication",
        expected_version=current.version,
    )


@pytest.fixture
def republished(published, users):
    """Release 1, a revised final label, then release 2."""
    revise_final_label(published, users)
    study_publish(study=published.study, actor=users["owner"], change_note="Issue 1's root cause revised.")
    return published


@pytest.fixture
def fixed(labelled):
    """The labelled world whose five issues got merged fixes with fix details (tests.annotator.worlds.add_fixes)."""
    labelled.study_issues = add_fixes(labelled.study)
    return labelled


def reimport_fix(study_issue, *, additions: int) -> None:
    """What a re-import of fix details writes when GitHub's pull request changed: new totals for the same fix."""
    FixDetail.objects.filter(link__issue=study_issue.issue).update(additions=additions)
