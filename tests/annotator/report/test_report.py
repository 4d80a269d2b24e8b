"""The paper's tables of a study: counts from the final labels, well-formed CSV, LaTeX, SVG and PNG, charts
that never drop a category silently, and the agreement table."""

import csv
import io
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from annotator.exports.charts import OTHERS_COLOUR
from annotator.services.report import CHART_TOP, ReportTable, chart_top_stacked, study_report

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
    assert client_for("owner").get(f"/studies/{world.study.pk}/report/mapping.gif").status_code == 404
    # The agreement table has no chart.
    assert client_for("owner").get(f"/studies/{world.study.pk}/report/agreement.svg").status_code == 404


@pytest.mark.parametrize("slug", ["frameworks", "distribution-symptom", "mapping"])
def test_png_download_is_an_image(world, client_for, slug):
    response = client_for("owner").get(f"/studies/{world.study.pk}/report/{slug}.png")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG" and image.size[0] == 1280


def test_a_chart_of_up_to_80_rows_shows_every_row():
    labels = [f"fix pattern {i}" for i in range(73)]
    table = ReportTable(slug="t", title="Fix patterns", header=["c", "n"], rows=[], bars=(labels, list(range(73))))
    root = ET.fromstring(table.svg())  # noqa: S314 - our own output
    assert len(_bars(root)) == 73
    assert "Others" not in [t.text for t in root.iter(f"{SVG}text")]


def test_a_longer_chart_shows_the_top_rows_and_sums_the_rest_as_others():
    labels = [f"combination {i}" for i in range(269)]
    values = [1] * 269
    values[200] = 50  # a large row far down the table is among the top rows
    table = ReportTable(slug="t", title="Mapping", header=["c", "n"], rows=[], bars=(labels, values))
    root = ET.fromstring(table.svg())  # noqa: S314 - our own output
    drawn = _bars(root)
    assert len(drawn) == CHART_TOP + 1
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "combination 200" in texts and texts.count("Others") == 1
    assert "The chart shows the 40 largest of 269 rows; the other 229 are summed as 'Others'." in texts
    others = drawn[-1]
    assert others.get("fill") == OTHERS_COLOUR
    assert others.find(f"{SVG}title").text == "Others: 229"  # 229 rows of 1, every one counted


def test_a_long_stacked_chart_sums_the_rest_per_series():
    categories = [f"c{i}" for i in range(100)]
    series = {"DeepSpeed": [1] * 100, "Colossal-AI": [2] * 100}
    shown, summed, note = chart_top_stacked(categories, series)
    assert shown[-1] == "Others" and len(shown) == CHART_TOP + 1
    assert summed["DeepSpeed"][-1] == 60 and summed["Colossal-AI"][-1] == 120
    assert "100 categories" in note


def test_the_agreement_table_has_a_row_per_dimension_with_the_reports_figures(world):
    from annotator.services.agreement.report import agreement_report

    table = study_report(study=world.study).table("agreement")
    report = agreement_report(study=world.study)
    assert [row[0] for row in table.rows] == [d["name"] for d in report["dimensions"]]
    for row, dimension in zip(table.rows, report["dimensions"], strict=True):
        summary = dimension["summary"]
        assert row[1] == "all" and row[2] == summary["n"]
        if summary["kappa"] is not None:
            assert row[4] == pytest.approx(summary["kappa"], abs=0.0005)
    latex = table.latex()
    assert "Cohen's κ" in latex or "Cohen" in latex
    assert "\\toprule" in latex


def test_the_agreement_table_downloads_as_csv_and_latex(world, client_for):
    csv_response = client_for("owner").get(f"/studies/{world.study.pk}/report/agreement.csv")
    rows = list(csv.reader(io.StringIO(b"".join(csv_response.streaming_content).decode())))
    assert rows[0][:3] == ["Dimension", "Round", "n"]
    assert client_for("owner").get(f"/studies/{world.study.pk}/report/agreement.tex").status_code == 200


def _bars(root):
    return [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
