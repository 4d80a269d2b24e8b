"""Models of the annotator app, one module per part of the domain."""

from .agreement import StudyLabelsVersion as StudyLabelsVersion
from .disagreements import Disagreement as Disagreement
from .evolution import ProposalDecision, StudyVersionMove
from .exports import ExportJob as ExportJob
from .fixes import ComponentRule, FixDetail, FixFile
from .frames import StudyFrame
from .imports import ImportedIssue, ImportJob
from .issues import Comment, Issue, IssueLink, Repository, RepositoryAlias
from .phases import PhaseChange
from .releases import Release, ReleaseFile, ReleaseVisibilityChange
from .snapshots import FirstSubmission, FirstSubmissionValue
from .studies import (
    Annotation,
    AnnotationHistory,
    AnnotationValue,
    Assignment,
    Resolution,
    ResolutionHistory,
    ResolutionValue,
    Study,
    StudyIssue,
    StudyMember,
    StudyRound,
)
from .studies import RaterProgress as RaterProgress

__all__ = [
    "Annotation",
    "AnnotationHistory",
    "AnnotationValue",
    "Assignment",
    "Comment",
    "ComponentRule",
    "FirstSubmission",
    "FirstSubmissionValue",
    "FixDetail",
    "FixFile",
    "ImportJob",
    "ImportedIssue",
    "Issue",
    "IssueLink",
    "PhaseChange",
    "ProposalDecision",
    "Release",
    "ReleaseFile",
    "ReleaseVisibilityChange",
    "Repository",
    "RepositoryAlias",
    "Resolution",
    "ResolutionHistory",
    "ResolutionValue",
    "Study",
    "StudyFrame",
    "StudyIssue",
    "StudyMember",
    "StudyRound",
    "StudyVersionMove",
]
