"""In the browser: a finished import's page links to exactly the issues that import wrote or found unchanged,
and the issue list says it is showing one import's issues until the filter is cleared."""

import json

import pytest
from playwright.sync_api import expect

from annotator.services.imports import file_import_job_execute
from tests.annotator.studies.factories import make_owner

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _records(*numbers: int) -> bytes:
    url = "https://github.com/deepspeedai/DeepSpeed/issues/{}"
    return json.dumps([{"url": url.format(n), "title": f"ZeRO bug {n}"} for n in numbers]).encode()


def test_the_import_result_links_to_that_imports_issues_only(live_server, new_context, login):
    owner = make_owner("owner")
    file_import_job_execute(data=_records(1, 2, 3), name="earlier.json", user=owner)
    job, outcome = file_import_job_execute(data=_records(3, 4), name="batch-2.json", user=owner)  # 3 unchanged
    assert outcome.written

    page = login(new_context(), owner.username)
    page.goto(f"{live_server.url}/imports/{job.pk}/")
    link = page.get_by_test_id("job-issues-link")
    expect(link).to_have_text("the 2 issues of this import")
    link.click()

    expect(page.get_by_test_id("import-filter")).to_contain_text(f"Issues of import #{job.pk} (batch-2.json)")
    titles = page.locator("table.issues .issue-title")
    expect(titles).to_have_count(2)
    assert sorted(titles.all_inner_texts()) == ["ZeRO bug 3", "ZeRO bug 4"]

    page.get_by_test_id("import-filter").get_by_role("link", name="clear").click()
    expect(page.get_by_test_id("import-filter")).to_have_count(0)
    expect(titles).to_have_count(4)
