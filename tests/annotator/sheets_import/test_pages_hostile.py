"""The wizard against hostile uploads: a size limit while the upload arrives, names the server chooses,
clear messages for hostile workbooks (never a 500), and uploads deleted when done or abandoned."""

import os
import time
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from annotator.models import ImportJob, Study
from annotator.services.sheets_import import uploads as upload_service
from annotator.services.sheets_import.uploads import READ_RESULT, sheets_uploads_clean
from annotator.tasks.sheets_uploads import sheets_uploads_clean_run
from core.permissions import STUDY_OWNERS_GROUP, TAXONOMY_MAINTAINERS_GROUP
from tests.annotator.importers.test_sheets_hostile import FAR_ROW, XXE, declared_huge, rewritten
from tests.annotator.jobs.conftest import broker_down_now
from tests.annotator.sheets_import.test_pages import COLUMNS, CONFIRM, LABELS, UPLOAD, media, owner_client, uploads

__all__ = ["media", "owner_client"]  # fixtures
# The wizard's reading job is sent once the upload's transaction commits, as in production: these tests commit.
pytestmark = pytest.mark.django_db(transaction=True)


def stored_files(settings) -> list[str]:
    """The uploaded files kept (not what the reading task wrote beside them)."""
    root = settings.MEDIA_ROOT / "imports" / "sheets"
    if not root.exists():
        return []
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.name != READ_RESULT)


def test_an_upload_beyond_the_limit_is_refused_while_it_arrives(owner_client, bugs_taxonomy, settings):
    settings.SHEETS_UPLOAD_MAX_BYTES = 10_000
    big = SimpleUploadedFile("big.csv", b"Link,Cause\n" + b"https://x/1,crash\n" * 2000)
    response = owner_client.post(UPLOAD, {"study": "S", "taxonomy": "bugs", "files": [big]})
    assert response.status_code == 413
    assert "larger than 9.8 KiB together, the most this page accepts" in response.content.decode()
    assert stored_files(settings) == []
    assert owner_client.get(COLUMNS)["Location"] == UPLOAD  # no wizard was started


def test_the_upload_page_still_checks_the_csrf_token(users, bugs_taxonomy, rater_csvs, owner_client):
    client = Client(enforce_csrf_checks=True)
    client.force_login(users["owner"])
    response = client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
    assert response.status_code == 403


def test_stored_names_are_chosen_by_the_server(owner_client, bugs_taxonomy, rater_csvs, settings):
    a, b = rater_csvs
    files = [
        SimpleUploadedFile("../../../evil.csv", a.read_bytes()),
        SimpleUploadedFile("b; rm -rf ~ .CSV", b.read_bytes()),
    ]
    response = owner_client.post(UPLOAD, {"files": files, "study": "S", "taxonomy": "bugs"})
    assert response.status_code == 302
    names = stored_files(settings)
    assert [name.split("/")[1] for name in names] == ["1.csv", "2.csv"]
    assert len({name.split("/")[0] for name in names}) == 1 and len(names[0].split("/")[0]) == 32
    assert not list(settings.MEDIA_ROOT.parent.rglob("evil*"))
    page = owner_client.get(COLUMNS)
    assert page.status_code == 200


def _complete_wizard(client):
    client.post(COLUMNS, {"raters": ["alice", "bob"], "key": "Link", "map_cause": "Cause", "map_fix": "Fix"})
    client.post(LABELS, {"add_unknown_labels": "on"})
    return client.post(CONFIRM)


def test_a_completed_wizard_deletes_its_uploads(owner_client, users, bugs_taxonomy, rater_csvs, settings):
    users["owner"].groups.add(Group.objects.get_or_create(name=TAXONOMY_MAINTAINERS_GROUP)[0])  # adds categories
    owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
    assert len(stored_files(settings)) == 2
    response = _complete_wizard(owner_client)
    assert response.status_code == 302 and Study.objects.filter(name="S").exists()
    assert stored_files(settings) == []
    assert not any((settings.MEDIA_ROOT / "imports" / "sheets").iterdir())


def test_starting_again_deletes_the_earlier_uploads(owner_client, bugs_taxonomy, rater_csvs, settings):
    owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
    first = stored_files(settings)
    owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
    second = stored_files(settings)
    assert len(second) == 2 and not set(first) & set(second)


def _age(settings, hours: float) -> None:
    """Make every stored upload look ``hours`` old."""
    then = time.time() - hours * 3600
    for path in (settings.MEDIA_ROOT / "imports" / "sheets").rglob("*"):
        os.utime(path, (then, then))


def test_abandoned_uploads_are_deleted_after_a_day(owner_client, bugs_taxonomy, rater_csvs, settings):
    owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
    _age(settings, 23)
    assert sheets_uploads_clean() == 0 and len(stored_files(settings)) == 2  # within the day: kept
    _age(settings, 25)
    call_command("clean_sheet_uploads", stdout=open(os.devnull, "w"))  # noqa: SIM115
    assert stored_files(settings) == []
    assert not any((settings.MEDIA_ROOT / "imports" / "sheets").iterdir())
    response = owner_client.get(LABELS)  # the wizard whose files are gone starts again, with a message
    assert response.status_code == 302


def test_the_periodic_task_cleans_up_too(owner_client, bugs_taxonomy, rater_csvs, settings):
    owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
    _age(settings, 30)
    sheets_uploads_clean_run.delay()  # eager without a broker
    assert stored_files(settings) == []
    assert settings.CELERY_BEAT_SCHEDULE["sheets-uploads-clean"]["task"] == "annotator.sheets_uploads_clean"
    assert sheets_uploads_clean(older_than=timedelta(0)) == 0


@pytest.mark.parametrize(
    ("name", "edit", "message"),
    [
        ("far.xlsx", lambda xml: declared_huge(xml, FAR_ROW), "has a value in row 1,048,576, beyond the 100,000 rows"),
        (
            "xxe.xlsx",
            lambda xml: XXE + xml.replace("<t>crash</t>", "<t>&xxe;</t>"),
            "xxe.xlsx declares XML entities",
        ),
    ],
)
def test_a_hostile_workbook_gives_a_clear_message_on_every_step(
    owner_client, bugs_taxonomy, tmp_path, settings, name, edit, message
):
    path = rewritten(tmp_path, name, edit)
    upload = SimpleUploadedFile(name, path.read_bytes())
    response = owner_client.post(UPLOAD, {"files": [upload], "study": "S", "taxonomy": "bugs"})
    assert response.status_code == 302
    for _ in range(2):  # reloading gives the message again, never a 500
        response = owner_client.get(COLUMNS, follow=True)
        assert response.status_code == 200
        assert message in response.content.decode()
    for url in (LABELS, CONFIRM):
        assert owner_client.get(url).status_code == 302


def test_a_new_upload_deletes_abandoned_ones_without_celery_beat(
    owner_client, users, bugs_taxonomy, rater_csvs, settings
):
    owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
    abandoned = stored_files(settings)
    _age(settings, 25)
    other = Client()
    other.force_login(users["owner"])
    other.post(UPLOAD, {"files": uploads(rater_csvs), "study": "T", "taxonomy": "bugs"})
    remaining = stored_files(settings)
    assert len(remaining) == 2 and not set(abandoned) & set(remaining)


def test_the_steps_use_what_the_worker_read_never_parsing_in_the_request(
    owner_client, bugs_taxonomy, rater_csvs, settings, monkeypatch
):
    owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
    [result] = (settings.MEDIA_ROOT / "imports" / "sheets").rglob(READ_RESULT)
    job = ImportJob.objects.get(kind=ImportJob.Kind.SHEET_READ)
    assert (job.status, job.created_by.username) == (ImportJob.Status.DONE, "owner")

    def no_parsing(*args, **kwargs):
        raise AssertionError("a spreadsheet was parsed in a web request")

    monkeypatch.setattr(upload_service, "read_sheets", no_parsing)
    monkeypatch.setattr("annotator.services.sheets_import.plan.read_sheets", no_parsing)
    assert b"alice" in owner_client.get(COLUMNS).content
    owner_client.post(COLUMNS, {"raters": ["alice", "bob"], "key": "Link", "map_cause": "Cause", "map_fix": "Fix"})
    assert owner_client.get(LABELS).status_code == 200
    result.unlink()  # as if the worker were still reading
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.RUNNING, heartbeat_at=timezone.now())
    page = owner_client.get(COLUMNS)
    assert page.status_code == 202 and b"Reading the files" in page.content
    assert owner_client.get(LABELS)["Location"] == COLUMNS


def test_with_the_broker_down_the_reading_is_saved_not_queued_and_nothing_is_parsed_in_the_request(
    owner_client, bugs_taxonomy, rater_csvs, settings, monkeypatch
):
    def no_parsing(*args, **kwargs):
        raise AssertionError("a spreadsheet was parsed in a web request")

    with broker_down_now():
        monkeypatch.setattr(upload_service, "read_sheets", no_parsing)
        response = owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
        assert response.status_code == 302 and response["Location"] == COLUMNS
        job = ImportJob.objects.get(kind=ImportJob.Kind.SHEET_READ)
        assert job.status == ImportJob.Status.NOT_QUEUED
        page = owner_client.get(COLUMNS)
        assert page.status_code == 200
        html = page.content.decode()
        assert "job queue cannot be reached" in html and "Not queued" in html
        assert f'data-testid="job-retry-{job.pk}"' in html
        assert '<meta http-equiv="refresh"' not in html
        assert not list((settings.MEDIA_ROOT / "imports" / "sheets").rglob(READ_RESULT))
    monkeypatch.undo()

    retried = owner_client.post(f"/imports/{job.pk}/retry/")  # the broker is back (tasks run in-process)
    assert retried["Location"] == COLUMNS
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, job.error
    assert b"alice" in owner_client.get(COLUMNS).content


def test_the_reaper_sends_a_not_queued_reading_once_the_broker_is_back(owner_client, bugs_taxonomy, rater_csvs):
    with broker_down_now():
        owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
    call_command("reap_jobs")
    assert ImportJob.objects.get(kind=ImportJob.Kind.SHEET_READ).status == ImportJob.Status.DONE
    assert owner_client.get(COLUMNS).status_code == 200


def test_a_reading_whose_worker_died_is_re_queued_by_the_reaper(owner_client, bugs_taxonomy, rater_csvs, settings):
    owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
    [result] = (settings.MEDIA_ROOT / "imports" / "sheets").rglob(READ_RESULT)
    result.unlink()
    job = ImportJob.objects.get(kind=ImportJob.Kind.SHEET_READ)
    long_ago = timezone.now() - timedelta(hours=1)
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.RUNNING, heartbeat_at=long_ago, attempts=1)
    page = owner_client.get(COLUMNS)
    assert page.status_code == 200 and f'data-testid="job-retry-{job.pk}"'.encode() in page.content  # stalled

    call_command("reap_jobs")

    job.refresh_from_db()
    assert (job.status, job.attempts) == (ImportJob.Status.DONE, 2)
    assert result.exists()
    assert b"alice" in owner_client.get(COLUMNS).content


def test_a_cancelled_reading_sends_the_wizard_back_to_the_upload(owner_client, bugs_taxonomy, rater_csvs):
    with broker_down_now():
        owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
    job = ImportJob.objects.get(kind=ImportJob.Kind.SHEET_READ)
    assert owner_client.post(f"/imports/{job.pk}/cancel/").status_code == 302
    call_command("reap_jobs")
    job.refresh_from_db()
    assert job.status == ImportJob.Status.CANCELLED, "the reaper leaves a cancelled reading alone"
    response = owner_client.get(COLUMNS, follow=True)
    assert response.redirect_chain[-1][0] == UPLOAD
    assert "cancelled" in response.content.decode()


def test_another_owner_cannot_see_or_retry_someone_elses_reading(
    owner_client, users, client_as, bugs_taxonomy, rater_csvs
):
    with broker_down_now():
        owner_client.post(UPLOAD, {"files": uploads(rater_csvs), "study": "S", "taxonomy": "bugs"})
    job = ImportJob.objects.get(kind=ImportJob.Kind.SHEET_READ)
    users["adjudicator"].groups.add(Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)[0])
    other = client_as("adjudicator")
    assert other.get(f"/imports/{job.pk}/").status_code == 404
    assert other.post(f"/imports/{job.pk}/retry/").status_code == 404
    job.refresh_from_db()
    assert job.status == ImportJob.Status.NOT_QUEUED
