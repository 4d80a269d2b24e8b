"""GitHub import jobs: start one, and run (or resume) it phase by phase, page by page.

A job walks three listings in order — issues, comments, timelines (fix links, optional) —
then, with fix details, each linked pull request and commit (phase "fixes"); after every page,
timeline or batch of fixes it commits the data together with its cursor (phase, next page URL,
high-water mark, last issue or link read), so a crash or a restart continues where it stopped
without duplicates.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Coalesce, Now
from django.utils import timezone

from annotator.importers.github import (
    GitHubClient,
    GitHubError,
    GitHubHTTPError,
    Page,
    RateLimitedError,
    comment_record_from_json,
    format_datetime,
    is_pull_request,
    issue_record_from_json,
    links_from_timeline,
    parse_datetime,
)
from annotator.importers.github.fixes import FixDataError, change_ref_from_url
from annotator.importers.records import RepositoryRef
from annotator.models import FixDetail, ImportJob, Issue, IssueLink, Repository, RepositoryAlias
from core.errors import ConflictError, DomainError

from ..jobs import job_enqueue_on_commit, job_queued_or_raise, job_run
from .fixes import FetchedChange, fix_change_fetch, fix_detail_store, fix_detail_unchanged
from .store import comments_upsert, links_upsert, repository_rename

PER_PAGE = 100
TIMELINES_KEY = "timelines"  # sync_state: when fix links were last read (this database's clock)
FIX_DETAILS_KEY = "fix_details"  # sync_state: when fix details were last read (this database's clock)
# A linked change GitHub no longer serves (deleted, private, an unknown sha) is counted and passed over.
_CHANGE_GONE = (404, 410, 422, 451)
# Fixes committed together with the cursor; the files they hold are bounded too (a pull request has at most 3,000).
FIX_BATCH = 25
FIX_BATCH_FILES = 5000
UNFINISHED = (ImportJob.Status.PENDING, ImportJob.Status.RUNNING, ImportJob.Status.WAITING, ImportJob.Status.NOT_QUEUED)
# What a worker (or `import_github --resume`) may claim besides a stalled running job.
RESUMABLE = (ImportJob.Status.PENDING, ImportJob.Status.NOT_QUEUED, ImportJob.Status.WAITING, ImportJob.Status.FAILED)
STATES = ("open", "closed", "all")
_REPO_NAME = re.compile(r"^(?:https?://[^/]+/)?(?P<owner>[\w.-]+)/(?P<name>[\w.-]+?)(?:\.git)?/?$")
_REPOS_PATH = re.compile(r"^/(?:api/v3/)?repos/(?P<owner>[^/]+)/(?P<name>[^/]+)(?:/|$)")
_REPOSITORIES_PATH = re.compile(r"^/(?:api/v3/)?repositories/(?P<id>\d+)(?:/|$)")

Progress = Callable[[ImportJob, GitHubClient], None]


def github_client_build(*, max_rate_limit_wait: float | None = None, **overrides) -> GitHubClient:
    """A client for settings.GITHUB_API_URL with settings.GITHUB_TOKEN (none: the lower anonymous limits)."""
    return GitHubClient(
        base_url=settings.GITHUB_API_URL,
        token=settings.GITHUB_TOKEN,
        max_rate_limit_wait=max_rate_limit_wait,
        **overrides,
    )


def parse_repository_name(value: str) -> tuple[str, str]:
    """ "owner/name" or a repository's web address -> (owner, name)."""
    match = _REPO_NAME.match((value or "").strip())
    if not match:
        raise DomainError(
            f"'{value}' is not a repository name: write it as owner/name, e.g. deepspeedai/DeepSpeed.",
            field="repository",
        )
    return match["owner"], match["name"]


def github_web_host() -> str:
    """The web host issues live on: github.com, or a GitHub Enterprise server's (GITHUB_WEB_HOST)."""
    from django.conf import settings

    return settings.GITHUB_WEB_HOST


def github_repository_get_or_create(*, owner: str, name: str) -> Repository:
    """The stored repository of that name (or of an old name of it) on the GitHub host; a new one if none."""
    host = github_web_host()
    repository = Repository.objects.filter(host__iexact=host, owner__iexact=owner, name__iexact=name).first()
    if repository is None:
        alias = RepositoryAlias.objects.filter(
            host__iexact=host, owner__iexact=owner, name__iexact=name
        ).select_related("repository")
        repository = alias[0].repository if alias else None
    return repository or Repository.objects.create(host=host, owner=owner, name=name)


def github_import_start(
    *,
    repository: str,
    user=None,
    state: str = "all",
    since: datetime | None = None,
    limit: int | None = None,
    include_pulls: bool = False,
    fix_links: bool = False,
    fix_details: bool = False,
    full: bool = False,
    enqueue: bool = True,
) -> ImportJob:
    """Create a GitHub import job; with enqueue, a Celery worker runs it once this transaction commits.

    Raises JobNotQueuedError (503) when the queue cannot be reached: the job is saved "not queued"
    and sent when the queue is back. Fix details need the fix links, so they turn those on too.
    """
    job = _github_import_create(
        repository=repository,
        user=user,
        state=state,
        since=since,
        limit=limit,
        include_pulls=include_pulls,
        fix_links=fix_links or fix_details,
        fix_details=fix_details,
        full=full,
        enqueue=enqueue,
    )
    return job_queued_or_raise(job=job)


@transaction.atomic
def _github_import_create(
    *,
    repository: str,
    user,
    state: str,
    since: datetime | None,
    limit: int | None,
    include_pulls: bool,
    fix_links: bool,
    fix_details: bool,
    full: bool,
    enqueue: bool,
) -> ImportJob:
    owner, name = parse_repository_name(repository)
    if state not in STATES:
        raise DomainError(f"State must be one of {', '.join(STATES)}, not '{state}'.", field="state")
    if limit is not None and limit < 1:
        raise DomainError("The limit must be a positive number of issues (or empty for all).", field="limit")
    repo = github_repository_get_or_create(owner=owner, name=name)
    Repository.objects.select_for_update().get(pk=repo.pk)  # one start at a time per repository
    running = ImportJob.objects.filter(
        kind=ImportJob.Kind.GITHUB, parameters__repository_id=repo.pk, status__in=UNFINISHED
    ).first()
    if running is not None and running.status == ImportJob.Status.NOT_QUEUED:
        raise ConflictError(
            f"An import of {repo.full_name} (job #{running.pk}) is waiting for the job queue; retry or cancel it."
        )
    if running is not None:
        raise ConflictError(
            f"An import of {repo.full_name} is already under way (job #{running.pk}); wait for it to finish."
        )
    job = ImportJob.objects.create(
        kind=ImportJob.Kind.GITHUB,
        created_by=user,
        parameters={
            "repository_id": repo.pk,
            "repository": repo.full_name,
            "state": state,
            "since": format_datetime(since) if since else None,
            "limit": limit,
            "include_pulls": include_pulls,
            "fix_links": fix_links,
            "fix_details": fix_details,
            "full": full,
        },
        cursor={"phase": "issues"},
    )
    if enqueue:
        job_enqueue_on_commit(job=job)
    return job


def github_import_continue(
    *, job: ImportJob, client: GitHubClient | None = None, progress: Progress | None = None
) -> ImportJob:
    """Claim a job and run it from its cursor to the end. Idempotent: a finished or cancelled job is
    left alone; JobBusyError while another live process runs it.

    Raises RateLimitedError (job left "waiting" with resume_at) when the client may not wait
    that long; GitHub refusals mark the job failed with the reason.
    """
    return job_run(
        job=job,
        run=lambda claimed: _github_import_claimed(claimed, client=client, progress=progress),
        statuses=RESUMABLE,
        error="",
        resume_at=None,
        started_at=Coalesce(F("started_at"), Now()),
    )


def _github_import_claimed(job: ImportJob, *, client: GitHubClient | None, progress: Progress | None) -> ImportJob:
    client = client or github_client_build()
    runner = _JobRunner(job=job, client=client, progress=progress)
    try:
        runner.run()
    except RateLimitedError as exc:
        job.status = ImportJob.Status.WAITING
        job.resume_at = datetime.fromtimestamp(exc.reset_at, tz=timezone.get_current_timezone())
        job.attempts = 0  # parked in good order: the next claim is not a recovery from a dead worker
        runner.save(fields=["status", "resume_at", "attempts"])
        raise
    except (GitHubError, DomainError) as exc:
        _fail(job, runner, exc.message)
        raise
    except Exception as exc:
        _fail(job, runner, f"Interrupted ({type(exc).__name__}: {exc}); start the job again to resume.")
        raise
    return job


def _fail(job: ImportJob, runner: _JobRunner, message: str) -> None:
    job.status, job.error, job.finished_at = ImportJob.Status.FAILED, message, timezone.now()
    runner.save(fields=["status", "error", "finished_at"])


def _in_pages(queryset, *, key: str, after, size: int = 500):
    """The rows after `after` by `key`, read a page at a time with each query read to its end: no cursor
    stays open while the caller writes. On SQLite an open read holds a snapshot, and once the job's
    heartbeat has committed, that snapshot can no longer write ("database is locked")."""
    while page := list(queryset.filter(**{f"{key}__gt": after})[:size]):
        yield from page
        after = getattr(page[-1], key)


class _JobRunner:
    def __init__(self, *, job: ImportJob, client: GitHubClient, progress: Progress | None):
        self.job = job
        self.client = client
        self.progress = progress
        self.params = job.parameters
        self.cursor = job.cursor or {"phase": "issues"}
        self.counts = defaultdict(int, job.counts or {})
        self.repository = Repository.objects.get(pk=self.params["repository_id"])
        self._client_seen = {"requests_made": 0, "not_modified": 0, "retries": 0, "rate_limit_waits": 0}

    # -- bookkeeping ------------------------------------------------------------------------

    @property
    def ref(self) -> RepositoryRef:
        return RepositoryRef(owner=self.repository.owner, name=self.repository.name, host=self.repository.host)

    def _absorb_client_counts(self) -> None:
        for attr, count_name in (
            ("requests_made", "requests"),
            ("not_modified", "not_modified"),
            ("retries", "retries"),
            ("rate_limit_waits", "rate_limit_waits"),
        ):
            now = getattr(self.client, attr)
            self.counts[count_name] += now - self._client_seen[attr]
            self._client_seen[attr] = now
        if self.client.rate_remaining is not None:
            self.counts["rate_limit_remaining"] = self.client.rate_remaining

    def save(self, fields: list[str] | None = None) -> None:
        self._absorb_client_counts()
        self.job.cursor, self.job.counts = dict(self.cursor), dict(self.counts)
        self.job.save(
            update_fields=[*(fields or []), "cursor", "counts", "progress_done", "progress_total", "updated_at"]
        )

    def committed(self) -> None:
        """After each committed page: let the caller show progress (or, in tests, crash)."""
        if self.progress:
            self.progress(self.job, self.client)

    # -- phases -----------------------------------------------------------------------------

    def run(self) -> None:
        if self.cursor.get("phase") == "issues":
            self._listing("issues", self._issues_key(), f"/repos/{self.ref.full_name}/issues", self._issues_page)
            self.cursor.update(phase="comments", url=None, page=0)
        if self.cursor.get("phase") == "comments":
            self._listing("comments", "comments", f"/repos/{self.ref.full_name}/issues/comments", self._comments_page)
            self.cursor.update(phase="timelines" if self.params.get("fix_links") else "done", url=None, page=0)
        if self.cursor.get("phase") == "timelines":
            self._timelines()
            self.cursor["phase"] = "fixes" if self.params.get("fix_details") else "done"
        if self.cursor.get("phase") == "fixes":
            self._fix_details()
            self.cursor["phase"] = "done"
        with transaction.atomic():
            self.repository.last_synced_at = timezone.now()
            self.repository.save(update_fields=["last_synced_at", "updated_at"])
            self.job.status, self.job.finished_at = ImportJob.Status.DONE, timezone.now()
            self.save(fields=["status", "finished_at"])

    def _issues_key(self) -> str:
        pulls = "with-pulls" if self.params.get("include_pulls") else "issues-only"
        return f"issues:{self.params.get('state', 'all')}:{pulls}"

    def _since(self, key: str) -> str | None:
        if self.params.get("since"):
            return self.params["since"]
        if self.params.get("full"):
            return None
        return (self.repository.sync_state.get(key) or {}).get("since")

    def _listing(self, phase: str, key: str, path: str, handle: Callable[[Page], bool]) -> None:
        """Walk one listing from the cursor to its end, committing each page with the cursor."""
        if not self.cursor.get("url"):
            since = self._since(key)
            first_url = self.client.url(
                path,
                state=self.params.get("state", "all") if phase == "issues" else None,
                since=since,
                per_page=PER_PAGE,
                sort="updated",
                direction="asc",
            )
            self.cursor.update(url=first_url, first_url=first_url, page=0, high_water=since, window_since=since)
        while url := self.cursor.get("url"):
            first = self.cursor.get("page", 0) == 0
            stored = self.repository.sync_state.get(key) or {}
            conditional = first and stored.get("url") == url
            page = self.client.get_page(
                url,
                etag=stored.get("etag", "") if conditional else "",
                last_modified=stored.get("last_modified", "") if conditional else "",
            )
            if page.redirected:
                self._follow_rename(page)
            with transaction.atomic():
                stop = page.not_modified or handle(page)
                self.counts["pages"] += 1
                self.cursor["page"] = self.cursor.get("page", 0) + 1
                self.cursor["url"] = None if stop else page.next_url
                if not self.cursor["url"]:
                    self._remember_listing(key, page, complete=first and not stop and not page.next_url)
                self.save()
            self.committed()

    def _remember_listing(self, key: str, page: Page, *, complete: bool) -> None:
        """Where the next sync starts (high-water mark) and, for a one-page answer, its ETag."""
        state = dict(self.repository.sync_state)
        previous = state.get(key) or {}
        entry = {"since": self.cursor.get("high_water") or previous.get("since")}
        if page.not_modified:
            entry.update({k: previous.get(k, "") for k in ("url", "etag", "last_modified")})
        elif complete and entry["since"] == self.cursor.get("window_since"):
            # Only a complete one-page answer to the very query the next sync will send is safe to
            # reuse: a 304 on it then means nothing changed at all.
            entry.update(url=self.cursor.get("first_url"), etag=page.etag, last_modified=page.last_modified)
        state[key] = entry
        self.repository.sync_state = state
        self.repository.save(update_fields=["sync_state", "updated_at"])

    def _advance_high_water(self, updated_at: str | None) -> None:
        if updated_at and (not self.cursor.get("high_water") or updated_at > self.cursor["high_water"]):
            self.cursor["high_water"] = updated_at

    def _issues_page(self, page: Page) -> bool:
        """Store one page of issues, each recorded as one of this job's (what its batch holds, with the page's
        commit); True when --limit is reached."""
        from annotator.services.issues import imported_issues_record, issues_upsert

        limit = self.params.get("limit")
        records, reached = [], False
        for item in page.data or []:
            if limit and self.cursor.get("taken", 0) >= limit:
                reached = True
                break
            self._advance_high_water(item.get("updated_at"))
            if is_pull_request(item) and not self.params.get("include_pulls"):
                self.counts["pulls_skipped"] += 1
                continue
            records.append(issue_record_from_json(item, repository=self.ref))
            self.cursor["taken"] = self.cursor.get("taken", 0) + 1
            self.cursor["window_until"] = item.get("updated_at")
        if records:
            result = issues_upsert(records=records)
            imported_issues_record(job=self.job, issue_ids=result.issue_ids)
            for name in ("created", "updated", "unchanged"):
                self.counts[name] += getattr(result, name, 0) or 0
            self.counts["pulls"] += sum(1 for record in records if record.kind == "pull")
        self.job.progress_done += len(records)
        if self.cursor.get("page", 0) == 0 and "last" in page.links:
            last = int(dict(p.split("=", 1) for p in urlsplit(page.links["last"]).query.split("&")).get("page", 1))
            self.job.progress_total = min(last * PER_PAGE, limit) if limit else last * PER_PAGE
        reached = reached or bool(limit and self.cursor.get("taken", 0) >= limit)
        return reached

    def _comments_page(self, page: Page) -> bool:
        by_number: dict[int, list] = defaultdict(list)
        for item in page.data or []:
            self._advance_high_water(item.get("updated_at"))
            number, record = comment_record_from_json(item)
            if number is None:
                self.counts["comments_skipped"] += 1
                continue
            by_number[number].append(record)
        result = comments_upsert(repository=self.repository, comments_by_issue_number=by_number)
        self.counts["comments_created"] += result.created
        self.counts["comments_updated"] += result.updated
        self.counts["comments_unchanged"] += result.unchanged
        self.counts["comments_skipped"] += result.skipped
        return False

    def _timelines(self) -> None:
        """One timeline per closed issue stored or changed since fixes were last read (a request each).

        The window is kept by this database's clock (Issue.updated_at) under its own key, not by a
        listing's high-water mark: an issue changed by any earlier sync, with or without fix links,
        is read once, and an unchanged one is not read again.
        """
        issues = Issue.objects.filter(repository=self.repository, kind=Issue.Kind.ISSUE, state=Issue.State.CLOSED)
        self.cursor.setdefault("timelines_started", timezone.now().isoformat())
        explicit_since = parse_datetime(self.params.get("since"))
        if explicit_since:
            issues = issues.filter(updated__gte=explicit_since)
        elif not self.params.get("full") and (
            mark := (self.repository.sync_state.get(TIMELINES_KEY) or {}).get("since")
        ):
            issues = issues.filter(updated_at__gte=datetime.fromisoformat(mark))
        # With --limit the issues listing stopped early: read only up to where it stopped, and keep the
        # mark, so what lies beyond is read by a later sync.
        until = parse_datetime(self.cursor.get("window_until")) if self.params.get("limit") else None
        if until:
            issues = issues.filter(updated__lte=until)
        after = self.cursor.get("timeline_after", 0)
        html_base = f"https://{self.repository.host}"
        for issue in _in_pages(issues.order_by("number"), key="number", after=after):
            events, url = (
                [],
                self.client.url(f"/repos/{self.ref.full_name}/issues/{issue.number}/timeline", per_page=PER_PAGE),
            )
            while url:
                page = self.client.get_page(url)
                events.extend(page.data or [])
                url = page.next_url
            with transaction.atomic():
                links = links_from_timeline(events, repository=self.ref, html_base=html_base)
                self.counts["links"] += links_upsert(issue=issue, links=links)
                self.counts["timelines"] += 1
                self.cursor["timeline_after"] = issue.number
                self.save()
            self.committed()
        if not explicit_since and not until:
            self._remember_read(TIMELINES_KEY, since=self.cursor["timelines_started"])

    def _remember_read(self, key: str, *, since: str) -> None:
        """Where the next sync's per-issue pass starts: what changed after this pass began."""
        state = dict(self.repository.sync_state)
        state[key] = {"since": since}
        self.repository.sync_state = state
        self.repository.save(update_fields=["sync_state", "updated_at"])

    def _fix_details(self) -> None:
        """Details of every linked pull request and commit that has none yet or whose issue changed since
        fix details were last read (by this database's clock, like the timelines).

        A link already read is asked for with its ETag: unchanged, GitHub answers 304 and no file
        pages are read. A change GitHub no longer serves, or one with values that cannot be stored,
        is counted and passed over. Fixes are committed with the cursor in batches (a commit per fix
        would cost more than its requests); an interrupted job reads at most one batch again.
        """
        links = IssueLink.objects.filter(
            issue__repository=self.repository, kind__in=(IssueLink.Kind.PULL, IssueLink.Kind.COMMIT)
        )
        self.cursor.setdefault("fixes_started", timezone.now().isoformat())
        explicit_since = parse_datetime(self.params.get("since"))
        mark = (self.repository.sync_state.get(FIX_DETAILS_KEY) or {}).get("since")
        if explicit_since:
            links = links.filter(Q(fix_detail__isnull=True) | Q(issue__updated__gte=explicit_since))
        elif mark and not self.params.get("full"):
            links = links.filter(Q(fix_detail__isnull=True) | Q(issue__updated_at__gte=datetime.fromisoformat(mark)))
        until = parse_datetime(self.cursor.get("window_until")) if self.params.get("limit") else None
        if until:
            links = links.filter(issue__updated__lte=until)
        batch: list[tuple[IssueLink, FixDetail | None, FetchedChange | None]] = []
        held = 0
        for link in _in_pages(links.order_by("pk"), key="pk", after=self.cursor.get("fix_after", 0)):
            batch.append(self._fix_fetch(link))
            held += len(batch[-1][2].files) if batch[-1][2] else 0
            if len(batch) >= FIX_BATCH or held >= FIX_BATCH_FILES:
                self._fix_store(batch)
                batch, held = [], 0
        if batch:
            self._fix_store(batch)
        if not explicit_since and not until:
            self._remember_read(FIX_DETAILS_KEY, since=self.cursor["fixes_started"])

    def _fix_fetch(self, link: IssueLink) -> tuple[IssueLink, FixDetail | None, FetchedChange | None]:
        ref = change_ref_from_url(link.url, host=self.repository.host)
        detail = FixDetail.objects.filter(link=link).first()
        requests_before = self.client.requests_made
        fetched = None
        if ref is None:
            self.counts["fixes_skipped"] += 1  # not a pull request or commit on this host
        else:
            try:
                fetched = fix_change_fetch(client=self.client, ref=ref, etag=detail.etag if detail else "")
            except GitHubHTTPError as exc:
                if exc.status not in _CHANGE_GONE:
                    raise
                self.counts["fixes_not_found"] += 1
            except FixDataError:
                self.counts["fixes_refused"] += 1
        self.counts["fix_requests"] += self.client.requests_made - requests_before
        return link, detail, fetched

    def _fix_store(self, batch: list[tuple[IssueLink, FixDetail | None, FetchedChange | None]]) -> None:
        with transaction.atomic():
            for link, detail, fetched in batch:
                if fetched is not None and fetched.not_modified and detail is not None:
                    fix_detail_unchanged(detail=detail)
                    self.counts["fixes_unchanged"] += 1
                elif fetched is not None:
                    try:
                        stored = fix_detail_store(link=link, fetched=fetched)  # its own savepoint
                    except FixDataError:
                        self.counts["fixes_refused"] += 1
                    else:
                        self.counts["fixes_fetched"] += 1
                        self.counts["fix_files"] += len(fetched.files)
                        self.counts["fixes_files_incomplete"] += 0 if stored.files_complete else 1
            self.cursor["fix_after"] = batch[-1][0].pk
            self.save()
        self.committed()

    def _follow_rename(self, page: Page) -> None:
        path = urlsplit(page.final_url).path
        if match := _REPOS_PATH.match(path):
            owner, name = match["owner"], match["name"]
        elif match := _REPOSITORIES_PATH.match(path):
            owner, name = self.client.get_json(f"/repositories/{match['id']}")["full_name"].split("/", 1)
        else:
            return
        self.repository = repository_rename(repository=self.repository, owner=owner, name=name)
        self.params["repository"] = self.repository.full_name
        self.job.parameters = self.params
        self.job.save(update_fields=["parameters", "updated_at"])
