"""The gu-tosem23 template is reproducible from the study's spreadsheets, and valid."""

import importlib.util
import json

import pytest

from taxonomy.services.templates import SHIPPED_TEMPLATES_DIR
from taxonomy.template_schema import parse_template
from tests.data import GU_TOSEM23

DATA = GU_TOSEM23
SHIPPED = SHIPPED_TEMPLATES_DIR / "gu-tosem23.json"


def load_builder():
    spec = importlib.util.spec_from_file_location("build_gu_tosem23", SHIPPED_TEMPLATES_DIR / "build_gu_tosem23.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generator_reproduces_the_shipped_template(tmp_path):
    builder = load_builder()
    spreadsheets = [DATA / "pilot_labelling.xlsx", *sorted(DATA.glob("reliability_round*.xlsx"))]
    output = tmp_path / "gu-tosem23.json"
    builder.main([str(DATA / "final_categories.xlsx"), *map(str, spreadsheets), "--output", str(output)])
    assert output.read_text(encoding="utf-8") == SHIPPED.read_text(encoding="utf-8")


def test_the_normalisation_merges_case_ampersands_spacing_and_typos():
    builder = load_builder()
    assert builder.norm("Hang & Timeout") == builder.norm("hang and timeout ")
    assert builder.norm("unexpected  intermediate result") == builder.norm("Unexpected intermediate results")
    assert builder.norm("fix netowrk setting") == "fix network setting"
    assert builder.norm("fx communication configuration") == "fix communication configuration"
    assert [key for _, key in builder.split_cell("fix dependency version & fix network setting", fix_pattern=True)] == [
        "fix dependency version",
        "fix network setting",
    ]
    assert builder.split_cell("fix batch size/data partition", fix_pattern=True) == [
        ("fix batch size/data partition", "fix batch size/data partition")
    ]


@pytest.mark.parametrize("name", ["gu-tosem23.json", "ddl-2025.json"])
def test_shipped_templates_are_valid_and_attributed(name):
    record = parse_template((SHIPPED_TEMPLATES_DIR / name).read_bytes(), filename=name)
    assert record.citation and record.attribution
    raw = json.loads((SHIPPED_TEMPLATES_DIR / name).read_text(encoding="utf-8"))
    assert raw["slug"] == name.removesuffix(".json"), "the file is named after its slug"
