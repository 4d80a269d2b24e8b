"""The upload wizard: upload -> map columns -> review labels -> confirm, for study owners only."""

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotator.models import Annotation, Issue, Study, StudyIssue
from core.permissions import STUDY_OWNERS_GROUP, TAXONOMY_MAINTAINERS_GROUP
from taxonomy.models import Category, TaxonomyVersion
from tests.annotator.sheets_import.csv_files import HEADER, write_csv

# The wizard's reading job is sent once the upload's transaction commits, as in production: these tests commit.
pytestmark = pytest.mark.django_db(transaction=True)

UPLOAD = reverse("annotator:sheets_upload")
COLUMNS = reverse("annotator:sheets_columns")
LABELS = reverse("annotator:sheets_labels")
CONFIRM = reverse("annotator:sheets_confirm")


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def owner_client(users, client_as):
    users["owner"].groups.add(Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)[0])
    return client_as("owner")


def uploads(rater_csvs):
    return [SimpleUploadedFile(path.name, path.read_bytes(), content_type="text/csv") for path in rater_csvs]


def counts() -> tuple:
    return Study.objects.count(), StudyIssue.objects.count(), Annotation.objects.count(), Issue.objects.count()


def test_anonymous_is_sent_to_log_in(client, db):
    response = client.get(UPLOAD)
    assert response.status_code == 302 and "login" in response["Location"]


@pytest.mark.parametrize("url", [UPLOAD, COLUMNS, LABELS, CONFIRM])
def test_a_user_who_does_not_own_studies_is_refused_and_nothing_is_created(
    client_as, users, url, bugs_taxonomy, rater_csvs
):
    before = counts()
    client = client_as("rater_a")
    assert client.get(url).status_code == 403
    response = client.post(url, {"files": uploads(rater_csvs), "study": "Bugs pilot", "taxonomy": "bugs"})
    assert response.status_code == 403
    assert counts() == before


def test_an_owner_completes_the_wizard_and_the_study_is_created(
    owner_client, users, bugs_taxonomy, rater_csvs, tmp_path
):
    _, b = rater_csvs
    # rater B misspelt a fix pattern: the review step offers the merge as a ticked checkbox
    write_csv(
        b,
        [
            HEADER,
            ["https://github.com/org/repo/issues/1", "crash", "fix confgi"],
            ["https://github.com/org/repo/issues/2", "hang", "fix config"],
            ["https://github.com/org/repo/issues/3", "hang", "fix config"],
        ],
    )
    response = owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "Bugs pilot", "taxonomy": "bugs"})
    assert response.status_code == 302 and response["Location"] == COLUMNS

    page = owner_client.get(COLUMNS)
    assert page.status_code == 200
    assert b"alice" in page.content and b"Fix" in page.content
    response = owner_client.post(
        COLUMNS,
        {
            "raters": ["alice", "bob"],
            "final": "",
            "key": "Link",
            "missing": "PENDING",
            "map_cause": "Cause",
            "map_fix": "Fix",
        },
    )
    assert response.status_code == 302 and response["Location"] == LABELS

    page = owner_client.get(LABELS)
    assert page.status_code == 200
    assert "fix confgi" in page.content.decode()
    assert counts() == (0, 0, 0, 0)  # reviewing writes nothing
    response = owner_client.post(LABELS, {"accept_0": "on"})
    assert response.status_code == 302 and response["Location"] == CONFIRM

    page = owner_client.get(CONFIRM)
    assert page.status_code == 200 and b"Bugs pilot" in page.content
    assert counts() == (0, 0, 0, 0)
    response = owner_client.post(CONFIRM)
    study = Study.objects.get(name="Bugs pilot")
    assert response.status_code == 302 and response["Location"] == reverse("annotator:study_detail", args=[study.pk])
    assert counts() == (1, 3, 6, 3)
    assert study.members.filter(user=users["owner"], role="owner").exists()
    fixed = Annotation.objects.get(
        assignment__rater__username="bugs-pilot-bob", assignment__study_issue__issue__number=1
    )
    assert list(fixed.values.values_list("category__code", flat=True).order_by("category__code")) == [
        "crash",
        "fix-config",
    ]
    assert study.rounds.get().filters["sheets"]["files"] == ["alice.csv", "bob.csv"]


def test_an_unknown_label_blocks_the_confirm_step_until_it_may_be_added(owner_client, users, bugs_taxonomy, tmp_path):
    a = write_csv(tmp_path / "a.csv", [HEADER, ["https://github.com/org/repo/issues/1", "data race", "fix code"]])
    b = write_csv(tmp_path / "b.csv", [HEADER, ["https://github.com/org/repo/issues/1", "crash", "fix code"]])
    files = [SimpleUploadedFile(p.name, p.read_bytes()) for p in (a, b)]
    owner_client.post(UPLOAD, {"files": files, "study": "S", "taxonomy": "bugs"})
    owner_client.post(COLUMNS, {"raters": ["a", "b"], "key": "Link", "map_cause": "Cause", "map_fix": "Fix"})
    assert "data race" in owner_client.get(LABELS).content.decode()
    owner_client.post(LABELS, {})
    before = counts()
    response = owner_client.post(CONFIRM)
    assert response.status_code == 400
    assert "fits no category" in response.content.decode()
    assert counts() == before
    owner_client.post(LABELS, {"add_unknown_labels": "on"})
    taxonomy_before = (TaxonomyVersion.objects.count(), Category.objects.count())
    response = owner_client.post(CONFIRM)
    assert response.status_code == 403, "adding a category is a taxonomy edit: a study owner may not"
    assert "Only taxonomy maintainers and staff can change a taxonomy" in response.content.decode()
    assert counts() == before
    assert (TaxonomyVersion.objects.count(), Category.objects.count()) == taxonomy_before
    users["owner"].groups.add(Group.objects.get_or_create(name=TAXONOMY_MAINTAINERS_GROUP)[0])
    response = owner_client.post(CONFIRM)
    assert response.status_code == 302
    assert Study.objects.get(name="S").taxonomy_version.status == "draft"


def test_a_file_that_is_not_a_spreadsheet_is_refused(owner_client, bugs_taxonomy):
    response = owner_client.post(
        UPLOAD, {"files": [SimpleUploadedFile("notes.txt", b"hello")], "study": "S", "taxonomy": "bugs"}
    )
    assert response.status_code == 400
    assert "only .xlsx and .csv" in response.content.decode()
