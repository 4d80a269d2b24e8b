"""The REST client alone, against the fake GitHub: headers, 304s, limits, retries, refusals."""

import pytest
import requests

from annotator.importers.github import GitHubClient, GitHubHTTPError, RateLimitedError, TransientGitHubError
from tests.annotator.github.conftest import REPO, seed


@pytest.fixture
def repo(fake_github):
    seed(fake_github, issues=5)


def issues_url(client):
    return client.url(f"/repos/{REPO}/issues", state="all", per_page=2, sort="updated", direction="asc")


def test_pages_follow_the_link_header_to_the_end(fake_github, make_client, repo):
    client = make_client()
    url, numbers = issues_url(client), []
    while url:
        page = client.get_page(url)
        numbers += [item["number"] for item in page.data]
        url = page.next_url

    assert numbers == [1, 2, 3, 4, 5]
    assert client.requests_made == 3
    assert client.rate_remaining == 5000 - 3


def test_without_a_token_no_authorization_is_sent(fake_github, make_client, repo):
    make_client(token="").get_page(issues_url(make_client()))

    assert "authorization" not in fake_github.requests[0].headers


def test_an_etag_brings_a_free_304(fake_github, make_client, repo):
    client = make_client()
    first = client.get_page(issues_url(client))

    again = client.get_page(issues_url(client), etag=first.etag)

    assert again.not_modified and again.data is None
    assert fake_github.requests[1].headers["if-none-match"] == first.etag
    assert client.not_modified == 1
    assert client.rate_remaining == 5000 - 1  # a 304 costs nothing


def test_a_secondary_limit_honours_retry_after(fake_github, make_client, sleeps, repo):
    fake_github.faults[1] = "secondary"

    page = make_client().get_page(issues_url(make_client()))

    assert page.status == 200
    assert sleeps == [1.0]


@pytest.mark.parametrize("fault", ["superscript_retry_after", "superscript_reset"])
def test_a_non_ascii_digit_in_the_rate_headers_is_no_number_and_the_client_waits_a_minute(
    fake_github, make_client, sleeps, repo, fault
):
    fake_github.faults[1] = fault
    client = make_client()

    page = client.get_page(issues_url(client))

    assert page.status == 200
    assert sleeps == [60.0]  # as for a limit without usable headers


def test_a_wait_longer_than_allowed_raises_with_the_reset_time(fake_github, make_client, sleeps, repo):
    fake_github.faults[1] = "rate_limit"
    client = make_client(max_rate_limit_wait=0)

    with pytest.raises(RateLimitedError) as raised:
        client.get_page(issues_url(client))

    assert raised.value.reset_at > client.clock()
    assert sleeps == []


def test_5xx_is_retried_with_growing_jittered_pauses_then_given_up(fake_github, make_client, sleeps, repo):
    for ordinal in range(1, 5):
        fake_github.faults[ordinal] = "503"
    client = make_client(max_retries=3, backoff_base=1.0)

    with pytest.raises(TransientGitHubError, match="503"):
        client.get_page(issues_url(client))

    assert len(fake_github.requests) == 4
    assert [0.5 <= sleeps[0] <= 1, 1 <= sleeps[1] <= 2, 2 <= sleeps[2] <= 4] == [True, True, True]


def test_connection_errors_are_retried(sleeps):
    client = GitHubClient(base_url="http://127.0.0.1:9", sleep=sleeps.append, max_retries=2)

    with pytest.raises(TransientGitHubError, match="could not reach"):
        client.get_page("/repos/a/b/issues")

    assert len(sleeps) == 2


def test_a_refusal_is_not_retried_and_says_what_to_check(fake_github, make_client, sleeps):
    client = make_client()

    with pytest.raises(GitHubHTTPError) as raised:
        client.get_page(client.url("/repos/nobody/nothing/issues"))

    assert raised.value.status == 404
    assert str(raised.value).startswith("GitHub answered 404 Not Found for /repos/nobody/nothing/issues: check")
    assert sleeps == [] and len(fake_github.requests) == 1


def test_a_rename_is_followed(fake_github, make_client, repo):
    fake_github.rename(REPO, "neworg/DeepSpeed")
    client = make_client()

    page = client.get_page(issues_url(client))

    assert page.redirected
    assert "/repos/neworg/DeepSpeed/issues" in page.final_url
    assert [r.status for r in fake_github.requests] == [301, 200]


def test_the_session_is_reused(make_client):
    assert isinstance(make_client().session, requests.Session)
