"""Models of the annotator app, one module per part of the domain."""

from .imports import ImportJob
from .issues import Comment, Issue, IssueLink, Repository, RepositoryAlias
from .studies import (
    Annotation,
    AnnotationHistory,
    AnnotationValue,
    Assignment,
    Resolution,
    ResolutionHistory,
    Study,
    StudyIssue,
    StudyMember,
    StudyRound,
)

__all__ = [
    "Annotation",
    "AnnotationHistory",
    "AnnotationValue",
    "Assignment",
    "Comment",
    "ImportJob",
    "Issue",
    "IssueLink",
    "Repository",
    "RepositoryAlias",
    "Resolution",
    "ResolutionHistory",
    "Study",
    "StudyIssue",
    "StudyMember",
    "StudyRound",
]
