"""How large and how slow an issue's fix was, from its linked changes' fix details.

Which linked changes are an issue's fix, in this order:
1. the links a researcher added by hand, if there are any (their judgement overrides the timeline);
2. else the merged pull requests linked to the issue: a pull request is the unit of a fix, and the
   commit that closed the issue is usually its merge, so it is not counted again;
3. else the commits that closed the issue.
Referenced commits and unmerged pull requests are mentions, not fixes.

The measures add up over the fixing changes that have fix details; time to fix runs from the issue's
opening to the last fixing change's merge (or commit), when the issue was wholly fixed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from django.db.models import Count, Exists, F, OuterRef, Q

from annotator.fixes.components import ComponentMatcher
from annotator.models import Comment, ComponentRule, FixFile, Issue, IssueLink, Repository

CHUNK = 2000  # issues per round of queries: memory stays bounded whatever the study's size
FIX_RELATIONS_BY_HAND = (IssueLink.Relation.MANUAL,)


@dataclass(frozen=True, slots=True)
class IssueFix:
    """One issue's fix effort; the size fields are None when no fixing change has fix details."""

    issue_id: int
    repository_id: int | None
    has_fix: bool  # a fixing change is linked (with or without details)
    fixes: int  # fixing changes with details
    additions: int | None
    deletions: int | None
    lines_changed: int | None
    files: int | None
    # False when GitHub listed only part of some fixing change's files (it lists at most 3,000 of a change): then
    # `files` is GitHub's own total where it gives one (a pull request) and at least the listed count otherwise (a
    # commit), and the components and unmapped files are those of the listed files. None without fix details.
    files_complete: bool | None
    components: tuple[str, ...]
    unmapped_files: int | None
    hours_to_fix: float | None
    hours_to_close: float | None
    comments: int
    participants: int

    @property
    def measured(self) -> bool:
        return self.fixes > 0


def component_matchers(repository_ids: Iterable[int]) -> dict[int, ComponentMatcher]:
    """Each repository's compiled rules (a repository without rules maps nothing)."""
    rules: dict[int, list[tuple[str, str]]] = defaultdict(list)
    wanted = {pk for pk in repository_ids if pk is not None}
    for repository_id, pattern, component in (
        ComponentRule.objects.filter(repository_id__in=wanted)
        .order_by("repository_id", "position", "id")
        .values_list("repository_id", "pattern", "component")
    ):
        rules[repository_id].append((pattern, component))
    return {pk: ComponentMatcher(rules.get(pk, [])) for pk in wanted}


def fixing_links(links: list[dict]) -> list[dict]:
    """The links that are the fix, by the rule in this module's docstring."""
    by_hand = [link for link in links if link["relation"] in FIX_RELATIONS_BY_HAND]
    if by_hand:
        return by_hand
    merged_pulls = [
        link
        for link in links
        if link["kind"] == IssueLink.Kind.PULL
        and (link["detail_merged"] if link["detail_merged"] is not None else link["merged"])
    ]
    if merged_pulls:
        return merged_pulls
    return [
        link
        for link in links
        if link["kind"] == IssueLink.Kind.COMMIT and link["relation"] == IssueLink.Relation.CLOSED_BY
    ]


def _hours(start, end) -> float | None:
    if start is None or end is None:
        return None
    return round((end - start).total_seconds() / 3600, 2)


def _chunks(ids: list[int]) -> Iterator[list[int]]:
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]


def issue_fixes(issue_ids: Iterable[int]) -> dict[int, IssueFix]:
    """The fix effort of each issue, keyed by issue id (three queries per chunk of issues, plus the rules)."""
    ids = sorted(set(issue_ids))
    result: dict[int, IssueFix] = {}
    matchers: dict[int, ComponentMatcher] = {}
    for chunk in _chunks(ids):
        issues = list(
            Issue.objects.filter(pk__in=chunk)
            .order_by()
            .annotate(
                commenters=Count("comments__author", distinct=True, filter=~Q(comments__author="")),
                author_commented=Exists(
                    Comment.objects.filter(issue=OuterRef("pk"), author=OuterRef("author")).exclude(author="")
                ),
            )
            .values(
                "pk", "repository_id", "created", "closed", "comment_count", "author", "commenters", "author_commented"
            )
        )
        missing = {issue["repository_id"] for issue in issues} - matchers.keys() - {None}
        matchers.update(component_matchers(missing))
        links: dict[int, list[dict]] = defaultdict(list)
        # order_by(): the default orderings would join the issues (and the details) only to sort.
        for link in (
            IssueLink.objects.filter(issue_id__in=chunk)
            .order_by()
            .values(
                "pk",
                "issue_id",
                "kind",
                "relation",
                "merged",
                detail_id=F("fix_detail__id"),
                detail_merged=F("fix_detail__merged"),
                detail_merged_at=F("fix_detail__merged_at"),
                detail_committed_at=F("fix_detail__committed_at"),
                detail_additions=F("fix_detail__additions"),
                detail_deletions=F("fix_detail__deletions"),
                detail_changed_files=F("fix_detail__changed_files"),
                detail_files_complete=F("fix_detail__files_complete"),
            )
        ):
            links[link["issue_id"]].append(link)
        fixing = {issue_id: fixing_links(found) for issue_id, found in links.items()}
        detail_ids = [link["detail_id"] for found in fixing.values() for link in found if link["detail_id"]]
        paths: dict[int, list[str]] = defaultdict(list)
        for detail_id, path in (
            FixFile.objects.filter(detail_id__in=detail_ids).order_by().values_list("detail_id", "path")
        ):
            paths[detail_id].append(path)
        for issue in issues:
            result[issue["pk"]] = _issue_fix(issue, fixing.get(issue["pk"], []), paths, matchers)
    return result


def _issue_fix(issue: dict, fixing: list[dict], paths: dict[int, list[str]], matchers) -> IssueFix:
    detailed = [link for link in fixing if link["detail_id"]]
    participants = issue["commenters"] + (1 if issue["author"] and not issue["author_commented"] else 0)
    base = {
        "issue_id": issue["pk"],
        "repository_id": issue["repository_id"],
        "has_fix": bool(fixing),
        "fixes": len(detailed),
        "hours_to_close": _hours(issue["created"], issue["closed"]),
        "comments": issue["comment_count"],
        "participants": participants,
    }
    if not detailed:
        return IssueFix(
            **base,
            additions=None,
            deletions=None,
            lines_changed=None,
            files=None,
            files_complete=None,
            components=(),
            unmapped_files=None,
            hours_to_fix=None,
        )
    additions = sum(link["detail_additions"] for link in detailed)
    deletions = sum(link["detail_deletions"] for link in detailed)
    files = sorted({path for link in detailed for path in paths.get(link["detail_id"], [])})
    matcher = matchers.get(issue["repository_id"]) or ComponentMatcher([])
    landed = [link["detail_merged_at"] or link["detail_committed_at"] for link in detailed]
    landed = [moment for moment in landed if moment is not None]
    return IssueFix(
        **base,
        additions=additions,
        deletions=deletions,
        lines_changed=additions + deletions,
        files=_file_count(files, detailed, paths),
        files_complete=all(link["detail_files_complete"] for link in detailed),
        components=matcher.components_of(files),
        unmapped_files=len(matcher.unmapped(files)),
        hours_to_fix=_hours(issue["created"], max(landed)) if landed else None,
    )


def _file_count(files: list[str], detailed: list[dict], paths: dict[int, list[str]]) -> int:
    """The distinct files listed, plus what GitHub counted beyond its listing of each change: a pull request says
    how many files it changed even when it lists 3,000 of them, and a change without file rows (not fetched yet)
    counts by GitHub's figure alone."""
    beyond = sum(max(0, link["detail_changed_files"] - len(paths.get(link["detail_id"], []))) for link in detailed)
    return len(files) + beyond


def repository_unmapped_paths(repository: Repository, *, limit: int = 50) -> list[tuple[str, int]]:
    """The files of this repository's fixes that no component rule covers, the most often changed first."""
    matcher = component_matchers([repository.pk])[repository.pk]
    counts: Counter[str] = Counter(
        dict(
            FixFile.objects.filter(detail__link__issue__repository=repository)
            .values_list("path")
            .annotate(changes=Count("id"))
            .values_list("path", "changes")
        )
    )
    unmapped = [(path, n) for path, n in counts.items() if matcher.component_of(path) is None]
    unmapped.sort(key=lambda item: (-item[1], item[0]))
    return unmapped[:limit]
