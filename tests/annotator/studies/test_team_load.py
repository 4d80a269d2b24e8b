"""A team of five labelling at once gets no errors, on SQLite (the embedded default) as on PostgreSQL.

The short version of bench/team_sqlite_bench.py: the same rater loop (next, two autosaves, submit) over HTTP
against a threaded server, five raters for ten seconds.
"""

import pytest

from annotator.models import Assignment
from bench.team_sqlite_bench import team_load
from tests.annotator.factories_issues import IssueFactory, RepositoryFactory
from tests.annotator.studies.factories import draw, make_owner, make_study
from tests.factories import UserFactory

PASSWORD = "correct horse battery staple"  # the factories' password
RATERS = 5
SECONDS = 10
ISSUES = 200  # a rater whose queue runs out stops early; the test asks only that each submitted something


@pytest.mark.django_db(transaction=True)
def test_five_raters_autosaving_and_submitting_at_once_get_no_errors(live_server):
    owner = make_owner("team_owner")
    raters = [UserFactory(username=f"team_rater_{i}") for i in range(RATERS)]
    study = make_study(owner=owner, raters=raters, raters_per_issue=2)
    repository = RepositoryFactory()
    IssueFactory.create_batch(ISSUES, repository=repository)
    draw(study, actor=owner, size=ISSUES)
    cats = study.taxonomy_fixture["cats"]
    categories = {key: [category.pk for category in cats[key]] for key in ("symptom", "root_cause")}

    run = team_load(live_server.url, [r.username for r in raters], PASSWORD, study.pk, categories, SECONDS)

    assert run.errors == [], run.errors[:5]
    assert all(run.submitted.get(r.username, 0) > 0 for r in raters), run.submitted
    submitted = Assignment.objects.filter(study_issue__study=study, status=Assignment.Status.SUBMITTED).count()
    assert submitted == sum(run.submitted.values())
