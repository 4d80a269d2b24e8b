"""The rater's pages and endpoints cost the same number of queries whatever the study's size."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from annotator.services.annotations import annotation_submit
from taxonomy.models import TaxonomyVersion
from tests.annotator.worlds import build_world, complete_input


def _count(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries)


def _measure(users, n_issues: int) -> dict[str, int]:
    from annotator.models import Study

    Study.objects.all().update(name="old")  # keep the study name free for the next world
    world = build_world(users, n_issues=n_issues, comments=3)
    # Some history: a few submitted issues make the queue's lists non-empty.
    for assignment in world.assignments["rater_a"][:3]:
        annotation_submit(
            annotation=assignment.annotation, actor=users["rater_a"], data=complete_input(world), expected_version=1
        )
    from django.test import Client

    page = Client()
    page.force_login(users["rater_a"])
    api = APIClient()
    api.force_authenticate(users["rater_a"])
    open_assignment = world.assignments["rater_a"][3]
    owner = Client()
    owner.force_login(users["owner"])
    return {
        "labelling page": _count(page, f"/studies/{world.study.pk}/label/{open_assignment.pk}/"),
        "queue": _count(page, f"/studies/{world.study.pk}/queue/"),
        "next api": _count(api, f"/api/v1/studies/{world.study.pk}/assignments/next/"),
        "mine api": _count(api, f"/api/v1/studies/{world.study.pk}/assignments/mine/"),
        "annotation api": _count(api, f"/api/v1/annotations/{open_assignment.annotation.pk}/"),
        "owner dashboard": _count(owner, f"/studies/{world.study.pk}/"),
    }


@pytest.mark.django_db
def test_query_counts_do_not_grow_with_the_study(users):
    from annotator.models import (
        Annotation,
        AnnotationHistory,
        AnnotationValue,
        Assignment,
        FirstSubmission,
        FirstSubmissionValue,
        StudyIssue,
        StudyRound,
    )

    small = _measure(users, 5)
    # Clear the first study's rows so the second measure starts from the same shape.
    AnnotationHistory.objects.all().delete()
    FirstSubmissionValue.objects.all().delete()
    FirstSubmission.objects.all().delete()
    AnnotationValue.objects.all().delete()
    Annotation.objects.all().delete()
    Assignment.objects.all().delete()
    StudyIssue.objects.all().delete()
    StudyRound.objects.all().delete()
    large = _measure(users, 50)
    assert small == large, (small, large)
    # Pinned. The pages count the session and user lookups; the API clients authenticate without queries.
    assert small["labelling page"] == 11, small
    # session, user, the study with my roles, progress counters, the next issue, the submitted list (drafts
    # and skipped are empty, which the counters tell, so they are not queried).
    assert small["queue"] == 6, small
    assert small["next api"] == 3, small  # study, progress counters, the next row
    assert small["mine api"] == 3, small  # study, one keyset page, the count from the counters


def _write_counts(world, users) -> dict[str, int]:
    api = APIClient()
    api.force_authenticate(users["rater_a"])
    url = f"/api/v1/annotations/{world.a.annotation.pk}/"
    values = {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][0].pk]}
    changed = {"symptom": [world.cats["symptom"][1].pk], "root_cause": [world.cats["root_cause"][0].pk]}
    counts = {}
    for key, method, body in [
        ("first draft", "put", {"values": values, "version": 1}),
        ("draft", "put", {"values": values, "note": "again", "version": 2}),
        ("draft, a label changed", "put", {"values": changed, "version": 3}),
        ("submit", "post", {"values": changed, "version": 4}),
    ]:
        with CaptureQueriesContext(connection) as queries:
            response = getattr(api, method)(url + ("draft/" if method == "put" else "submit/"), body, format="json")
        assert response.status_code == 200, response.content
        counts[key] = len(queries)
    return counts


@pytest.mark.django_db
def test_save_and_submit_cost_a_fixed_small_number_of_queries(users):
    world = build_world(users, n_issues=3)
    # Studies label against published versions, whose catalogue (dimensions, categories) is read once per process.
    TaxonomyVersion.objects.filter(pk=world.study.taxonomy_version_id).update(
        status=TaxonomyVersion.Status.PUBLISHED, published_at=timezone.now()
    )
    counts = _write_counts(world, users)
    # Counted inside the test's transaction, so the service's own transaction shows as SAVEPOINT + RELEASE
    # (BEGIN and COMMIT in production). The same statements on PostgreSQL and SQLite.
    assert counts == {
        # savepoint; the annotation with its assignment, study issue, study and taxonomy version, locked; the
        # catalogue (first use in this process: dimensions, categories); the study's dimensions (first use of
        # this state of the study in this process); the old labels; the new labels; the annotation; the
        # assignment (status, started); its progress counter; the history entry; release.
        "first draft": 12,
        # savepoint; lock + read; the old labels (unchanged: none written); the annotation; the history entry;
        # release.
        "draft": 6,
        # as above, and the label that changed: one DELETE, one INSERT.
        "draft, a label changed": 8,
        # savepoint; the study issue, locked; lock + read (and whether the other raters are done, whether a
        # first submission exists); the old labels; the annotation; the assignment; its progress counter; the
        # history entry; the first submission (the record, its labels); the study's labels version; release.
        "submit": 12,
    }, counts


def _freezing_submit_count(users, n_issues: int) -> int:
    from annotator.models import Study

    Study.objects.all().update(name="old")  # keep the study name free for the next world
    world = build_world(users, n_issues=n_issues)
    TaxonomyVersion.objects.filter(pk=world.study.taxonomy_version_id).update(
        status=TaxonomyVersion.Status.PUBLISHED, published_at=timezone.now()
    )
    a, b = world.a.annotation, world.b.annotation
    annotation_submit(annotation=a, actor=users["rater_a"], data=complete_input(world), expected_version=1)
    api = APIClient()
    api.force_authenticate(users["rater_b"])
    values = {"symptom": [world.cats["symptom"][0].pk], "root_cause": [world.cats["root_cause"][1].pk]}
    api.post(f"/api/v1/annotations/{b.pk}/submit/", {"values": values, "version": 1}, format="json")  # warm
    b.refresh_from_db()
    assert b.frozen
    # The measured one: rater B completes the next issue.
    other_a, other_b = world.assignments["rater_a"][1].annotation, world.assignments["rater_b"][1].annotation
    annotation_submit(annotation=other_a, actor=users["rater_a"], data=complete_input(world), expected_version=1)
    with CaptureQueriesContext(connection) as queries:
        response = api.post(
            f"/api/v1/annotations/{other_b.pk}/submit/", {"values": values, "version": 1}, format="json"
        )
    assert response.status_code == 200 and response.json()["frozen"], response.content
    return len(queries)


@pytest.mark.django_db
def test_the_submit_that_completes_an_issue_costs_a_fixed_number_of_queries(users):
    small, large = _freezing_submit_count(users, 3), _freezing_submit_count(users, 30)
    assert small == large, (small, large)
    # savepoint; the study issue, locked; lock + read (with whether a first submission exists); the old labels
    # (none); the new labels; the annotation; the assignment; its progress counter; the first submission (record,
    # labels); then the freeze: every rater's annotation, locked, and their labels; one UPDATE freezing them; the
    # submit's and the freeze's history entries (one INSERT); the resolution (none yet), its INSERT, its final
    # labels' rows (one INSERT) and its history entry; the study's labels version; release.
    assert small == 20, small
