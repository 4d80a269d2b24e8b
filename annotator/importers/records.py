"""Plain records that every importer's parsing half produces and the services persist.

Parsing is pure (no Django): files.py, github.py and sheets.py turn their input into these.
"""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class RepositoryRef:
    owner: str
    name: str
    host: str = "github.com"

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


@dataclass(slots=True)
class CommentRecord:
    key: str  # the host's comment id, or "pos:<n>" when the source has none
    body: str = ""
    author: str = ""
    created: datetime | None = None
    updated: datetime | None = None
    url: str = ""
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class LinkRecord:
    kind: str  # "pull" | "commit"
    relation: str  # "closed_by" | "cross_referenced" | "referenced" | "manual"
    url: str
    number: int | None = None
    sha: str = ""
    title: str = ""
    merged: bool | None = None


@dataclass(slots=True)
class IssueRecord:
    url: str
    title: str
    repository: RepositoryRef | None = None
    number: int | None = None
    kind: str = "issue"  # "issue" | "pull" | "post"
    body: str = ""
    state: str = ""
    state_reason: str = ""
    author: str = ""
    labels: list[str] = field(default_factory=list)
    created: datetime | None = None
    updated: datetime | None = None
    closed: datetime | None = None
    comment_count: int = 0
    raw: dict[str, Any] = field(default_factory=dict)
    # None: the source said nothing about comments (keep what is stored); a list: the full set.
    comments: list[CommentRecord] | None = None
    links: list[LinkRecord] | None = None


@dataclass(slots=True)
class RecordProblem:
    """One invalid input record: where it is and what is wrong, for a person to fix."""

    location: str  # e.g. "issues.jsonl line 12" or "issues.csv row 4"
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.location}, field '{self.field}'" if self.field else self.location
        return f"{where}: {self.message}"
