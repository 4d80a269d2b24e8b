"""Which change an IssueLink's address names: only GitHub's own characters reach a request path."""

import pytest

from annotator.importers.github.fixes import ChangeRef, change_ref_from_url, etag_clean

SHA = "ab" * 20


@pytest.mark.parametrize(
    ("url", "ref"),
    [
        ("https://github.com/deepspeedai/DeepSpeed/pull/7012", ChangeRef("deepspeedai", "DeepSpeed", number=7012)),
        (
            f"https://GitHub.com/NVIDIA/Megatron-LM/commit/{'ab' * 20}",
            ChangeRef("NVIDIA", "Megatron-LM", sha="ab" * 20),
        ),
        ("https://github.com/hpcaitech/ColossalAI/pull/12/", ChangeRef("hpcaitech", "ColossalAI", number=12)),
    ],
)
def test_pull_requests_and_commits_on_the_host_are_read(url, ref):
    assert change_ref_from_url(url, host="github.com") == ref


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/deepspeedai/DeepSpeed/pull/1",
        "https://github.com/deepspeedai/DeepSpeed/issues/1",
        "https://github.com/../DeepSpeed/pull/1",
        "https://github.com/a%2F..%2Fb/DeepSpeed/pull/1",
        "https://github.com/deepspeedai/DeepSpeed/commit/../../admin",
        "https://github.com/deepspeedai/DeepSpeed/commit/xyz",
        "https://github.com/deepspeedai/DeepSpeed/pull/0",
        "https://github.com/deepspeedai/DeepSpeed/pull/99999999999",
        "ftp://github.com/deepspeedai/DeepSpeed/pull/1",
        "",
    ],
)
def test_anything_else_is_not_requested(url):
    assert change_ref_from_url(url, host="github.com") is None


def test_an_etag_is_kept_only_when_it_can_be_sent_back():
    assert etag_clean('W/"abc"') == 'W/"abc"'
    assert etag_clean("a\r\nX-Evil: 1") == ""
    assert etag_clean("x" * 201) == ""
    assert etag_clean(None) == ""
