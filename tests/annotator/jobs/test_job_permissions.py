"""Import jobs between teams: a job is seen by whoever started it, the owners of the study a spreadsheet import
fed, and staff; a GitHub sync by everyone who may import; retried or cancelled only by its starter and staff.
Pages, API and services answer alike, with exact status codes, and a denied request changes nothing."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from rest_framework.test import APIClient

from annotator.models import ImportJob, StudyMember
from annotator.services.jobs import job_cancel, job_retry
from core.errors import PermissionDeniedError
from core.permissions import STUDY_OWNERS_GROUP
from tests.annotator.jobs.conftest import file_job
from tests.annotator.studies.factories import make_study
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
ROLES = ("anonymous", "rater", "other_owner", "starter", "staff")


@pytest.fixture
def people(db) -> dict:
    group, _ = Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)
    found = {
        "rater": UserFactory(username="rater"),
        "other_owner": UserFactory(username="other_owner"),
        "starter": UserFactory(username="starter"),
        "staff": UserFactory(username="staff", is_staff=True, is_superuser=True),
    }
    for role in ("other_owner", "starter"):
        found[role].groups.add(group)
    return found


def page_client(people, role: str) -> Client:
    client = Client()
    if role != "anonymous":
        client.force_login(people[role])
    return client


def api_client(people, role: str) -> APIClient:
    client = APIClient()
    if role != "anonymous":
        client.force_authenticate(people[role])
    return client


def state(job: ImportJob) -> tuple:
    job.refresh_from_db()
    return job.status, job.attempts, job.error, job.updated_at


def github_job(*, user, status=ImportJob.Status.FAILED) -> ImportJob:
    return ImportJob.objects.create(
        kind=ImportJob.Kind.GITHUB, status=status, created_by=user, parameters={"repository": "org/repo"}
    )


# --------------------------------------------------------------------------- file imports: the starter's


SEE = {"anonymous": 302, "rater": 403, "other_owner": 404, "starter": 200, "staff": 200}
SEE_API = {"anonymous": 401, "rater": 403, "other_owner": 404, "starter": 200, "staff": 200}


@pytest.mark.parametrize("role", ROLES)
def test_a_file_import_is_seen_by_its_starter_and_staff(people, role):
    job = file_job(status=ImportJob.Status.FAILED, user=people["starter"])
    client = page_client(people, role)
    assert client.get(f"/imports/{job.pk}/").status_code == SEE[role]
    assert client.get(f"/imports/{job.pk}/status").status_code == SEE[role]
    assert api_client(people, role).get(f"/api/v1/import-jobs/{job.pk}/").status_code == SEE_API[role]
    listing = client.get("/imports/")
    if listing.status_code == 200:
        assert (f'href="/imports/{job.pk}/"' in listing.content.decode()) is (SEE[role] == 200)
    api_listing = api_client(people, role).get("/api/v1/import-jobs/")
    if api_listing.status_code == 200:
        assert (job.pk in {row["id"] for row in api_listing.json()["results"]}) is (SEE_API[role] == 200)


ACT = {"anonymous": 302, "rater": 403, "other_owner": 404, "starter": 302, "staff": 302}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", ["retry", "cancel"])
def test_a_file_import_is_retried_or_cancelled_by_its_starter_and_staff(
    people, role, action, django_capture_on_commit_callbacks
):
    job = file_job(status=ImportJob.Status.FAILED, user=people["starter"])
    before = state(job)
    with django_capture_on_commit_callbacks(execute=True):  # a retried job runs in-process after the commit
        response = page_client(people, role).post(f"/imports/{job.pk}/{action}/")
    assert response.status_code == ACT[role]
    if role in ("starter", "staff"):
        assert state(job)[0] == (ImportJob.Status.DONE if action == "retry" else ImportJob.Status.CANCELLED)
    else:
        assert state(job) == before, "nothing changed on denial"


def test_the_services_refuse_another_team_whatever_surface_calls_them(people):
    job = file_job(status=ImportJob.Status.FAILED, user=people["starter"])
    before = state(job)
    for service in (job_retry, job_cancel):
        with pytest.raises(PermissionDeniedError):
            service(job=job, actor=people["other_owner"])
    assert state(job) == before


# --------------------------------------------------------------------------- GitHub syncs: seen by importers


GITHUB_SEE = {"anonymous": 302, "rater": 403, "other_owner": 200, "starter": 200, "staff": 200}
GITHUB_ACT = {"anonymous": 302, "rater": 403, "other_owner": 403, "starter": 302, "staff": 302}


@pytest.mark.parametrize("role", ROLES)
def test_a_github_sync_is_seen_by_importers_and_cancelled_by_its_starter_and_staff(people, role):
    job = github_job(user=people["starter"])
    client = page_client(people, role)
    page = client.get(f"/imports/github/jobs/{job.pk}/")
    assert page.status_code == GITHUB_SEE[role]
    if page.status_code == 200:
        assert (f'data-testid="job-cancel-{job.pk}"' in page.content.decode()) is (role in ("starter", "staff"))
    before = state(job)
    response = client.post(f"/imports/{job.pk}/cancel/")
    assert response.status_code == GITHUB_ACT[role]
    if role in ("starter", "staff"):
        assert state(job)[0] == ImportJob.Status.CANCELLED
    else:
        assert state(job) == before


@pytest.mark.parametrize(("role", "status"), [("other_owner", 403), ("starter", 403), ("staff", 302)])
def test_a_sync_the_scheduler_started_is_cancelled_by_staff(people, role, status):
    job = github_job(user=None)
    before = state(job)
    assert page_client(people, role).post(f"/imports/{job.pk}/cancel/").status_code == status
    assert (state(job) == before) is (status == 403)


# --------------------------------------------------------------------------- spreadsheet imports: their study's


def test_a_spreadsheet_import_is_seen_by_the_owners_of_the_study_it_fed(people):
    study = make_study(owner=people["other_owner"], raters=[people["rater"], UserFactory(username="rater_2")])
    job = ImportJob.objects.create(
        kind=ImportJob.Kind.SHEETS,
        status=ImportJob.Status.DONE,
        created_by=people["staff"],
        parameters={"filename": "a.csv, b.csv", "study": study.name, "study_id": study.pk},
    )
    assert page_client(people, "other_owner").get(f"/imports/{job.pk}/").status_code == 200
    assert api_client(people, "other_owner").get(f"/api/v1/import-jobs/{job.pk}/").status_code == 200
    assert page_client(people, "starter").get(f"/imports/{job.pk}/").status_code == 404
    StudyMember.objects.create(study=study, user=people["starter"], role=StudyMember.Role.RATER)
    assert page_client(people, "starter").get(f"/imports/{job.pk}/").status_code == 404, "a rater of it is not"
