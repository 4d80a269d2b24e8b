"""Browsing taxonomies: login required, everything shown, and a query count that does not grow."""

import pytest
from django.urls import reverse

from taxonomy.services import taxonomy_template_load
from tests.factories import CategoryFactory, DimensionFactory, TaxonomyFactory, TaxonomyVersionFactory, published
from tests.taxonomy.factories import build_tree

pytestmark = pytest.mark.django_db


def version_url(slug: str, number: int) -> str:
    return reverse("taxonomy:version_detail", args=[slug, number])


@pytest.fixture
def gu(db):
    return taxonomy_template_load(source="gu-tosem23").version


def test_the_list_requires_login(client):
    response = client.get(reverse("taxonomy:taxonomy_list"))
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/")


def test_a_version_page_requires_login(client, gu):
    response = client.get(version_url("gu-tosem23", 1))
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/")


def test_the_list_shows_taxonomies_with_their_versions(client_as, gu):
    taxonomy_template_load(source="ddl-2025")
    response = client_as("rater_a").get(reverse("taxonomy:taxonomy_list"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Distributed training issues (Liu, Gu et al., TOSEM 2023)" in html
    assert "Bugs in distributed deep learning systems (Ma et al., 2025)" in html
    assert version_url("gu-tosem23", 1) in html
    assert version_url("ddl-2025", 1) in html
    assert "<td>156</td>" in html, "the category count of the version"
    assert "css/taxonomy.css" in html


def test_a_version_page_shows_dimensions_tree_definitions_provenance_flags_and_aliases(client_as, gu):
    response = client_as("rater_b").get(version_url("gu-tosem23", 1))
    assert response.status_code == 200
    html = response.content.decode()
    for name in ("Issue type", "Distributed-specific", "Stage", "Symptom", "Fix pattern", "How-to topic"):
        assert f"{name} <code" in html
    assert "training-and-evaluation.program-failure.out-of-memory" in html
    assert "The program stops with an error." in html, "a definition"
    assert "Gu et al. TOSEM 2023, final_categories.xlsx (faults sheet, 21 issues; 21 distributed-specific)" in html
    assert "<q>Hang &amp; Timeout</q>" in html, "an alias"
    assert 'class="tx-badge tx-ds-yes"' in html
    assert "only when issue_type is fault" in html
    assert "stage › inner category › leaf category" in html
    assert 'href="https://github.com/horovod/horovod/issues/' in html, "examples are links"
    assert "js/taxonomy.js" in html
    assert "<script>" not in html and "style=" not in html, "the Content-Security-Policy forbids inline code"


def test_an_unknown_version_is_404(client_as, gu):
    assert client_as("rater_a").get(version_url("gu-tosem23", 9)).status_code == 404
    assert client_as("rater_a").get(version_url("nope", 1)).status_code == 404


def test_other_versions_are_linked(client_as, gu):
    TaxonomyVersionFactory(taxonomy=gu.taxonomy, number=2)
    html = client_as("rater_a").get(version_url("gu-tosem23", 1)).content.decode()
    assert version_url("gu-tosem23", 2) in html


@pytest.mark.parametrize("size", [1, 6])
def test_the_version_page_query_count_does_not_grow_with_the_tree(client_as, django_assert_max_num_queries, size):
    version = TaxonomyVersionFactory(taxonomy=TaxonomyFactory(slug="big"))
    for d in range(size):
        build_tree(DimensionFactory(version=version, order=d), roots=size, children=size, grandchildren=size)
    published(version)
    client = client_as("rater_a")
    with django_assert_max_num_queries(7):
        response = client.get(version_url("big", version.number))
    assert response.status_code == 200
    assert response.content.decode().count('class="tx-node ') == size * (size + size**2 + size**3)


@pytest.mark.parametrize("size", [1, 8])
def test_the_list_query_count_does_not_grow_with_taxonomies(client_as, django_assert_max_num_queries, size):
    for t in range(size):
        taxonomy = TaxonomyFactory(slug=f"t{t}")
        for number in (1, 2):
            version = TaxonomyVersionFactory(taxonomy=taxonomy, number=number)
            CategoryFactory(dimension=DimensionFactory(version=version))
    client = client_as("rater_a")
    with django_assert_max_num_queries(5):
        response = client.get(reverse("taxonomy:taxonomy_list"))
    assert response.status_code == 200
    assert response.content.decode().count("/taxonomies/t") == size * 2
