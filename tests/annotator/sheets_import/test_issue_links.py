"""issue_record_for_link: a GitHub issue or pull request link gives the repository and number; anything else
(including a number in non-ASCII digits, which str.isdigit accepts and int() refuses or misreads) is a post."""

import pytest

from annotator.services.sheets_import import issue_record_for_link


@pytest.mark.parametrize(("kind", "expected"), [("issues", "issue"), ("pull", "pull")])
def test_a_github_link_gives_the_repository_and_number(kind, expected):
    record = issue_record_for_link(f"https://github.com/horovod/horovod/{kind}/106")
    assert (record.repository.owner, record.repository.name, record.number, record.kind) == (
        "horovod",
        "horovod",
        106,
        expected,
    )
    assert record.title == "horovod/horovod#106"


@pytest.mark.parametrize("number", ["²", "١", "𝟙", "x", "9" * 19])
def test_a_link_whose_number_is_not_ascii_digits_is_a_post(number):
    record = issue_record_for_link(f"https://github.com/horovod/horovod/issues/{number}")
    assert (record.kind, record.number, record.repository) == ("post", None, None)
    assert record.title == f"github.com/horovod/horovod/issues/{number}"
