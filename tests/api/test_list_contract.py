"""Every list answers the documented envelope, and paging parameters and filters outside their documented
range answer 400 naming the parameter (never a silently different page)."""

import pytest

pytestmark = pytest.mark.django_db

LIMIT_OFFSET_LISTS = [
    "/api/v1/studies/",
    "/api/v1/repositories/",
    "/api/v1/me/annotations/",
    "/api/v1/import-jobs/",
    "/api/v1/taxonomies/",
    "/api/v1/public/studies/",
    "/api/v1/studies/{study}/resolutions/",
    "/api/v1/studies/{study}/replication-packages/",
]


@pytest.mark.parametrize("url", LIMIT_OFFSET_LISTS)
def test_every_limit_offset_list_answers_the_envelope_with_count(world, api_as, url):
    body = api_as("owner").get(url.format(study=world.study.pk), {"limit": 1}).json()
    assert set(body) == {"count", "next", "previous", "results"}, body
    assert isinstance(body["results"], list) and len(body["results"]) <= 1


@pytest.mark.parametrize(
    ("url", "query", "field"),
    [
        ("/api/v1/studies/", "limit=0", "limit"),
        ("/api/v1/studies/", "limit=201", "limit"),
        ("/api/v1/studies/", "limit=ten", "limit"),
        ("/api/v1/taxonomies/", "limit=", "limit"),
        ("/api/v1/repositories/", "offset=-1", "offset"),
        ("/api/v1/studies/{study}/resolutions/", "limit=500", "limit"),
        ("/api/v1/studies/{study}/resolutions/", "status=", "status"),
        ("/api/v1/issues/", "page_size=201", "page_size"),
        ("/api/v1/issues/", "direction=", "direction"),
        ("/api/v1/issues/", "search=", "search"),
        ("/api/v1/import-jobs/", "status=", "status"),
        ("/api/v1/me/annotations/", "submitted=maybe", "submitted"),
        ("/api/v1/me/annotations/", "study=0", "study"),
    ],
)
def test_a_parameter_outside_its_documented_range_is_a_400_naming_it(world, api_as, url, query, field):
    response = api_as("owner").get(f"{url.format(study=world.study.pk)}?{query}")
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["fields"]


def test_the_largest_documented_page_is_served(world, api_as):
    assert api_as("owner").get("/api/v1/studies/?limit=200&offset=0").status_code == 200
    assert api_as("owner").get("/api/v1/issues/?page_size=200").status_code == 200


def test_options_is_not_part_of_the_api(world, api_as):
    response = api_as("owner").options(f"/api/v1/studies/{world.study.pk}/replication-packages/")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


@pytest.mark.parametrize(
    "moment", ["0720-08-27T07:08:11.5-20:35", "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-23:00"]
)
def test_issue_dates_with_any_iso_offset_filter_without_a_server_error(world, api_as, moment):
    for name in ("created_after", "created_before"):
        assert api_as("owner").get("/api/v1/issues/", {name: moment}).status_code == 200, name
