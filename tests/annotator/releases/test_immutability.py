"""Whatever was published once reads again, byte for byte, at its address: publish, change, publish again."""

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import Client

from annotator.models import Release, ReleaseFile, ReleaseVisibilityChange
from annotator.services.migration import study_version_move
from annotator.services.publication import study_publish
from taxonomy.models import Category
from taxonomy.services.operations import category_rename, version_draft_from, version_publish_with_changelog
from tests.annotator.releases.conftest import revise_final_label
from tests.factories import make_taxonomy_maintainer

pytestmark = pytest.mark.django_db


def served(slug: str, number: int) -> dict[str, bytes]:
    """Every address of release ``number``, as an anonymous reader gets it."""
    client = Client()
    base = f"/api/v1/public/studies/{slug}/releases/{number}"
    names = [f["name"] for f in client.get(f"{base}/").json()["files"]]
    urls = [f"{base}/", f"{base}/dataset/", f"{base}/dataset/?format=csv", f"{base}/agreement/", f"{base}/findings/"]
    urls += [f"/p/{slug}/releases/{number}/files/{name}" for name in names]
    urls += [f"{base}/files/{name}" for name in names]
    out = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        out[url] = response.content
    return out


def move_to_a_renamed_version(world, users):
    owner = make_taxonomy_maintainer(users["owner"])
    draft = version_draft_from(version=world.study.taxonomy_version, actor=owner)
    leaf = Category.objects.get(dimension__version=draft, lineage_id=world.cats["symptom"][0].lineage_id)
    category_rename(category=leaf, actor=owner, name="hang after the collective")
    v2 = version_publish_with_changelog(version=draft, actor=owner)
    study_version_move(study=world.study, to_version=v2, actor=owner)
    return v2


def test_release_1_is_served_byte_identical_after_more_adjudication_and_a_version_move(published, users):
    slug = published.study.slug
    first = served(slug, 1)
    v1 = published.study.taxonomy_version
    revise_final_label(published, users)
    assert served(slug, 1) == first, "changing the study changed a release"
    study_publish(study=published.study, actor=users["owner"], change_note="Issue 1 revised.")
    v2 = move_to_a_renamed_version(published, users)
    assert served(slug, 1) == first
    study_publish(study=published.study, actor=users["owner"], change_note="Moved to taxonomy v2.")
    assert served(slug, 1) == first
    second, third = served(slug, 2), served(slug, 3)
    dataset = f"/api/v1/public/studies/{slug}/releases/{{n}}/files/dataset.jsonl"
    assert second[dataset.format(n=2)] != first[dataset.format(n=1)]
    latest = Client().get(f"/api/v1/public/studies/{slug}/").json()
    assert (latest["release"]["number"], latest["taxonomy"]["version"]) == (3, v2.number)
    assert third[f"/api/v1/public/studies/{slug}/releases/3/"] != first[f"/api/v1/public/studies/{slug}/releases/1/"]
    one = Client().get(f"/api/v1/public/studies/{slug}/releases/1/").json()
    assert one["taxonomy"]["version"] == v1.number != v2.number, "release 1 moved to the new taxonomy version"


def test_the_unversioned_addresses_follow_the_latest_visible_release(published, users):
    slug = published.study.slug
    revise_final_label(published, users)
    study_publish(study=published.study, actor=users["owner"], change_note="revised")
    client = Client()
    assert client.get(f"/api/v1/public/studies/{slug}/").json()["release"]["number"] == 2
    assert client.get(f"/api/v1/public/studies/{slug}/dataset/")["X-Release"] == "2"
    two = client.get(f"/api/v1/public/studies/{slug}/releases/2/dataset/?format=csv").content
    assert client.get(f"/api/v1/public/studies/{slug}/dataset/?format=csv").content == two


@pytest.mark.parametrize("model", [Release, ReleaseFile, ReleaseVisibilityChange])
@pytest.mark.parametrize("verb", ["update", "delete"])
def test_the_database_refuses_to_change_or_delete_a_release(published, users, model, verb):
    from annotator.services.publication import study_unpublish

    if verb == "delete" and connection.vendor != "postgresql":
        # annotator/migrations/0023: SQLite empties its tables with DELETE, so it guards updates only.
        pytest.skip("PostgreSQL refuses deletes; SQLite refuses updates only")
    study_unpublish(study=published.study, actor=users["owner"])
    rows = model.objects.all()
    with pytest.raises(DatabaseError, match="never changed"), transaction.atomic():
        if verb == "delete":
            rows._raw_delete(rows.db)
        elif model is ReleaseFile:
            rows.update(content=b"rewritten")
        elif model is Release:
            rows.update(change_note="rewritten")
        else:
            rows.update(visible=True)
    assert ReleaseFile.objects.filter(content=b"rewritten").count() == 0


def test_a_page_of_the_frozen_dataset_decodes_only_its_rows():
    from annotator.selectors.releases import FrozenRows

    rows = FrozenRows(b'{"a": 1}\n{"a": 2}\n\n{"a": 3}\n')
    assert len(rows) == 3 and rows[1:3] == [{"a": 2}, {"a": 3}] and rows[0] == {"a": 1}
    rows._lines[0] = b"not json"  # a row outside the page is never decoded
    assert rows[1:2] == [{"a": 2}]
