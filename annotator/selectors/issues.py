"""Reads of issues for the pages: filtered lists with keyset pagination, and one issue in full.

The list never counts or offsets over the whole table: pages are found by seeking to a
cursor on the (-created, -id) index, and the total shown is counted up to a cap.
"""

import json
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.db import connections
from django.db.models import IntegerField, Prefetch, Q, QuerySet, Value
from django.db.models.functions import Greatest, StrIndex, Substr, Upper

from annotator.models import Comment, ImportedIssue, ImportJob, Issue, IssueLink, Repository
from annotator.selectors.imports import import_job_visible

PAGE_SIZE = 50
COUNT_CAP = 1000
MAX_SEARCH_TERMS = 8
# Characters of body text shown around the first match of a search, and before it.
SNIPPET_CHARS = 240
SNIPPET_LEAD = 80
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TERM_RE = re.compile(r'"([^"]+)"|(\S+)')
_NUMBER_RE = re.compile(r"^#(\d{1,9})$")
# What a list row shows; body and raw JSON can be megabytes and stay in the database.
_LIST_FIELDS = (
    "id", "number", "kind", "title", "state", "labels", "created", "comment_count", "url",
    "repository__id", "repository__host", "repository__owner", "repository__name", "repository__display_name",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class IssueFilters:
    q: str = ""
    repository: int | None = None
    state: str = ""
    kind: str = ""
    label: str = ""
    # Created on or after / on or before these days (UTC).
    created_from: date | None = None
    created_to: date | None = None
    # The issues one import job wrote or found unchanged (its ImportedIssue rows). Who may filter by which job
    # is the caller's check (annotator.selectors.imports.import_job_visible): this filter only reads the rows.
    import_job: int | None = None

    @property
    def active(self) -> bool:
        return any(
            (
                self.q,
                self.repository,
                self.state,
                self.kind,
                self.label,
                self.created_from,
                self.created_to,
                self.import_job,
            )
        )

    def to_record(self) -> dict:
        """The search as JSON-ready data (dates as ISO days), as a study's frame records it."""
        return {
            "q": self.q,
            "repository": self.repository,
            "state": self.state,
            "kind": self.kind,
            "label": self.label,
            "created_from": self.created_from.isoformat() if self.created_from else None,
            "created_to": self.created_to.isoformat() if self.created_to else None,
            "import_job": self.import_job,
        }

    @classmethod
    def from_record(cls, record: dict) -> "IssueFilters":
        def day(value) -> date | None:
            return date.fromisoformat(value) if value else None

        return cls(
            q=record.get("q") or "",
            repository=record.get("repository"),
            state=record.get("state") or "",
            kind=record.get("kind") or "",
            label=record.get("label") or "",
            created_from=day(record.get("created_from")),
            created_to=day(record.get("created_to")),
            import_job=record.get("import_job"),  # absent from searches recorded before imports were a filter
        )


# A created time in microseconds from the epoch (16 digits: every time from 1654 to 2286 decodes, none
# overflows a datetime) or n for none, then the id.
CURSOR_PATTERN = r"(n|-?[0-9]{1,16})\.([0-9]{1,18})"


@dataclass(frozen=True, slots=True)
class Cursor:
    """A position in the (-created, -id) order: the created time (None sorts per database) and id."""

    created: datetime | None
    id: int

    def encode(self) -> str:
        if self.created is None:
            return f"n.{self.id}"
        delta = self.created - _EPOCH
        micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        return f"{micros}.{self.id}"

    @classmethod
    def decode(cls, value: str | None) -> "Cursor | None":
        """The cursor in a page link, or None when absent or tampered with (then: the first page)."""
        if not value or not (match := re.fullmatch(CURSOR_PATTERN, value)):
            return None
        created = None if match.group(1) == "n" else _EPOCH + timedelta(microseconds=int(match.group(1)))
        return cls(created=created, id=int(match.group(2)))

    @classmethod
    def of(cls, issue: Issue) -> "Cursor":
        return cls(created=issue.created, id=issue.pk)


@dataclass(slots=True)
class IssuePage:
    issues: list[Issue]
    next_cursor: str | None
    prev_cursor: str | None
    total: int
    total_capped: bool  # True: there are more than `total` issues, counting stopped there

    @classmethod
    def empty(cls) -> "IssuePage":
        """No issues, without asking the database (e.g. filtered by an import the user may not see)."""
        return cls(issues=[], next_cursor=None, prev_cursor=None, total=0, total_capped=False)


def search_terms(q: str) -> list[str]:
    """The words and "quoted phrases" of a search, as the list filters on them (at most MAX_SEARCH_TERMS)."""
    return [phrase or word for phrase, word in _TERM_RE.findall(q or "")][:MAX_SEARCH_TERMS]


def text_terms(q: str) -> list[str]:
    """The search's terms that match text (not "#123" issue numbers): what the page highlights."""
    return [term for term in search_terms(q) if not _NUMBER_RE.match(term)]


def _search(queryset: QuerySet[Issue], q: str) -> QuerySet[Issue]:
    """Every term (or "quoted phrase") must appear in the title or body; "#123" means issue number 123.

    On PostgreSQL the trigram indexes on UPPER(title) and UPPER(body) serve these icontains
    lookups; a "#123" term stays a plain number match so that no OR defeats those indexes.
    """
    for term in search_terms(q):
        if match := _NUMBER_RE.match(term):
            queryset = queryset.filter(number=int(match.group(1)))
        else:
            queryset = queryset.filter(Q(title__icontains=term) | Q(body__icontains=term))
    return queryset


def _has_label(queryset: QuerySet[Issue], label: str) -> QuerySet[Issue]:
    if connections[queryset.db].vendor == "postgresql":
        return queryset.filter(labels__contains=[label])  # jsonb @>: exact element match
    # SQLite keeps JSON as text written by json.dumps; the quoted label matches one whole element.
    return queryset.filter(labels__icontains=json.dumps(label))


def issues_filtered(*, filters: IssueFilters) -> QuerySet[Issue]:
    """Issues matching the filters, newest first, with what a list row needs and nothing more.

    Every signed-in user may read every imported issue; blindness concerns labels, not issues.
    """
    queryset = Issue.objects.select_related("repository").only(*_LIST_FIELDS).order_by("-created", "-id")
    if filters.repository:
        queryset = queryset.filter(repository_id=filters.repository)
    if filters.import_job:
        queryset = queryset.filter(pk__in=ImportedIssue.objects.filter(job_id=filters.import_job).values("issue"))
    if filters.state:
        queryset = queryset.filter(state=filters.state)
    if filters.kind:
        queryset = queryset.filter(kind=filters.kind)
    if filters.label:
        queryset = _has_label(queryset, filters.label)
    # Day bounds as times, not created__date: a range on the column keeps the (-created, -id) index usable.
    if filters.created_from:
        queryset = queryset.filter(created__gte=datetime.combine(filters.created_from, time.min, tzinfo=UTC))
    if filters.created_to:
        day_after = datetime.combine(filters.created_to, time.min, tzinfo=UTC) + timedelta(days=1)
        queryset = queryset.filter(created__lt=day_after)
    if filters.q.strip():
        queryset = _search(queryset, filters.q)
    return queryset


def _with_snippet(queryset: QuerySet[Issue], q: str) -> QuerySet[Issue]:
    """Each row with `snippet`: SNIPPET_CHARS of its body around the first match of the search's first text
    term (empty when that term is only in the title). Computed by the database for the rows of one page only,
    so the list still never reads whole bodies."""
    terms = text_terms(q)
    if not terms:
        return queryset
    at = StrIndex(Upper("body"), Value(terms[0].upper()))
    start = Greatest(at - SNIPPET_LEAD, Value(1), output_field=IntegerField())
    return queryset.annotate(snippet_at=at, snippet=Substr("body", start, SNIPPET_CHARS))


def beyond_cursor(cursor: Cursor, *, older: bool, nulls_first: bool) -> Q:
    """Rows strictly after the cursor in (-created, -id) order (older=True), or strictly before it.

    `created <= c` (or `>=`) is kept as a separate term so the database can seek the index to
    the cursor instead of scanning from the top. Where NULL dates sort depends on the database.
    """
    c, i = cursor.created, cursor.id
    if c is not None:
        if older:
            q = Q(created__lte=c) & (Q(created__lt=c) | Q(id__lt=i))
            return q if nulls_first else q | Q(created__isnull=True)
        q = Q(created__gte=c) & (Q(created__gt=c) | Q(id__gt=i))
        return q | Q(created__isnull=True) if nulls_first else q
    if older:
        q = Q(created__isnull=True, id__lt=i)
        return q | Q(created__isnull=False) if nulls_first else q
    q = Q(created__isnull=True, id__gt=i)
    return q if nulls_first else q | Q(created__isnull=False)


def issue_page_for_user(
    *, user, filters: IssueFilters, after: str | None = None, before: str | None = None
) -> tuple[IssuePage, ImportJob | None]:
    """The page the user's search lists, and the import it is filtered by when the user may see that import.

    An import filter the user may not use (no such job, another team's, or a user who sees no imports) lists
    nothing, the same answer for all three, so an id tells nothing about other teams' jobs.
    """
    if not filters.import_job:
        return issue_page(filters=filters, after=after, before=before), None
    job = import_job_visible(user=user, pk=filters.import_job)
    if job is None:
        return IssuePage.empty(), None
    return issue_page(filters=filters, after=after, before=before), job


def issue_page(
    *, filters: IssueFilters, after: str | None = None, before: str | None = None, size: int = PAGE_SIZE
) -> IssuePage:
    """One page of the filtered list: two queries (a capped count and the page) whatever the table size."""
    queryset = _with_snippet(issues_filtered(filters=filters), filters.q)
    # With DESC order, databases that sort NULL as largest (PostgreSQL) put undated issues first.
    nulls_first = connections[queryset.db].features.nulls_order_largest
    after_cursor, before_cursor = Cursor.decode(after), Cursor.decode(before)
    if before_cursor is not None:
        rows = list(
            queryset.filter(beyond_cursor(before_cursor, older=False, nulls_first=nulls_first)).reverse()[: size + 1]
        )
        has_more_newer = len(rows) > size
        issues = list(reversed(rows[:size]))
        has_newer, has_older = has_more_newer, True
    else:
        if after_cursor is not None:
            queryset = queryset.filter(beyond_cursor(after_cursor, older=True, nulls_first=nulls_first))
        rows = list(queryset[: size + 1])
        issues = rows[:size]
        has_newer, has_older = after_cursor is not None, len(rows) > size
    if not issues:
        has_newer = has_older = False
    total = issues_filtered(filters=filters).order_by()[: COUNT_CAP + 1].count()
    return IssuePage(
        issues=issues,
        next_cursor=Cursor.of(issues[-1]).encode() if has_older else None,
        prev_cursor=Cursor.of(issues[0]).encode() if has_newer else None,
        total=min(total, COUNT_CAP),
        total_capped=total > COUNT_CAP,
    )


def repositories_for_filter() -> QuerySet[Repository]:
    return Repository.objects.only("id", "host", "owner", "name", "display_name").order_by("display_name", "owner")


def issue_get(*, pk: int) -> Issue | None:
    """One issue with its repository, comments (in order) and fix links; None when there is none."""
    return (
        Issue.objects.select_related("repository")
        .defer("raw")
        .prefetch_related(
            Prefetch("comments", queryset=Comment.objects.defer("raw").order_by("created", "id")),
            Prefetch("links", queryset=IssueLink.objects.order_by("kind", "number", "sha")),
        )
        .filter(pk=pk)
        .first()
    )
