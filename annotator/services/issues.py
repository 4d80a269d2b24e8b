"""Writing issues: the bulk upsert every importer ends in.

Natural key: the canonical URL, and (repository, kind, number) where known. Each batch is one
transaction with one SELECT for the rows that exist; unchanged records (same content hash) cost
no write at all, new ones are bulk-inserted and changed ones bulk-updated.
"""

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from functools import reduce
from operator import or_
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone

from annotator.importers.files import issue_url_repository
from annotator.importers.records import CommentRecord, IssueRecord, LinkRecord, RepositoryRef
from annotator.models import Comment, ImportedIssue, ImportJob, Issue, IssueLink, Repository, RepositoryAlias

ISSUE_FIELDS = [
    "repository",
    "number",
    "kind",
    "url",
    "title",
    "body",
    "state",
    "state_reason",
    "author",
    "labels",
    "created",
    "updated",
    "closed",
    "comment_count",
    "raw",
    "content_hash",
]
COMMENT_FIELDS = ["author", "body", "created", "updated", "url", "raw", "content_hash"]
LINK_FIELDS = ["kind", "relation", "number", "sha", "title", "merged"]
# bulk_update writes one CASE per column; past a few hundred rows PostgreSQL slows down sharply.
UPDATE_CHUNK = 250

RepoKey = tuple[str, str, str]


@dataclass(slots=True)
class UpsertResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    duplicates: int = 0  # records repeated within one batch: the last one wins
    comments_created: int = 0
    comments_updated: int = 0
    comments_deleted: int = 0
    links_created: int = 0
    links_updated: int = 0
    repositories_created: int = 0
    # Every issue the records name (created, updated or unchanged): what an import batch holds.
    issue_ids: list[int] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.created + self.updated + self.unchanged + self.duplicates

    def as_counts(self) -> dict[str, int]:
        counts = asdict(self)
        del counts["issue_ids"]
        return counts


@transaction.atomic
def issues_mark_demo(*, urls: Iterable[str]) -> int:
    """Mark the issues at these URLs as demo issues (kept out of every sample frame); how many are marked."""
    return Issue.objects.filter(url__in=list(urls), demo=False).update(demo=True)


def imported_issues_record(*, job: ImportJob, issue_ids: Sequence[int]) -> None:
    """Record issues a job wrote or found unchanged as part of its batch (in the caller's transaction, one
    batch of an import at a time). Recording one again, e.g. when a resumed job reads a page twice, is no-op."""
    if issue_ids:
        ImportedIssue.objects.bulk_create(
            [ImportedIssue(job=job, issue_id=pk) for pk in issue_ids], ignore_conflicts=True
        )


def issues_upsert(
    *,
    records: Sequence[IssueRecord],
    batch_size: int = 1000,
    progress: Callable[[int], None] | None = None,
) -> UpsertResult:
    """Create, update or leave alone each record's issue (with its comments and links).

    One transaction per batch, so a long import holds no lock for long and can be re-run safely:
    what an earlier run wrote is found again and reported as unchanged. `progress` is called after
    each committed batch with the number of records it held.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    result = UpsertResult()
    repositories: dict[RepoKey, Repository] = {}
    for start in range(0, len(records), batch_size):
        batch = records[start : start + batch_size]
        with transaction.atomic():
            _upsert_batch(batch, repositories, result)
        if progress is not None:
            progress(len(batch))
    return result


def repositories_resolve(
    *, refs: Iterable[RepositoryRef], known: dict[RepoKey, Repository], create: bool = True
) -> int:
    """Fill `known` with the repository of each ref (current name through aliases); create unknown ones.

    Returns how many repositories were created (none without `create`: unknown refs are then left out).
    One query for names, one for aliases, whatever the count.
    """
    missing = {_repo_key(ref): ref for ref in refs if _repo_key(ref) not in known}
    if not missing:
        return 0
    wanted = reduce(or_, (Q(lhost=h, lowner=o, lname=n) for h, o, n in missing))
    annotated = {"lhost": Lower("host"), "lowner": Lower("owner"), "lname": Lower("name")}
    for repo in Repository.objects.annotate(**annotated).filter(wanted):
        known[(repo.lhost, repo.lowner, repo.lname)] = repo
    left = [key for key in missing if key not in known]
    if left:
        wanted = reduce(or_, (Q(lhost=h, lowner=o, lname=n) for h, o, n in left))
        for alias in RepositoryAlias.objects.annotate(**annotated).filter(wanted).select_related("repository"):
            known[(alias.lhost, alias.lowner, alias.lname)] = alias.repository
    created = 0
    for key in left:
        if key in known or not create:
            continue
        ref = missing[key]
        repo, was_created = Repository.objects.get_or_create(
            host__iexact=ref.host,
            owner__iexact=ref.owner,
            name__iexact=ref.name,
            defaults={"host": ref.host, "owner": ref.owner, "name": ref.name, "display_name": ref.name},
        )
        known[key] = repo
        created += was_created
    return created


def issues_conflicts(
    *, records: Sequence[IssueRecord], known: dict[RepoKey, Repository] | None = None
) -> dict[int, tuple[str, str]]:
    """Records an upsert must not write, by index: (field, message). Reads only.

    A record given a repository its URL does not name (import_issues --repo), and a record whose URL is
    stored as an issue of another repository: writing either would silently move an issue between
    repositories.
    """
    known = {} if known is None else known
    refs = {r.repository for r in records if r.repository is not None}
    refs |= {ref for r in records if (ref := issue_url_repository(r.url)) is not None}
    repositories_resolve(refs=refs, known=known, create=False)
    conflicts: dict[int, tuple[str, str]] = {}
    urls: dict[str, list[int]] = {}
    for index, record in enumerate(records):
        given = known.get(_repo_key(record.repository)) if record.repository is not None else None
        named = issue_url_repository(record.url)
        if named is not None and record.repository is not None and _repo_key(named) != _repo_key(record.repository):
            named_repo = known.get(_repo_key(named))
            if named_repo is None or given is None or named_repo.pk != given.pk:
                conflicts[index] = (
                    "url",
                    f"{record.url} is an issue of {named.full_name} (its URL says so), not of "
                    f"{record.repository.full_name}; import it without --repo",
                )
                continue
        for url in {record.url, canonical_url(record.url, record.repository, given)}:
            urls.setdefault(url, []).append(index)
    stored = Issue.objects.filter(url__in=list(urls)).select_related("repository")
    for issue in stored.only("id", "url", "repository__host", "repository__owner", "repository__name"):
        for index in urls[issue.url]:
            record = records[index]
            if index in conflicts or issue.repository is None:
                continue
            given = known.get(_repo_key(record.repository)) if record.repository is not None else None
            if given is None or given.pk != issue.repository_id:
                stored_in = issue.repository.full_name
                if record.repository is None:
                    message = f"{record.url} is stored as an issue of {stored_in}; import it with --repo {stored_in}"
                else:
                    message = (
                        f"{record.url} is stored as an issue of {stored_in}; importing it into "
                        f"{record.repository.full_name} would move it there, so it is refused"
                    )
                conflicts[index] = ("url", message)
    return conflicts


# --------------------------------------------------------------------------- one batch


@dataclass(slots=True)
class _Row:
    record: IssueRecord
    url: str
    repository: Repository | None
    content_hash: str
    comment_hashes: list[str] | None


def _upsert_batch(batch: Sequence[IssueRecord], repositories: dict[RepoKey, Repository], result: UpsertResult) -> None:
    result.repositories_created += repositories_resolve(
        refs={r.repository for r in batch if r.repository is not None}, known=repositories
    )
    rows: dict[str, _Row] = {}
    for record in batch:
        repo = repositories[_repo_key(record.repository)] if record.repository is not None else None
        url = canonical_url(record.url, record.repository, repo)
        comment_hashes = [comment_hash(c) for c in record.comments] if record.comments is not None else None
        if url in rows:
            result.duplicates += 1
        rows[url] = _Row(record, url, repo, issue_hash(record, url, repo, comment_hashes), comment_hashes)
    # Two URLs for one issue number in one batch: the last wins, as it would across batches.
    by_key: dict[tuple, str] = {}
    for url, row in list(rows.items()):
        if row.repository is None or row.record.number is None:
            continue
        key = (row.repository.pk, row.record.kind, row.record.number)
        if key in by_key:
            del rows[by_key[key]]
            result.duplicates += 1
        by_key[key] = url

    existing = _existing_issues(rows.values())
    now = timezone.now()
    to_create: list[Issue] = []
    new_rows: list[_Row] = []
    to_update: list[Issue] = []
    changed_rows: list[_Row] = []
    for row in rows.values():
        rec = row.record
        key = (row.repository.pk, rec.kind, rec.number) if row.repository and rec.number is not None else None
        found = existing.get(row.url) or (existing.get(key) if key else None)
        if found is None:
            to_create.append(_issue_from_row(row))
            new_rows.append(row)
        elif found[1] == row.content_hash:
            result.unchanged += 1
            result.issue_ids.append(found[0])
        else:
            issue = _issue_from_row(row)
            issue.pk = found[0]
            issue.updated_at = now  # bulk_update does not run auto_now
            to_update.append(issue)
            changed_rows.append(row)

    if to_create:
        Issue.objects.bulk_create(to_create, batch_size=len(to_create))
        if any(issue.pk is None for issue in to_create):  # backends that cannot return ids
            ids = dict(Issue.objects.filter(url__in=[i.url for i in to_create]).values_list("url", "id"))
            for issue in to_create:
                issue.pk = ids[issue.url]
        result.created += len(to_create)
    if to_update:
        Issue.objects.bulk_update(to_update, [*ISSUE_FIELDS, "updated_at"], batch_size=UPDATE_CHUNK)
        result.updated += len(to_update)

    result.issue_ids.extend(issue.pk for issue in [*to_create, *to_update])
    created = list(zip(to_create, new_rows, strict=True))
    updated = list(zip(to_update, changed_rows, strict=True))
    _write_comments(created, updated, result)
    _write_links(created, updated, result)


def _existing_issues(rows: Iterable[_Row]) -> dict[Any, tuple[int, str]]:
    """(id, content_hash) of the stored issues of a batch, by URL and by (repository id, kind, number)."""
    rows = list(rows)
    numbers: dict[tuple[int, str], list[int]] = {}
    for row in rows:
        if row.repository is not None and row.record.number is not None:
            numbers.setdefault((row.repository.pk, row.record.kind), []).append(row.record.number)
    wanted = Q(url__in=[row.url for row in rows])
    for (repo_id, kind), nums in numbers.items():
        wanted |= Q(repository_id=repo_id, kind=kind, number__in=nums)
    found: dict[Any, tuple[int, str]] = {}
    values = Issue.objects.filter(wanted).values_list("id", "url", "repository_id", "kind", "number", "content_hash")
    for pk, url, repo_id, kind, number, content_hash in values:
        found[url] = (pk, content_hash)
        if repo_id is not None and number is not None:
            found[(repo_id, kind, number)] = (pk, content_hash)
    return found


def _issue_from_row(row: _Row) -> Issue:
    rec = row.record
    return Issue(
        repository=row.repository,
        number=rec.number,
        kind=rec.kind,
        url=row.url,
        title=rec.title,
        body=rec.body,
        state=rec.state,
        state_reason=rec.state_reason,
        author=rec.author,
        labels=rec.labels,
        created=rec.created,
        updated=rec.updated,
        closed=rec.closed,
        comment_count=rec.comment_count,
        raw=rec.raw,
        content_hash=row.content_hash,
    )


def _write_comments(new: list[tuple[Issue, _Row]], changed: list[tuple[Issue, _Row]], result: UpsertResult) -> None:
    to_create = [
        _comment(issue.pk, c, h)
        for issue, row in new
        if row.record.comments
        for c, h in zip(row.record.comments, row.comment_hashes, strict=True)
    ]
    changed = [(issue, row) for issue, row in changed if row.record.comments is not None]
    to_update: list[Comment] = []
    stale: list[int] = []
    if changed:
        stored: dict[tuple[int, str], tuple[int, str]] = {
            (issue_id, key): (pk, content_hash)
            for pk, issue_id, key, content_hash in Comment.objects.filter(
                issue_id__in=[issue.pk for issue, _ in changed]
            ).values_list("id", "issue_id", "key", "content_hash")
        }
        for issue, row in changed:
            keep = set()
            for comment, content_hash in zip(row.record.comments, row.comment_hashes, strict=True):
                keep.add(comment.key)
                found = stored.get((issue.pk, comment.key))
                if found is None:
                    to_create.append(_comment(issue.pk, comment, content_hash))
                elif found[1] != content_hash:
                    obj = _comment(issue.pk, comment, content_hash)
                    obj.pk = found[0]
                    to_update.append(obj)
            # The record's list is the full set: a comment deleted at the source goes here too.
            stale.extend(pk for (issue_id, key), (pk, _) in stored.items() if issue_id == issue.pk and key not in keep)
    if to_create:
        Comment.objects.bulk_create(to_create, batch_size=max(len(to_create), 1))
        result.comments_created += len(to_create)
    if to_update:
        Comment.objects.bulk_update(to_update, COMMENT_FIELDS, batch_size=UPDATE_CHUNK)
        result.comments_updated += len(to_update)
    if stale:
        Comment.objects.filter(pk__in=stale).delete()
        result.comments_deleted += len(stale)


def _comment(issue_id: int, comment: CommentRecord, content_hash: str) -> Comment:
    return Comment(
        issue_id=issue_id,
        key=comment.key,
        author=comment.author,
        body=comment.body,
        created=comment.created,
        updated=comment.updated,
        url=comment.url,
        raw=comment.raw,
        content_hash=content_hash,
    )


def _write_links(new: list[tuple[Issue, _Row]], changed: list[tuple[Issue, _Row]], result: UpsertResult) -> None:
    """Links are added and updated, never removed here: some were added by hand."""
    to_create = [_link(issue.pk, link) for issue, row in new if row.record.links for link in row.record.links]
    changed = [(issue, row) for issue, row in changed if row.record.links]
    to_update: list[IssueLink] = []
    if changed:
        stored = {
            (link.issue_id, link.url): link
            for link in IssueLink.objects.filter(issue_id__in=[issue.pk for issue, _ in changed])
        }
        for issue, row in changed:
            for record in row.record.links:
                link = stored.get((issue.pk, record.url))
                if link is None:
                    to_create.append(_link(issue.pk, record))
                elif any(getattr(link, f) != getattr(record, f) for f in LINK_FIELDS):
                    for f in LINK_FIELDS:
                        setattr(link, f, getattr(record, f))
                    to_update.append(link)
    if to_create:
        # A record may list the same link twice; the unique constraint keeps one.
        IssueLink.objects.bulk_create(to_create, ignore_conflicts=True)
        result.links_created += len({(link.issue_id, link.url) for link in to_create})
    if to_update:
        IssueLink.objects.bulk_update(to_update, LINK_FIELDS, batch_size=UPDATE_CHUNK)
        result.links_updated += len(to_update)


def _link(issue_id: int, link: LinkRecord) -> IssueLink:
    return IssueLink(
        issue_id=issue_id,
        kind=link.kind,
        relation=link.relation,
        url=link.url,
        number=link.number,
        sha=link.sha,
        title=link.title,
        merged=link.merged,
    )


# --------------------------------------------------------------------------- keys and hashes


def canonical_url(url: str, ref: RepositoryRef | None, repo: Repository | None) -> str:
    """Rewrite a URL under an old or differently cased repository name to the current one."""
    if ref is None or repo is None:
        return url
    old = f"https://{ref.host}/{ref.owner}/{ref.name}/"
    new = f"https://{repo.host}/{repo.owner}/{repo.name}/"
    if old != new and url[: len(old)].lower() == old.lower():
        return new + url[len(old) :]
    return url


def issue_hash(record: IssueRecord, url: str, repo: Repository | None, comment_hashes: list[str] | None = None) -> str:
    """Hash of everything an import writes for an issue, comments and links included.

    So an unchanged issue needs no look at its comments either.
    """
    links = None
    if record.links is not None:
        links = [[lk.kind, lk.relation, lk.url, lk.number, lk.sha, lk.title, lk.merged] for lk in record.links]
    return _digest(
        [
            url,
            repo.full_name if repo else None,
            record.number,
            record.kind,
            record.title,
            record.body,
            record.state,
            record.state_reason,
            record.author,
            record.labels,
            _iso(record.created),
            _iso(record.updated),
            _iso(record.closed),
            record.comment_count,
            record.raw,
            comment_hashes,
            links,
        ]
    )


def comment_hash(comment: CommentRecord) -> str:
    return _digest(
        [
            comment.key,
            comment.author,
            comment.body,
            _iso(comment.created),
            _iso(comment.updated),
            comment.url,
            comment.raw,
        ]
    )


def _digest(values: list[Any]) -> str:
    text = json.dumps(values, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _iso(value: datetime | None) -> str | None:
    # The same instant written with another offset is the same content.
    return value.astimezone(UTC).isoformat() if value is not None else None


def _repo_key(ref: RepositoryRef) -> RepoKey:
    return (ref.host.lower(), ref.owner.lower(), ref.name.lower())
