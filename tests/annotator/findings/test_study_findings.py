"""A study's findings from the database: final labels joined with the fix measures, on the report page, through
the API, as downloads and in the replication package; bounded queries."""

import csv
import io
import xml.etree.ElementTree as ET
import zipfile

import pytest

from annotator.services.findings import study_findings

SVG = "{http://www.w3.org/2000/svg}"


def test_findings_join_the_final_labels_with_the_fix_measures(fixed_world):
    findings = study_findings(study=fixed_world.study)
    assert (findings.issues, findings.with_fix) == (6, 5)
    framework = findings.table("findings-size-framework")
    # Sizes 4, 7, 10, 13, 16: median 10, quartiles 7 and 13, three of five at most 10 lines.
    assert framework.rows == [["DeepSpeed", 6, 5, 10.0, 7.0, 13.0, 60.0, 1.0]]
    components = findings.table("findings-components-root_cause").rows
    assert sum(n for _c, _r, n in components) == 5
    assert {c for c, _r, _n in components} == {"ZeRO", "(no mapped component)"}
    assert sum(r[-1] for r in findings.table("findings-flows").rows) == 6


def test_findings_cost_a_bounded_number_of_queries(fixed_world, django_assert_max_num_queries):
    with django_assert_max_num_queries(20):
        study_findings(study=fixed_world.study)


def test_the_report_page_has_a_findings_section_with_every_table(fixed_world, client_for):
    body = client_for("owner").get(f"/studies/{fixed_world.study.pk}/report/").content.decode()
    assert 'data-testid="findings"' in body
    assert 'data-testid="findings-issues">5 of 6 resolved issues have fix data' in body
    for table in study_findings(study=fixed_world.study).tables:
        assert f'data-testid="table-{table.slug}"' in body
    assert "Kruskal–Wallis H test" in body  # the test used is shown with the statistic


@pytest.mark.parametrize("slug", ["findings-size-root_cause", "findings-time-symptom", "findings-flows"])
def test_findings_charts_download_as_svg_and_png(fixed_world, client_for, slug):
    client = client_for("owner")
    svg = client.get(f"/studies/{fixed_world.study.pk}/report/{slug}.svg")
    assert svg.status_code == 200 and svg["Content-Type"] == "image/svg+xml"
    assert ET.fromstring(svg.content).tag == f"{SVG}svg"  # noqa: S314 - our own output
    png = client.get(f"/studies/{fixed_world.study.pk}/report/{slug}.png")
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")


def test_findings_tables_download_as_csv_and_latex(fixed_world, client_for):
    client = client_for("owner")
    response = client.get(f"/studies/{fixed_world.study.pk}/report/findings-differences.csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:4] == ["Family", "Comparison", "Test", "n"]
    latex = client.get(f"/studies/{fixed_world.study.pk}/report/findings-independence.tex").content.decode()
    assert latex.startswith("\\begin{table}") and "\\toprule" in latex
    assert client.get(f"/studies/{fixed_world.study.pk}/report/findings-nope.csv").status_code == 404
    assert client.get(f"/studies/{fixed_world.study.pk}/report/findings-independence.svg").status_code == 404


def test_the_api_answers_the_findings_and_pages_the_tests(fixed_world, client_for):
    client = client_for("owner")
    data = client.get(f"/api/v1/studies/{fixed_world.study.pk}/findings/").json()
    assert (data["issues"], data["issues_with_fix"]) == (6, 5)
    assert "findings-size-stage" in {t["slug"] for t in data["tables"]}
    page = client.get(f"/api/v1/studies/{fixed_world.study.pk}/findings/tests/?limit=2").json()
    assert page["count"] == len(study_findings(study=fixed_world.study).tests) and len(page["results"]) == 2
    first = page["results"][0]
    assert {"n", "test", "statistic", "df", "p", "p_corrected", "effect_name", "effect_size", "magnitude"} <= set(first)
    assert first["subject"].startswith("framework × ")


@pytest.mark.parametrize(("role", "status"), [("outsider", 404), ("rater_a", 403), ("owner", 200)])
def test_findings_are_scoped_like_the_report(fixed_world, client_for, role, status):
    client = client_for(role)
    assert client.get(f"/api/v1/studies/{fixed_world.study.pk}/findings/").status_code == status
    assert client.get(f"/api/v1/studies/{fixed_world.study.pk}/findings/tests/").status_code == status


def test_the_replication_package_has_the_tidy_fix_data(fixed_world, tmp_path):
    from annotator.services.exports.package import replication_package_write

    target = tmp_path / "package.zip"
    counts = replication_package_write(study=fixed_world.study, target=target)
    assert counts["data/fixes.csv"] == 6
    with zipfile.ZipFile(target) as archive:
        root = archive.namelist()[0].split("/")[0]
        rows = list(csv.DictReader(io.StringIO(archive.read(f"{root}/data/fixes.csv").decode())))
        readme = archive.read(f"{root}/README.md").decode()
    assert "`data/fixes.csv` is the fix data" in readme and "| data/fixes.csv | 6 |" in readme
    by_size = sorted(rows, key=lambda r: int(r["lines_changed"] or 0))
    assert [r["lines_changed"] for r in by_size] == ["", "4", "7", "10", "13", "16"]
    assert by_size[0]["has_fix"] == "false" and by_size[1]["has_fix"] == "true"
    assert {r["components"] for r in rows} == {"", "ZeRO"}
    assert all(r["root_cause"] and r["symptom_name"] for r in rows)
    assert {"issue_url", "framework", "number", "stage", "hours_to_fix", "participants"} <= set(rows[0])
