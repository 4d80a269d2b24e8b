"""axe-core's WCAG 2.1 A and AA rules find nothing on the main pages of each role, in Chromium.

One published study (labelled by two raters, adjudicated, released), a second one still being labelled, and a
file import: every page below shows real content, not an empty state.
"""

from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse

from annotator.models import Assignment, ImportJob, Release
from annotator.services.publication import study_publish
from tests.annotator.studies.factories import draw, make_study
from tests.annotator.worlds import labelled_world
from tests.e2e.accessibility import axe_violations, violating_elements, violations_report
from tests.e2e.helpers import wait_for_labelling_script

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DEMO_ISSUES = Path(settings.BASE_DIR) / "annotator" / "demo" / "demo_issues.json"
LONG_LOG = "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191 " * 4
ISSUE_BODY = (
    "Training hangs after the first step.\n\n## Log\n\n```\n"
    + LONG_LOG
    + "\n```\n\n![loss curve](https://example.org/loss.png)\n"
)


@pytest.fixture
def studies(users):
    """A published study (all roles' pages have content) and an open one, where rater A still labels."""
    world = labelled_world(users, n_issues=6)
    issue = world.a.study_issue.issue
    issue.body = ISSUE_BODY
    issue.save(update_fields=["body"])
    study_publish(study=world.study, actor=users["owner"])
    world.study.refresh_from_db()
    call_command("import_issues", str(DEMO_ISSUES), "--no-progress", "--user", "owner", verbosity=0)
    open_study = make_study(
        owner=users["owner"], raters=[users["rater_a"], users["rater_b"]], taxonomy=world.taxonomy, name="Open study"
    )
    draw(open_study, actor=users["owner"], size=3, seed=5)
    world.open_study = open_study
    world.open_assignment = (
        Assignment.objects.filter(rater=users["rater_a"], study_issue__study=open_study)
        .order_by("study_issue__position")
        .first()
    )
    world.release = Release.objects.get(study=world.study, number=1)
    world.job = ImportJob.objects.latest("pk")
    return world


def _pages(world) -> dict[str, list[tuple[str, str]]]:
    study, open_study = world.study.pk, world.open_study.pk
    resolved = world.a.study_issue_id
    return {
        "rater_a": [
            ("study list", reverse("annotator:study_list")),
            ("labelling page", reverse("annotator:label", args=[open_study, world.open_assignment.pk])),
            ("queue", reverse("annotator:study_queue", args=[open_study])),
            ("all my issues", reverse("annotator:study_assignments", args=[open_study])),
            ("issue page", reverse("annotator:issue_detail", args=[world.a.study_issue.issue_id])),
        ],
        "owner": [
            ("study page", reverse("annotator:study_detail", args=[study])),
            ("agreement page", reverse("annotator:study_agreement", args=[study])),
            ("report", reverse("annotator:study_report", args=[study])),
            ("imports", reverse("annotator:import_list")),
            ("import", reverse("annotator:import_detail", args=[world.job.pk])),
            ("version page", reverse("annotator:study_version", args=[study])),
            ("exports", reverse("annotator:study_exports", args=[study])),
        ],
        "adjudicator": [
            ("adjudication list", reverse("annotator:adjudication_queue", args=[study])),
            ("adjudication page", reverse("annotator:adjudicate", args=[study, resolved])),
        ],
        "anonymous": [
            ("sign-in", reverse("login")),
            ("public release page", reverse("annotator:public_release_page", args=[world.study.slug, 1])),
        ],
    }


def test_axe_finds_no_wcag_violation_on_the_main_pages_of_each_role(live_server, new_context, login, studies):
    found: dict[str, list[dict]] = {}
    for role, pages in _pages(studies).items():
        context = new_context()
        page = login(context, role) if role != "anonymous" else context.new_page()
        for name, path in pages:
            response = page.goto(f"{live_server.url}{path}", timeout=30_000)
            assert response.status == 200, f"{role}: {name} ({path}) answered {response.status}"
            if name == "labelling page":
                wait_for_labelling_script(page)
            found[f"{role}: {name} ({path})"] = axe_violations(page)
    total = sum(violating_elements(violations) for violations in found.values())
    assert total == 0, f"axe found {total} violating element(s):\n{violations_report(found)}"
