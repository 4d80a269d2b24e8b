"""The public taxonomy API: versions, category trees, lineage and changelog; drafts only for signed-in users."""

import pytest
from rest_framework.test import APIClient

from taxonomy.services.operations import categories_merge, version_publish_with_changelog
from tests.taxonomy.evolution.conftest import cat


@pytest.fixture
def v2(draft, editors):
    categories_merge(categories=[cat(draft, "hang"), cat(draft, "timeout")], actor=editors.alice, name="stuck")
    return version_publish_with_changelog(version=draft, actor=editors.alice)


def test_anonymous_reads_published_versions_with_lineage_and_changelog(v1, v2):
    client = APIClient()
    slug = v1.taxonomy.slug
    listing = client.get("/api/v1/taxonomies/")
    assert listing.status_code == 200
    assert [t["versions"] for t in listing.json()["results"] if t["slug"] == slug] == [[1, 2]]
    detail = client.get(f"/api/v1/taxonomies/{slug}/").json()
    assert [v["number"] for v in detail["versions"]] == [1, 2]
    assert detail["versions"][1]["category_counts"] == {"symptom": 3, "root_cause": 2}
    assert "merged 'hang' and 'timeout' into 'stuck'" in detail["history"]
    headings = [line for line in detail["history"].splitlines() if line.startswith("## ")]
    assert [h.split(",")[0] for h in headings] == ["## v2 (from v1)", "## v1"], headings
    version = client.get(f"/api/v1/taxonomies/{slug}/versions/2/").json()
    assert version["based_on"] == 1
    assert [(e["operation"], e["from_name"], e["to_name"]) for e in version["lineage"]] == [
        ("merge", "hang", "stuck"),
        ("merge", "timeout", "stuck"),
    ]
    symptom = next(d for d in version["dimensions"] if d["key"] == "symptom")
    assert symptom["category_count"] == 3
    setup = next(c for c in symptom["categories"] if c["name"] == "setup failure")
    assert {c["name"]: c["deprecated"] for c in setup["children"]}["hang"] is True


def test_drafts_need_a_signed_in_user(v1, draft, editors):
    client = APIClient()
    slug = v1.taxonomy.slug
    assert client.get(f"/api/v1/taxonomies/{slug}/versions/{draft.number}/").status_code in (401, 403)
    assert [v["number"] for v in client.get(f"/api/v1/taxonomies/{slug}/").json()["versions"]] == [1]
    client.force_authenticate(editors.rater)
    assert client.get(f"/api/v1/taxonomies/{slug}/versions/{draft.number}/").status_code == 200


def test_an_unknown_version_is_404(v1):
    assert APIClient().get(f"/api/v1/taxonomies/{v1.taxonomy.slug}/versions/9/").status_code == 404
