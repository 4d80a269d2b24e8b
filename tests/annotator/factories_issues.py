"""Factories for repositories, issues, comments, fix links and their fix details; any test may import them."""

import datetime as dt

import factory
from django.utils import timezone

from annotator.models import Comment, ComponentRule, FixDetail, FixFile, Issue, IssueLink, Repository


class RepositoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Repository
        django_get_or_create = ("host", "owner", "name")

    host = "github.com"
    owner = factory.Sequence(lambda n: f"org{n}")
    name = factory.Sequence(lambda n: f"repo{n}")
    display_name = factory.LazyAttribute(lambda r: r.name)


class IssueFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Issue

    repository = factory.SubFactory(RepositoryFactory)
    number = factory.Sequence(lambda n: n + 1)
    kind = Issue.Kind.ISSUE
    url = factory.LazyAttribute(
        lambda i: (
            f"https://{i.repository.host}/{i.repository.owner}/{i.repository.name}/issues/{i.number}"
            if i.repository
            else f"https://example.org/posts/{i.number}"
        )
    )
    title = factory.Sequence(lambda n: f"Issue title {n}")
    body = "**Describe the bug**\nSomething broke."
    state = Issue.State.OPEN
    author = "reporter"
    labels = factory.LazyFunction(lambda: ["bug"])
    # Distinct, decreasing-in-sequence times so list order is predictable.
    created = factory.Sequence(lambda n: timezone.now() - dt.timedelta(days=1) + dt.timedelta(minutes=n))
    updated = factory.LazyAttribute(lambda i: i.created)
    comment_count = 0


class CommentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Comment

    issue = factory.SubFactory(IssueFactory)
    key = factory.Sequence(lambda n: str(1000 + n))
    author = "commenter"
    body = "Thanks for the report."
    created = factory.LazyAttribute(lambda c: (c.issue.created or timezone.now()) + dt.timedelta(hours=1))


class IssueLinkFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = IssueLink

    issue = factory.SubFactory(IssueFactory)
    kind = IssueLink.Kind.PULL
    relation = IssueLink.Relation.CLOSED_BY
    number = factory.Sequence(lambda n: 5000 + n)
    url = factory.LazyAttribute(
        lambda link: f"https://github.com/{link.issue.repository.owner}/{link.issue.repository.name}/pull/{link.number}"
    )
    title = "Fix the bug"
    merged = True


class FixDetailFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = FixDetail

    link = factory.SubFactory(IssueLinkFactory)
    merged = True
    opened_at = factory.LazyAttribute(lambda d: (d.link.issue.created or timezone.now()) + dt.timedelta(hours=2))
    merged_at = factory.LazyAttribute(lambda d: d.opened_at + dt.timedelta(hours=22))
    additions = 8
    deletions = 2
    changed_files = 1
    commits = 1
    comments = 0
    review_comments = 0
    files_complete = True
    fetched_at = factory.LazyFunction(timezone.now)


class FixFileFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = FixFile

    detail = factory.SubFactory(FixDetailFactory)
    path = factory.Sequence(lambda n: f"src/module_{n}.py")
    additions = 8
    deletions = 2


class ComponentRuleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ComponentRule

    repository = factory.SubFactory(RepositoryFactory)
    pattern = factory.Sequence(lambda n: f"src/part{n}/**")
    component = factory.Sequence(lambda n: f"Part {n}")
    position = factory.Sequence(lambda n: n)
