"""The issue list and issue page: login, filters, search, keyset pages, fixed query cost, rendering."""

import datetime as dt
import re
from itertools import chain

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from annotator.models import ImportedIssue, ImportJob, Issue
from annotator.selectors.imports import import_job_visible
from annotator.selectors.issues import PAGE_SIZE, Cursor, IssueFilters, issues_filtered
from core.permissions import STUDY_OWNERS_GROUP
from tests.annotator.factories_issues import (
    CommentFactory,
    ComponentRuleFactory,
    FixDetailFactory,
    FixFileFactory,
    IssueFactory,
    IssueLinkFactory,
    RepositoryFactory,
)
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LIST = reverse("annotator:issue_list")


def titles(response) -> list[str]:
    return [issue.title for issue in response.context["page"].issues]


@pytest.fixture
def rater(client_as):
    return client_as("rater_a")


@pytest.fixture
def repos():
    return {
        "ds": RepositoryFactory(owner="deepspeedai", name="DeepSpeed", display_name="DeepSpeed"),
        "mlm": RepositoryFactory(owner="NVIDIA", name="Megatron-LM", display_name="Megatron-LM"),
    }


# ---- access ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["/issues/", "/issues/1/", "/issues/?q=x&after=1.1"])
def test_anonymous_visitors_are_sent_to_login(client, url):
    IssueFactory(pk=1)
    response = client.get(url)
    assert response.status_code == 302
    assert response.url.startswith(reverse("login") + "?next=")


@pytest.mark.parametrize("role", ["owner", "rater_a", "rater_b", "adjudicator", "staff"])
def test_every_signed_in_role_can_read_the_list_and_an_issue(client_as, role):
    issue = IssueFactory()
    client = client_as(role)
    assert client.get(LIST).status_code == 200
    assert client.get(reverse("annotator:issue_detail", args=[issue.pk])).status_code == 200


def test_a_missing_issue_is_404(rater):
    assert rater.get(reverse("annotator:issue_detail", args=[999_999])).status_code == 404


def test_reading_pages_changes_nothing(rater):
    issue = IssueFactory(comment_count=1)
    CommentFactory(issue=issue)
    before = list(Issue.objects.values())
    rater.get(LIST)
    rater.get(reverse("annotator:issue_detail", args=[issue.pk]))
    rater.post(LIST, {"q": "x"})  # no write path exists; a POST must not create one
    assert list(Issue.objects.values()) == before


# ---- the list ---------------------------------------------------------------------------------------


def test_a_row_shows_repository_number_title_state_labels_date_and_comments(rater, repos):
    IssueFactory(
        repository=repos["ds"],
        number=4711,
        title="ZeRO-3 hangs with NVMe offload",
        state=Issue.State.CLOSED,
        labels=["bug", "training"],
        created=dt.datetime(2024, 3, 5, 12, tzinfo=dt.UTC),
        comment_count=7,
    )
    html = rater.get(LIST).content.decode()
    row = re.search(r"<tr data-href=.*?</tr>", html, re.S).group(0)
    for expected in ("DeepSpeed", "4711", "ZeRO-3 hangs with NVMe offload", "state-closed", "Closed", ">bug<",
                     ">training<", "2024-03-05", ">7<"):  # fmt: skip
        assert expected in row, f"{expected!r} missing from the row"


def test_the_list_is_newest_first(rater):
    now = timezone.now()
    IssueFactory(title="old", created=now - dt.timedelta(days=3))
    IssueFactory(title="new", created=now)
    IssueFactory(title="middle", created=now - dt.timedelta(days=1))
    assert titles(rater.get(LIST)) == ["new", "middle", "old"]


def test_filter_by_repository(rater, repos):
    IssueFactory(repository=repos["ds"], title="ds issue")
    IssueFactory(repository=repos["mlm"], title="mlm issue")
    assert titles(rater.get(LIST, {"repository": repos["mlm"].pk})) == ["mlm issue"]


def test_filter_by_state_and_kind(rater):
    IssueFactory(title="open issue", state=Issue.State.OPEN)
    IssueFactory(title="closed issue", state=Issue.State.CLOSED)
    IssueFactory(title="closed pull", state=Issue.State.CLOSED, kind=Issue.Kind.PULL)
    assert titles(rater.get(LIST, {"state": "closed", "kind": "issue"})) == ["closed issue"]
    assert sorted(titles(rater.get(LIST, {"state": "closed"}))) == ["closed issue", "closed pull"]


def test_filter_by_label_matches_whole_labels_only(rater):
    IssueFactory(title="training bug", labels=["bug", "training"])
    IssueFactory(title="inference bug", labels=["bug", "inference"])
    IssueFactory(title="not a bug", labels=["debugging", "question"])
    IssueFactory(title="module label", labels=["module: moe"])
    assert titles(rater.get(LIST, {"label": "training"})) == ["training bug"]
    assert sorted(titles(rater.get(LIST, {"label": "bug"}))) == ["inference bug", "training bug"]
    assert titles(rater.get(LIST, {"label": "module: moe"})) == ["module label"]


def test_search_looks_in_title_and_body_and_needs_every_word(rater):
    IssueFactory(title="NCCL timeout in all_reduce", body="with 16 nodes")
    IssueFactory(title="Loss is NaN", body="after enabling fp16 with ZeRO-2, NCCL is fine")
    IssueFactory(title="Docs typo", body="nothing here")
    assert sorted(titles(rater.get(LIST, {"q": "nccl"}))) == ["Loss is NaN", "NCCL timeout in all_reduce"]
    assert titles(rater.get(LIST, {"q": "nccl fp16"})) == ["Loss is NaN"]
    assert titles(rater.get(LIST, {"q": '"16 nodes"'})) == ["NCCL timeout in all_reduce"]


def test_search_shows_where_each_issue_matched(rater):
    long_text = "x " * 200 + "the NCCL watchdog fired after 1800 seconds " + "y " * 200
    IssueFactory(title="Hang in all_reduce", body=long_text)
    IssueFactory(title="NCCL error on init", body="unrelated body")
    body = rater.get(LIST, {"q": "nccl"}).content.decode()
    # The title's match is marked, and the body's snippet starts near its match, cut on both sides.
    assert "<mark>NCCL</mark> error on init" in body
    snippets = re.findall(r'<p class="snippet" data-testid="snippet">(.*?)</p>', body)
    assert len(snippets) == 1  # "NCCL error on init" matched in its title only: no body snippet
    assert snippets[0].startswith("…") and snippets[0].endswith("…")
    assert "the <mark>NCCL</mark> watchdog fired" in snippets[0]


def test_snippets_mark_every_term_and_escape_the_text(rater):
    IssueFactory(title="Loss is NaN", body="<script>x</script> with fp16 and ZeRO-2 the loss is NaN")
    body = rater.get(LIST, {"q": "fp16 zero-2"}).content.decode()
    snippet = re.search(r'<p class="snippet" data-testid="snippet">(.*?)</p>', body).group(1)
    assert "&lt;script&gt;" in snippet and "<script>x" not in body
    assert "<mark>fp16</mark>" in snippet and "<mark>ZeRO-2</mark>" in snippet


def test_a_number_search_shows_no_snippet(rater):
    IssueFactory(number=77, title="seventy-seven", body="anything")
    body = rater.get(LIST, {"q": "#77"}).content.decode()
    assert 'data-testid="snippet"' not in body and "<mark>" not in body


def test_search_by_issue_number(rater):
    IssueFactory(number=1234, title="the one")
    IssueFactory(number=99, title="another")
    assert titles(rater.get(LIST, {"q": "#1234"})) == ["the one"]


def test_plain_digits_are_searched_as_text(rater):
    IssueFactory(number=77, title="the number")
    IssueFactory(number=78, title="mentions 77 GB")
    assert titles(rater.get(LIST, {"q": "77"})) == ["mentions 77 GB"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="trigram indexes exist on PostgreSQL only")
def test_postgres_has_trigram_indexes_for_search():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'annotator_issue'")
        names = {row[0] for row in cursor.fetchall()}
    assert {"issue_title_trgm_idx", "issue_body_trgm_idx"} <= names


# ---- the issues of one import ------------------------------------------------------------------------


@pytest.fixture
def teams(users):
    """Two study owners (two teams) and a file import of each, plus a GitHub sync (shared by every team)."""
    group, _ = Group.objects.get_or_create(name=STUDY_OWNERS_GROUP)
    other = UserFactory(username="other_owner")
    for person in (users["owner"], other):
        person.groups.add(group)
    done = {"status": ImportJob.Status.DONE}
    mine = ImportJob.objects.create(
        kind=ImportJob.Kind.FILE, created_by=users["owner"], parameters={"filename": "batch-7.json"}, **done
    )
    theirs = ImportJob.objects.create(kind=ImportJob.Kind.FILE, created_by=other, **done)
    sync = ImportJob.objects.create(
        kind=ImportJob.Kind.GITHUB, created_by=other, parameters={"repository": "deepspeedai/DeepSpeed"}, **done
    )
    return {"mine": mine, "theirs": theirs, "sync": sync, "other": other}


def imported(job, *titles: str) -> list[Issue]:
    issues = [IssueFactory(title=title) for title in titles]
    ImportedIssue.objects.bulk_create([ImportedIssue(job=job, issue=issue) for issue in issues])
    return issues


def test_the_import_filter_lists_exactly_the_issues_that_import_wrote_or_found_unchanged(teams):
    IssueFactory(title="stored before")
    imported(teams["mine"], "first", "second")
    imported(teams["theirs"], "another team's")
    found = issues_filtered(filters=IssueFilters(import_job=teams["mine"].pk))
    assert sorted(issue.title for issue in found) == ["first", "second"]
    assert IssueFilters(import_job=teams["mine"].pk).active


def test_an_import_job_is_visible_by_the_rule_of_the_imports_pages(users, teams):
    owner, other = users["owner"], teams["other"]
    assert import_job_visible(user=owner, pk=teams["mine"].pk) == teams["mine"]
    assert import_job_visible(user=owner, pk=teams["theirs"].pk) is None  # another team's file import
    assert import_job_visible(user=owner, pk=teams["sync"].pk) == teams["sync"]  # a GitHub sync serves all
    assert import_job_visible(user=other, pk=teams["mine"].pk) is None
    assert import_job_visible(user=users["staff"], pk=teams["theirs"].pk) == teams["theirs"]
    assert import_job_visible(user=users["rater_a"], pk=teams["sync"].pk) is None  # raters see no imports
    assert import_job_visible(user=owner, pk=10**15) is None


def test_the_page_for_a_user_lists_an_import_only_to_those_who_may_see_it(users, teams):
    from annotator.selectors.issues import issue_page_for_user

    imported(teams["mine"], "first", "second")
    imported(teams["theirs"], "another team's")
    mine = IssueFilters(import_job=teams["mine"].pk)
    page, job = issue_page_for_user(user=users["owner"], filters=mine)
    assert job == teams["mine"] and sorted(issue.title for issue in page.issues) == ["first", "second"]
    for user, filters in [
        (users["owner"], IssueFilters(import_job=teams["theirs"].pk)),  # another team's
        (users["rater_a"], mine),  # raters see no imports
        (users["owner"], IssueFilters(import_job=10**15)),  # no such job
    ]:
        page, job = issue_page_for_user(user=user, filters=filters)
        assert (page.issues, page.total, job) == ([], 0, None)
    page, job = issue_page_for_user(user=users["rater_a"], filters=IssueFilters())
    assert job is None and page.total == 3


def test_the_list_filtered_by_an_import_shows_that_filter_and_a_way_to_clear_it(client_as, teams):
    imported(teams["mine"], "first", "second")
    IssueFactory(title="stored before")
    response = client_as("owner").get(LIST, {"import": teams["mine"].pk, "state": "open"})
    assert sorted(titles(response)) == ["first", "second"]
    html = response.content.decode()
    job = teams["mine"].pk
    assert f"Issues of import #{job} (batch-7.json)" in html
    assert 'href="/issues/?state=open">clear</a>' in html
    assert f'<input type="hidden" name="import" value="{job}">' in html  # refining the search keeps the import
    assert f"import={job}" in response.context["filter_query"]


def test_a_github_import_is_shown_by_its_repository(client_as, teams):
    imported(teams["sync"], "synced")
    response = client_as("owner").get(LIST, {"import": teams["sync"].pk})
    assert titles(response) == ["synced"]
    assert f"Issues of import #{teams['sync'].pk} (deepspeedai/DeepSpeed)" in response.content.decode()


@pytest.mark.parametrize("role", ["owner", "rater_a"])
def test_an_import_the_user_may_not_see_lists_nothing_and_says_so(client_as, teams, role):
    imported(teams["theirs"], "another team's")
    for job in (teams["theirs"].pk, 999_999):
        response = client_as(role).get(LIST, {"import": job})
        assert response.status_code == 200
        assert titles(response) == []
        html = response.content.decode()
        assert f"There is no import #{job} you can see" in html
        assert "another team&#x27;s" not in html and "another team's" not in html
    if role == "rater_a":  # the GitHub sync every owner sees is no rater's either
        imported(teams["sync"], "synced")
        assert titles(client_as(role).get(LIST, {"import": teams["sync"].pk})) == []


@pytest.mark.parametrize("value", ["-1", "0", "99999999999999999999", "abc", "1e3", "", " 7", "²", "%D9%A1"])
def test_hostile_import_values_are_ignored_like_other_filters(rater, value):
    IssueFactory(title="still listed")
    for name in ("import", "repository"):
        response = rater.get(f"{LIST}?{name}={value}")
        assert response.status_code == 200
        assert titles(response) == ["still listed"]
        assert (response.context["filters"].import_job, response.context["filters"].repository) == (None, None)


def test_invalid_filter_values_are_ignored_not_errors(rater):
    IssueFactory(title="still listed")
    response = rater.get(LIST, {"repository": "abc", "state": "weird", "kind": "<x>", "after": "garbage"})
    assert response.status_code == 200
    assert titles(response) == ["still listed"]


def test_an_empty_table_and_an_empty_result_say_so(rater):
    assert "No issues yet" in rater.get(LIST).content.decode()
    IssueFactory(title="something")
    assert "No issues match these filters" in rater.get(LIST, {"q": "zzz-nothing"}).content.decode()


def test_issue_titles_are_escaped_in_the_list(rater):
    IssueFactory(title="<script>alert(1)</script> in title")
    html = rater.get(LIST).content.decode()
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; in title" in html


# ---- pagination -----------------------------------------------------------------------------------


def walk(client, params: dict, direction: str = "after") -> list[list[str]]:
    """Follow the page links from the first page to the end; returns the titles per page."""
    pages, response = [], client.get(LIST, params)
    while True:
        pages.append(titles(response))
        page = response.context["page"]
        cursor = page.next_cursor if direction == "after" else page.prev_cursor
        if not cursor:
            return pages
        response = client.get(LIST, {**params, direction: cursor})


def test_pages_cover_every_issue_once_in_order(rater):
    now = timezone.now()
    for i in range(PAGE_SIZE * 2 + 7):
        IssueFactory(title=f"i{i:03d}", created=now - dt.timedelta(minutes=i))
    pages = walk(rater, {})
    assert [len(p) for p in pages] == [PAGE_SIZE, PAGE_SIZE, 7]
    assert list(chain.from_iterable(pages)) == [f"i{i:03d}" for i in range(PAGE_SIZE * 2 + 7)]


def test_issues_with_equal_or_missing_dates_are_neither_lost_nor_repeated(rater):
    same = timezone.now()
    for i in range(30):
        IssueFactory(title=f"same{i}", created=same)
    for i in range(25):
        IssueFactory(title=f"undated{i}", created=None)
    for i in range(20):
        IssueFactory(title=f"dated{i}", created=same - dt.timedelta(hours=i + 1))
    forward = list(chain.from_iterable(walk(rater, {})))
    assert len(forward) == 75 and len(set(forward)) == 75
    assert forward == [issue.title for issue in Issue.objects.order_by("-created", "-id")]


def test_newer_links_walk_back_to_the_first_page(rater):
    for _ in range(PAGE_SIZE * 2 + 3):
        IssueFactory()
    IssueFactory(created=None)
    first = titles(rater.get(LIST))
    forward = walk(rater, {})
    # From the last page, follow "Newer" until there is none: the same pages in reverse.
    last_params = {}
    response = rater.get(LIST)
    while response.context["page"].next_cursor:
        last_params = {"after": response.context["page"].next_cursor}
        response = rater.get(LIST, last_params)
    backward = walk(rater, last_params, direction="before")
    assert backward == list(reversed(forward))
    assert backward[-1] == first


def test_filters_are_kept_in_the_page_links(rater, repos):
    for _ in range(PAGE_SIZE + 1):
        IssueFactory(repository=repos["ds"], state=Issue.State.CLOSED, body="needle")
    IssueFactory(repository=repos["mlm"], state=Issue.State.CLOSED, body="needle")
    html = rater.get(LIST, {"q": "needle", "repository": repos["ds"].pk, "state": "closed"}).content.decode()
    next_link = re.search(r'<a class="button" rel="next" href="([^"]+)"', html).group(1).replace("&amp;", "&")
    assert "q=needle" in next_link and f"repository={repos['ds'].pk}" in next_link and "state=closed" in next_link
    second = rater.get(LIST + next_link)
    assert len(titles(second)) == 1
    assert {i.repository_id for i in second.context["page"].issues} == {repos["ds"].pk}


def test_the_total_is_counted_only_up_to_a_cap(rater, monkeypatch):
    from annotator.selectors import issues as selectors

    monkeypatch.setattr(selectors, "COUNT_CAP", 5)
    for _ in range(8):
        IssueFactory()
    response = rater.get(LIST)
    assert response.context["page"].total_capped is True
    assert "More than 5 issues" in response.content.decode()


def test_a_cursor_round_trips_including_microseconds_and_missing_dates():
    moment = dt.datetime(2023, 7, 1, 8, 30, 15, 123456, tzinfo=dt.UTC)
    assert Cursor.decode(Cursor(created=moment, id=42).encode()) == Cursor(created=moment, id=42)
    assert Cursor.decode(Cursor(created=None, id=7).encode()) == Cursor(created=None, id=7)
    assert Cursor.decode("1.2.3") is None and Cursor.decode("") is None and Cursor.decode("x.1") is None


def list_queries(client, params: dict) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        response = client.get(LIST, params)
    assert response.status_code == 200
    assert response.context["page"].issues, "the page under test should not be empty"
    return len(ctx.captured_queries)


def fill(repos, count: int) -> None:
    for i in range(count):
        IssueFactory(repository=repos["ds" if i % 2 else "mlm"], labels=["bug", "training"], body="a bug report")


@pytest.mark.parametrize("params", [{}, {"q": "bug report", "state": "open", "label": "training", "kind": "issue"}])
def test_the_list_costs_the_same_number_of_queries_for_10_and_200_issues(rater, repos, params):
    fill(repos, 10)
    small = list_queries(rater, params)
    fill(repos, 190)
    assert list_queries(rater, params) == small


def test_a_later_page_costs_the_same_as_the_first(rater, repos):
    fill(repos, 200)
    first = list_queries(rater, {})
    cursor = Cursor.of(Issue.objects.order_by("-created", "-id")[120]).encode()
    assert list_queries(rater, {"after": cursor}) == first
    assert list_queries(rater, {"before": cursor}) == first


def test_a_search_with_snippets_needs_no_more_queries(rater, repos, django_assert_max_num_queries):
    for i in range(60):
        IssueFactory(repository=repos["ds"], title=f"NCCL {i}", body="a NCCL body " * 50)
    with django_assert_max_num_queries(5):
        response = rater.get(LIST, {"q": "nccl"})
    assert response.content.decode().count('data-testid="snippet"') == PAGE_SIZE


def test_the_list_needs_at_most_five_queries(rater, repos, django_assert_max_num_queries):
    fill(repos, 200)
    # session, user, repositories for the filter, the capped count, the page itself
    with django_assert_max_num_queries(5):
        assert rater.get(LIST, {"q": "bug", "label": "bug"}).status_code == 200


# ---- the issue page -------------------------------------------------------------------------------


def test_the_issue_page_shows_metadata_and_a_safe_link_to_github(rater, repos):
    issue = IssueFactory(
        repository=repos["ds"],
        number=2958,
        title="[BUG] ds_report fails",
        author="alice",
        labels=["bug", "training"],
        comment_count=2,
        state=Issue.State.CLOSED,
        created=dt.datetime(2023, 3, 9, 10, 0, tzinfo=dt.UTC),
        closed=dt.datetime(2023, 4, 1, 10, 0, tzinfo=dt.UTC),
    )
    html = rater.get(reverse("annotator:issue_detail", args=[issue.pk])).content.decode()
    for expected in ("DeepSpeed", "deepspeedai/DeepSpeed", "#2958", "[BUG] ds_report fails", "alice", ">bug<",
                     ">training<", "2023-03-09", "2023-04-01", "Closed"):  # fmt: skip
        assert expected in html, f"{expected!r} missing"
    assert f'<a href="{issue.url}" rel="noopener noreferrer"' in html


def test_body_and_comments_are_rendered_and_sanitised(rater):
    issue = IssueFactory(
        body="**Describe the bug**\nA clear and concise description of what the bug is.\n\n"
        "<img src=x onerror=alert(1)>\n\n```python\nimport torch\n```",
        comment_count=1,
    )
    CommentFactory(issue=issue, author="bob", body="[click](javascript:alert(1)) <script>alert(2)</script> **thanks**")
    html = rater.get(reverse("annotator:issue_detail", args=[issue.pk])).content.decode()
    assert "<strong>Describe the bug</strong>" in html
    assert '<span class="tpl-placeholder">A clear and concise description of what the bug is.</span>' in html
    assert '<span class="kn">import</span>' in html
    assert "<strong>thanks</strong>" in html and "bob" in html
    assert "onerror" not in html and "alert(2)" not in html and 'href="javascript' not in html


def test_comments_are_shown_in_order(rater):
    issue = IssueFactory()
    CommentFactory(issue=issue, body="second", created=issue.created + dt.timedelta(hours=2))
    CommentFactory(issue=issue, body="first", created=issue.created + dt.timedelta(hours=1))
    html = rater.get(reverse("annotator:issue_detail", args=[issue.pk])).content.decode()
    assert html.index("<p>first</p>") < html.index("<p>second</p>")


def test_fix_links_are_listed_when_present(rater):
    issue = IssueFactory()
    IssueLinkFactory(issue=issue, number=4321, title="Fix ZeRO-3 hang", merged=True)
    html = rater.get(reverse("annotator:issue_detail", args=[issue.pk])).content.decode()
    assert 'id="fix-links"' in html and "PR #4321" in html and "Fix ZeRO-3 hang" in html and "Closed by" in html
    other = IssueFactory()
    assert 'id="fix-links"' not in rater.get(reverse("annotator:issue_detail", args=[other.pk])).content.decode()


def test_the_environment_is_surfaced_beside_the_body(rater):
    issue = IssueFactory(body="### 🐛 Describe the bug\n\nOOM\n\n### Environment\n\ntorch 2.1.0, CUDA 12.1\n")
    html = rater.get(reverse("annotator:issue_detail", args=[issue.pk])).content.decode()
    panel = html[html.index('id="environment"') :]
    assert "torch 2.1.0, CUDA 12.1" in panel


def test_the_issue_page_query_count_does_not_grow_with_comments(rater, django_assert_max_num_queries):
    issue = IssueFactory()
    CommentFactory.create_batch(3, issue=issue)
    FixFileFactory(detail=FixDetailFactory(link=IssueLinkFactory(issue=issue)))
    ComponentRuleFactory(repository=issue.repository)
    url = reverse("annotator:issue_detail", args=[issue.pk])
    # 6 for the page, 4 for its fix effort (the issue's discussion, its links, their files, the component rules)
    with django_assert_max_num_queries(10):
        rater.get(url)
    CommentFactory.create_batch(40, issue=issue)
    FixFileFactory.create_batch(40, detail=issue.links.get().fix_detail)
    with django_assert_max_num_queries(10):
        assert rater.get(url).status_code == 200
