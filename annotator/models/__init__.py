"""Models of the annotator app, one module per part of the domain."""

from .imports import ImportJob
from .issues import Comment, Issue, IssueLink, Repository, RepositoryAlias

__all__ = ["Comment", "ImportJob", "Issue", "IssueLink", "Repository", "RepositoryAlias"]
