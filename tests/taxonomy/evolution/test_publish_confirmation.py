"""Publishing a draft asks first: the confirmation counts the edits and categories, and writes nothing."""

import pytest
from django.urls import reverse

from taxonomy.services.changelog import version_publish_preview
from taxonomy.services.operations import categories_merge, category_deprecate, category_rename
from tests.taxonomy.evolution.conftest import cat
from tests.taxonomy.evolution.test_role_matrix import client_for, snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def edited(draft, editors):
    category_rename(category=cat(draft, "crash"), actor=editors.alice, name="abort")
    categories_merge(categories=[cat(draft, "hang"), cat(draft, "timeout")], actor=editors.alice, name="stall")
    category_deprecate(category=cat(draft, "misused API"), actor=editors.alice, reason="too broad")
    draft.refresh_from_db()
    return draft


def test_the_preview_counts_each_operation_and_the_categories_before_and_after(edited):
    preview = version_publish_preview(version=edited)
    assert {k: v for k, v in preview["operations"].items() if v} == {"rename": 1, "merge": 1, "deprecate": 1}
    assert {d["key"]: (d["before"], d["after"]) for d in preview["dimensions"]} == {
        "symptom": (4, 3),
        "root_cause": (2, 1),
    }
    assert "renamed 'crash' to 'abort'" in preview["changelog"]


@pytest.mark.parametrize(("role", "status"), [("anonymous", 302), ("rater", 403), ("study_owner", 403),
                                              ("maintainer", 200), ("staff", 200)])  # fmt: skip
def test_the_confirmation_page_writes_nothing(edited, editors, role, status):
    before = snapshot()
    url = reverse("taxonomy:version_publish_draft", args=[edited.taxonomy.slug, edited.number])
    response = client_for(role, editors).get(url)
    assert response.status_code == status
    if status == 200:
        html = response.content.decode()
        assert 'data-testid="op-merge">merge: 1' in html and 'data-testid="confirm-publish-version"' in html
        assert f'name="revision" value="{edited.edit_revision}"' in html
    assert snapshot() == before


def test_the_editor_asks_for_confirmation_before_publishing(edited, editors):
    url = reverse("taxonomy:version_edit", args=[edited.taxonomy.slug, edited.number])
    html = client_for("maintainer", editors).get(url).content.decode()
    publish = reverse("taxonomy:version_publish_draft", args=[edited.taxonomy.slug, edited.number])
    assert f'<form method="get" action="{publish}"' in html
