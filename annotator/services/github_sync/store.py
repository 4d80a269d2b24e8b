"""Persisting what the GitHub listings deliver apart from issues: comments by issue number, fix links."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.db import transaction

from annotator.importers.records import CommentRecord, LinkRecord
from annotator.models import Comment, Issue, IssueLink, Repository, RepositoryAlias
from annotator.services.issues import comment_hash
from core.errors import ConflictError

AUTOMATIC_RELATIONS = (
    IssueLink.Relation.CLOSED_BY,
    IssueLink.Relation.CROSS_REFERENCED,
    IssueLink.Relation.REFERENCED,
)
_COMMENT_FIELDS = ["author", "body", "created", "updated", "url", "raw", "content_hash"]
_LINK_FIELDS = ["kind", "relation", "number", "sha", "title", "merged"]


@dataclass
class CommentUpsertResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0  # their issue is not stored (a skipped pull request, outside --limit or --state)


@transaction.atomic
def comments_upsert(
    *,
    repository: Repository,
    comments_by_issue_number: Mapping[int, Sequence[CommentRecord]],
    batch_size: int = 1000,
) -> CommentUpsertResult:
    """Attach comments to issues already stored, by number; update in place by the host's comment id."""
    result = CommentUpsertResult()
    issue_ids = dict(
        Issue.objects.filter(repository=repository, number__in=list(comments_by_issue_number)).values_list(
            "number", "id"
        )
    )
    wanted: dict[tuple[int, str], CommentRecord] = {}
    for number, records in comments_by_issue_number.items():
        issue_id = issue_ids.get(number)
        if issue_id is None:
            result.skipped += len(records)
            continue
        for record in records:
            wanted[(issue_id, record.key)] = record
    if not wanted:
        return result
    existing = {
        (c.issue_id, c.key): c
        for c in Comment.objects.filter(
            issue_id__in={issue_id for issue_id, _ in wanted}, key__in={key for _, key in wanted}
        ).only("id", "issue_id", "key", "content_hash")
    }
    to_create, to_update = [], []
    for (issue_id, key), record in wanted.items():
        content_hash = comment_hash(record)  # the same hash a file import writes
        values = {
            "author": record.author[:200],
            "body": record.body,
            "created": record.created,
            "updated": record.updated,
            "url": record.url,
            "raw": record.raw,
            "content_hash": content_hash,
        }
        comment = existing.get((issue_id, key))
        if comment is None:
            to_create.append(Comment(issue_id=issue_id, key=key, **values))
        elif comment.content_hash != content_hash:
            for name, value in values.items():
                setattr(comment, name, value)
            to_update.append(comment)
        else:
            result.unchanged += 1
    Comment.objects.bulk_create(to_create, batch_size=batch_size)
    Comment.objects.bulk_update(to_update, _COMMENT_FIELDS, batch_size=batch_size)
    result.created, result.updated = len(to_create), len(to_update)
    return result


@transaction.atomic
def links_upsert(*, issue: Issue, links: Sequence[LinkRecord]) -> int:
    """Replace the links found on the host for one issue; links added by hand stay. Returns links written."""
    current = {link.url: link for link in IssueLink.objects.filter(issue=issue)}
    wanted = {link.url: link for link in links}
    stale = [link.pk for url, link in current.items() if link.relation in AUTOMATIC_RELATIONS and url not in wanted]
    IssueLink.objects.filter(pk__in=stale).delete()
    to_create, to_update = [], []
    for url, record in wanted.items():
        values = {
            "kind": record.kind,
            "relation": record.relation,
            "number": record.number,
            "sha": record.sha,
            "title": record.title[:1000],
            "merged": record.merged,
        }
        link = current.get(url)
        if link is None:
            to_create.append(IssueLink(issue=issue, url=url, **values))
        elif link.relation != IssueLink.Relation.MANUAL and any(getattr(link, k) != v for k, v in values.items()):
            for name, value in values.items():
                setattr(link, name, value)
            to_update.append(link)
    IssueLink.objects.bulk_create(to_create)
    IssueLink.objects.bulk_update(to_update, _LINK_FIELDS)
    return len(to_create) + len(to_update)


@transaction.atomic
def repository_rename(*, repository: Repository, owner: str, name: str) -> Repository:
    """The host renamed or transferred the repository: keep the old name as an alias, take the new one."""
    if repository.owner.lower() == owner.lower() and repository.name.lower() == name.lower():
        return repository
    clash = (
        Repository.objects.filter(host__iexact=repository.host, owner__iexact=owner, name__iexact=name)
        .exclude(pk=repository.pk)
        .first()
    )
    if clash is not None:
        raise ConflictError(
            f"{repository.full_name} was renamed to {owner}/{name} on {repository.host}, but that name is already "
            f"stored as another repository (#{clash.pk}); merge the two in the admin, then import again."
        )
    if not RepositoryAlias.objects.filter(
        host__iexact=repository.host, owner__iexact=repository.owner, name__iexact=repository.name
    ).exists():
        RepositoryAlias.objects.create(
            repository=repository, host=repository.host, owner=repository.owner, name=repository.name
        )
    RepositoryAlias.objects.filter(host__iexact=repository.host, owner__iexact=owner, name__iexact=name).delete()
    repository.owner, repository.name = owner, name
    repository.save(update_fields=["owner", "name", "updated_at"])
    return repository
