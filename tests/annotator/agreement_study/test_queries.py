"""The agreement page and API cost the same number of queries for 5 and for 50 issues, cold and warm."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from annotator.models import Study
from tests.annotator.agreement_study.factories import assignments_of, study_with_issues, write_label, write_resolution

pytestmark = pytest.mark.django_db


def labelled_study(users, n: int) -> Study:
    Study.objects.all().update(name="old", slug="old")
    study = study_with_issues(users, n_issues=n, kind="pilot", name=f"Study of {n}")
    cats = study.taxonomy_fixture["cats"]
    for role in ("rater_a", "rater_b"):
        for i, assignment in enumerate(assignments_of(study, users[role])):
            write_label(assignment, [cats["symptom"][i % 3], cats["root_cause"][(i // 2) % 3], cats["stage"][i % 2]])
    for assignment in assignments_of(study, users["rater_a"])[: n // 2]:
        write_resolution(assignment.study_issue, {"symptom": [cats["symptom"][0].pk]})
    return study


def count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries)


def measure(users, n: int) -> dict[str, int]:
    study = labelled_study(users, n)
    page, api = Client(), APIClient()
    page.force_login(users["owner"])
    api.force_authenticate(users["owner"])
    cell = f"/studies/{study.pk}/agreement/cell/?dimension=symptom&row=0&col=0"
    cache.clear()
    out = {"page cold": count(page, f"/studies/{study.pk}/agreement/")}
    out["page warm"] = count(page, f"/studies/{study.pk}/agreement/")
    out["cell"] = count(page, cell)
    cache.clear()
    out["api cold"] = count(api, f"/api/v1/studies/{study.pk}/agreement/")
    out["api warm"] = count(api, f"/api/v1/studies/{study.pk}/agreement/")
    return out


def test_query_counts_do_not_grow_with_the_study(users):
    small = measure(users, 5)
    large = measure(users, 50)
    assert small == large, f"5 issues: {small}, 50 issues: {large}"
    assert large["page warm"] <= 8, large
    assert large["page cold"] <= 25, large


def test_warm_page_within_a_fixed_budget(users, django_assert_max_num_queries):
    study = labelled_study(users, 20)
    client = Client()
    client.force_login(users["owner"])
    client.get(f"/studies/{study.pk}/agreement/")
    with django_assert_max_num_queries(8):
        assert client.get(f"/studies/{study.pk}/agreement/").status_code == 200
