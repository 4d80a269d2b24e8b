"""The paper's tables of a study: counts from the final labels, and well-formed CSV, LaTeX and SVG."""

import csv
import io
import xml.etree.ElementTree as ET

import pytest

from annotator.services.report import study_report

SVG = "{http://www.w3.org/2000/svg}"


def test_counts_come_from_the_final_labels(world):
    report = study_report(study=world.study)
    assert report.issues == 6
    frameworks = report.table("frameworks")
    assert frameworks.rows == [["DeepSpeed", 6, 100.0]]
    root = report.table("distribution-root_cause")
    # Adjudicated issues took root cause 0: 4 of 6 issues.
    assert root.rows[0][:2] == ["root_cause leaf 0", "root_cause-0"] and root.rows[0][-2] == 4
    mapping = report.table("mapping")
    assert sum(row[-1] for row in mapping.rows) == 6


def test_report_costs_a_bounded_number_of_queries(world, django_assert_max_num_queries):
    with django_assert_max_num_queries(40):
        study_report(study=world.study)


@pytest.mark.parametrize("slug", ["frameworks", "distribution-symptom", "by-stage-root_cause", "mapping"])
def test_latex_download_is_a_booktabs_table(world, client_for, slug):
    response = client_for("owner").get(f"/studies/{world.study.pk}/report/{slug}.tex")
    assert response.status_code == 200
    text = response.content.decode()
    assert text.startswith("\\begin{table}") and text.rstrip().endswith("\\end{table}")
    assert text.count("\\toprule") == text.count("\\bottomrule") == 1
    assert text.count("\\begin{tabular}") == text.count("\\end{tabular}") == 1


@pytest.mark.parametrize("slug", ["frameworks", "distribution-stage", "by-framework-symptom", "distributed"])
def test_svg_download_is_well_formed(world, client_for, slug):
    response = client_for("owner").get(f"/studies/{world.study.pk}/report/{slug}.svg")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    root = ET.fromstring(response.content)  # noqa: S314 - our own output, parsed to check it is well formed
    assert root.tag == f"{SVG}svg"
    assert root.findall(f"{SVG}rect")


def test_csv_download_matches_the_table(world, client_for):
    response = client_for("owner").get(f"/studies/{world.study.pk}/report/distribution-symptom.csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    table = study_report(study=world.study).table("distribution-symptom")
    assert rows[0] == table.header
    assert len(rows) == len(table.rows) + 1


def test_report_page_lists_every_table(world, client_for):
    body = client_for("owner").get(f"/studies/{world.study.pk}/report/").content.decode()
    for table in study_report(study=world.study).tables:
        assert f'data-testid="table-{table.slug}"' in body


def test_api_report_is_json(world, client_for):
    data = client_for("owner").get(f"/api/v1/studies/{world.study.pk}/report/").json()
    assert data["issues"] == 6
    assert "mapping" in {t["slug"] for t in data["tables"]}


def test_unknown_table_or_format_is_404(world, client_for):
    assert client_for("owner").get(f"/studies/{world.study.pk}/report/nope.csv").status_code == 404
    assert client_for("owner").get(f"/studies/{world.study.pk}/report/mapping.png").status_code == 404
