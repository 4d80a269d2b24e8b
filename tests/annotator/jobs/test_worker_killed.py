"""A real Celery worker on the Redis broker, killed with SIGKILL in the middle of a job: the job ends
done (taken over or re-queued), never "running" forever, and never run twice at once.

The worker is a separate process on the test database, so these tests need PostgreSQL."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from annotator.models import ExportJob, ImportJob, Issue
from tests.annotator.jobs.conftest import broker, issues_file
from tests.redis_server import TEST_REDIS_URL, redis_or_skip

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[3]
HEARTBEAT, STALE = 0.5, 2.0  # seconds: a killed worker's job goes stale quickly here
DEADLINE = 90


def _database_url() -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


class Worker:
    """`celery worker` (prefork, one pool process) in its own process group, on the test database."""

    def __init__(self, *, media: Path, gate: Path, log: Path):
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings_test",
            "DATABASE_URL": _database_url(),
            "CELERY_BROKER_URL": TEST_REDIS_URL,
            "MEDIA_ROOT": str(media),
            "JOB_HEARTBEAT_SECONDS": str(HEARTBEAT),
            "JOB_STALE_SECONDS": str(STALE),
            "JOB_REAPER_SECONDS": "0",
            "JOBS_TEST_GATE": str(gate),
        }
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=prefork", "--concurrency=1"]
        command += ["--include=tests.annotator.jobs.slow_worker", "--without-gossip", "--without-mingle"]
        command += ["--loglevel=INFO", "--hostname=jobs-test@%h"]
        self.log = log
        self._output = log.open("ab")
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self._output, stderr=subprocess.STDOUT, start_new_session=True
        )

    def pool_processes(self) -> list[int]:
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()] if children.exists() else []

    def kill_pool_process(self) -> int:
        (pid,) = self.pool_processes()
        os.kill(pid, signal.SIGKILL)
        return pid

    def kill(self) -> None:
        """SIGKILL the whole worker: main process and pool, nothing gets to clean up."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self._output.close()


@pytest.fixture
def redis_db(settings, tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("the worker process shares the test database: PostgreSQL only")
    redis_or_skip(TEST_REDIS_URL)
    import redis

    client = redis.Redis.from_url(TEST_REDIS_URL)
    client.flushdb()  # the tests' own Redis database: queues and unacknowledged messages of earlier runs
    settings.JOB_HEARTBEAT_SECONDS, settings.JOB_STALE_SECONDS = HEARTBEAT, STALE
    yield client
    client.flushdb()


@pytest.fixture
def start_worker(tmp_path, settings, redis_db):
    workers = []
    gate = tmp_path / "gate"

    def start() -> Worker:
        worker = Worker(media=Path(settings.MEDIA_ROOT), gate=gate, log=tmp_path / "worker.log")
        workers.append(worker)
        return worker

    start.gate = gate
    yield start
    for worker in workers:  # only the processes this test started
        worker.kill()


def wait_for(job, predicate, what: str, log: Path):
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if predicate(job):
            return job
        time.sleep(0.1)
    tail = log.read_text()[-3000:] if log.exists() else ""
    pytest.fail(f"{what}: job still {job.status} after {DEADLINE} s (error: {job.error!r})\n{tail}")


def test_a_package_build_whose_pool_process_is_killed_is_redelivered_and_finishes(users, start_worker, client_as):
    from tests.annotator.worlds import labelled_world

    world = labelled_world(users, n_issues=2)  # built with in-process tasks, before the broker is used
    start_worker.gate.touch()
    worker = start_worker()
    with broker(TEST_REDIS_URL):
        response = client_as("owner").post(f"/api/v1/studies/{world.study.pk}/replication-packages/")
    assert response.status_code == 202
    job = ExportJob.objects.get()
    job = wait_for(job, lambda j: j.status == ExportJob.Status.RUNNING, "the build never started", worker.log)
    claimed_beat = job.heartbeat_at
    wait_for(job, lambda j: j.heartbeat_at > claimed_beat, "no heartbeat while it runs", worker.log)

    worker.kill_pool_process()  # mid-build: the job is claimed and holds the gate
    start_worker.gate.unlink()

    job = wait_for(job, lambda j: j.status != ExportJob.Status.RUNNING, "the build hung", worker.log)
    assert job.status == ExportJob.Status.DONE, job.error
    assert job.attempts == 2  # the killed claim, then the redelivered message's
    assert job.sha256 and job.counts["data/final_labels.jsonl"] == 2
    with broker(TEST_REDIS_URL):  # the study is not blocked: a new build is a new job
        again = client_as("owner").post(f"/api/v1/studies/{world.study.pk}/replication-packages/")
    assert again.json()["id"] != job.pk


def test_an_import_whose_whole_worker_is_killed_is_requeued_by_the_reaper_and_finishes(owner, start_worker, client_as):
    start_worker.gate.touch()
    first = start_worker()
    with broker(TEST_REDIS_URL):
        response = client_as("owner").post("/imports/", {"upload": issues_file(5)})
    assert response.status_code == 302
    job = ImportJob.objects.get()
    wait_for(job, lambda j: j.status == ImportJob.Status.RUNNING, "the import never started", first.log)

    first.kill()  # main process too: its message stays unacknowledged until the broker's visibility timeout
    start_worker.gate.unlink()
    time.sleep(STALE + HEARTBEAT)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.RUNNING and job.is_stale

    second = start_worker()
    with broker(TEST_REDIS_URL):
        call_command("reap_jobs")  # what beat runs every JOB_REAPER_SECONDS

    job = wait_for(job, lambda j: j.status == ImportJob.Status.DONE, "the re-queued import never finished", second.log)
    assert job.attempts == 2
    assert Issue.objects.count() == 5


def test_a_spreadsheet_reading_whose_worker_is_killed_is_requeued_and_the_wizard_goes_on(
    owner, start_worker, client_as, bugs_taxonomy, rater_csvs
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    start_worker.gate.touch()
    first = start_worker()
    client = client_as("owner")
    files = [SimpleUploadedFile(path.name, path.read_bytes(), content_type="text/csv") for path in rater_csvs]
    with broker(TEST_REDIS_URL):
        response = client.post("/studies/import-sheets/", {"files": files, "study": "S", "taxonomy": "bugs"})
    assert response.status_code == 302
    job = ImportJob.objects.get(kind=ImportJob.Kind.SHEET_READ)
    wait_for(job, lambda j: j.status == ImportJob.Status.RUNNING, "the reading never started", first.log)
    assert client.get("/studies/import-sheets/columns/").status_code == 202  # the step waits for it

    first.kill()
    start_worker.gate.unlink()
    time.sleep(STALE + HEARTBEAT)
    job.refresh_from_db()
    assert job.is_stale
    assert b"job-retry-" in client.get("/studies/import-sheets/columns/").content  # stalled: Retry offered

    second = start_worker()
    with broker(TEST_REDIS_URL):
        call_command("reap_jobs")

    job = wait_for(job, lambda j: j.status == ImportJob.Status.DONE, "the re-queued reading never finished", second.log)
    assert job.attempts == 2
    page = client.get("/studies/import-sheets/columns/")
    assert page.status_code == 200 and b"alice" in page.content
