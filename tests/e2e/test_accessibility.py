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
from annotator.services.annotations import AnnotationInput, annotation_submit
from annotator.services.publication import study_publish
from tests.annotator.studies.factories import draw, make_study
from tests.annotator.worlds import labelled_world
from tests.e2e.accessibility import axe_violations, violating_elements, violations_report
from tests.e2e.helpers import wait_for_labelling_script

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DEMO_ISSUES = Path(settings.BASE_DIR) / "annotator" / "demo" / "demo_issues.json"
LONG_LOG = "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191 " * 4
WIDE_TABLE = (
    "| "
    + " | ".join(f"rank {n} NCCL_SOCKET_IFNAME" for n in range(12))
    + " |\n|"
    + "---|" * 12
    + "\n|"
    + " eth0 |" * 12
)
ISSUE_BODY = (
    "Training hangs after the first step.\n\n## Log\n\n```\n"
    + LONG_LOG
    + "\n```\n\n![loss curve](https://example.org/loss.png)\n\n"
    + WIDE_TABLE
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
        owner=users["owner"],
        raters=[users["rater_a"], users["rater_b"]],
        adjudicators=[users["adjudicator"]],
        taxonomy=world.taxonomy,
        name="Open study",
    )
    draw(open_study, actor=users["owner"], size=3, seed=5)
    world.open_study = open_study
    world.open_assignment = (
        Assignment.objects.filter(rater=users["rater_a"], study_issue__study=open_study)
        .order_by("study_issue__position")
        .first()
    )
    world.disputed = _disagree_on_the_last_issue(world, users)
    world.release = Release.objects.get(study=world.study, number=1)
    world.job = ImportJob.objects.latest("pk")
    return world


def _disagree_on_the_last_issue(world, users):
    """Raters A and B label the open study's last issue differently: a pending disagreement."""
    last = world.open_study.study_issues.order_by("-position").first()
    for role, cause in (("rater_a", 0), ("rater_b", 1)):
        annotation = Assignment.objects.get(rater=users[role], study_issue=last).annotation
        values = {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][cause].pk]}
        annotation_submit(
            annotation=annotation, actor=users[role], data=AnnotationInput(values=values), expected_version=1
        )
    return last


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


def _more_pages(world) -> dict[str, list[tuple[str, str, int]]]:
    study = world.study.pk
    version = world.taxonomy["version"]
    return {
        "rater_a": [
            ("issue search", reverse("annotator:issue_list") + "?q=hangs", 200),
            ("API tokens", reverse("account_tokens"), 200),
            ("a page that does not exist", "/studies/999999/", 404),
        ],
        "owner": [
            ("new study", reverse("annotator:study_create"), 200),
            ("draw a sample", reverse("annotator:study_draw", args=[world.open_study.pk]), 200),
            ("card sort", reverse("annotator:study_cardsort", args=[study]), 200),
            ("issue history", reverse("annotator:study_issue_history", args=[study, world.a.study_issue_id]), 200),
            ("taxonomies", reverse("taxonomy:taxonomy_list"), 200),
            ("taxonomy version", reverse("taxonomy:version_detail", args=[version.taxonomy.slug, version.number]), 200),
            ("GitHub import", reverse("annotator:github_import"), 200),
            ("spreadsheet import", reverse("annotator:sheets_upload"), 200),
            ("components", reverse("annotator:repository_components", args=[world.repo.pk]), 200),
        ],
        "anonymous": [("public study page", reverse("annotator:public_study_page", args=[world.study.slug]), 200)],
    }


def _axe_over(live_server, new_context, login, pages: dict[str, list[tuple[str, str, int]]]) -> None:
    found: dict[str, list[dict]] = {}
    for role, role_pages in pages.items():
        context = new_context()
        page = login(context, role) if role != "anonymous" else context.new_page()
        for name, path, status in role_pages:
            response = page.goto(f"{live_server.url}{path}", timeout=30_000)
            assert response.status == status, f"{role}: {name} ({path}) answered {response.status}"
            if name == "labelling page":
                wait_for_labelling_script(page)
            found[f"{role}: {name} ({path})"] = axe_violations(page)
    total = sum(violating_elements(violations) for violations in found.values())
    assert total == 0, f"axe found {total} violating element(s):\n{violations_report(found)}"


def test_axe_finds_no_wcag_violation_on_the_main_pages_of_each_role(live_server, new_context, login, studies):
    pages = {role: [(name, path, 200) for name, path in role_pages] for role, role_pages in _pages(studies).items()}
    _axe_over(live_server, new_context, login, pages)


def test_axe_finds_no_wcag_violation_on_the_other_pages_either(live_server, new_context, login, studies):
    _axe_over(live_server, new_context, login, _more_pages(studies))


def test_axe_finds_nothing_in_the_pages_open_states_either(live_server, new_context, login, studies):
    """The keys-and-guidelines panel, the account menu, a heatmap cell's issues, a disagreement to settle."""
    found: dict[str, list[dict]] = {}
    rater = login(new_context(), "rater_a")
    rater.goto(
        f"{live_server.url}{reverse('annotator:label', args=[studies.open_study.pk, studies.open_assignment.pk])}"
    )
    wait_for_labelling_script(rater)
    rater.get_by_test_id("guidelines-toggle").click()
    rater.get_by_test_id("account-menu").click()
    found["labelling page, keys and account menu open"] = axe_violations(rater)

    owner = login(new_context(), "owner")
    owner.goto(f"{live_server.url}{reverse('annotator:study_agreement', args=[studies.study.pk])}")
    owner.locator("a.cell-link").first.click()
    owner.get_by_test_id("cell-issues").wait_for()
    found["agreement page, a heatmap cell's issues listed"] = axe_violations(owner)

    adjudicator = login(new_context(), "adjudicator")
    url = reverse("annotator:adjudicate", args=[studies.open_study.pk, studies.disputed.pk])
    assert adjudicator.goto(f"{live_server.url}{url}").status == 200
    found["adjudication page, a pending disagreement"] = axe_violations(adjudicator)

    total = sum(violating_elements(violations) for violations in found.values())
    assert total == 0, f"axe found {total} violating element(s):\n{violations_report(found)}"
