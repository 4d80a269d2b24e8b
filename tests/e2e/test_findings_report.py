"""In the browser: the report page's Findings section shows the fix tables with their tests, and a findings chart
downloads as an SVG a browser can open."""

import xml.etree.ElementTree as ET

import pytest

from tests.annotator.worlds import fixed_world

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_owner_reads_the_findings_and_downloads_a_box_plot(live_server, new_context, login, users, tmp_path):
    world = fixed_world(users)
    page = login(new_context(accept_downloads=True), "owner")
    page.goto(f"{live_server.url}/studies/{world.study.pk}/report/", timeout=30_000)
    page.get_by_role("link", name="Findings", exact=True).click()
    findings = page.get_by_test_id("findings")
    assert "5 of 6 resolved issues have fix data" in findings.get_by_test_id("findings-issues").inner_text()
    size = page.get_by_test_id("table-findings-size-framework")
    assert size.is_visible()
    assert "DeepSpeed" in size.locator("tbody").inner_text()
    assert "Kruskal–Wallis H test" in size.inner_text()  # the test used, beside the table
    with page.expect_download() as download:
        size.get_by_role("link", name="SVG chart").click()
    path = tmp_path / "chart.svg"
    download.value.save_as(path)
    assert download.value.suggested_filename.endswith("findings-size-framework.svg")
    root = ET.fromstring(path.read_bytes())  # noqa: S314 - our own output
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    flows = page.get_by_test_id("table-findings-flows")
    assert flows.locator("tbody tr").count() >= 1
