"""Template validation: every problem is reported with the file and its JSON path, all at once."""

import json

import pytest

from taxonomy.template_schema import TemplateInvalid, count_categories, parse_template, tree_depth
from tests.taxonomy.factories import template


def problems_of(data, filename: str = "gu-tosem23.json") -> list[str]:
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(TemplateInvalid) as caught:
        parse_template(text, filename=filename)
    return caught.value.lines


def test_a_valid_template_parses_into_records():
    record = parse_template(json.dumps(template()), filename="tiny.json")
    assert [d.key for d in record.dimensions] == ["issue_type", "symptom", "fix"]
    symptom = record.dimensions[1]
    assert count_categories(symptom.categories) == 4
    assert tree_depth(symptom.categories) == 2
    assert symptom.applies_when == {"issue_type": ["fault"]}
    setup = symptom.categories[0]
    assert setup.selectable is False, "a grouping node is not a label unless the template says so"
    assert setup.children[0].selectable is True
    assert setup.children[0].aliases == ["Hang "]
    assert setup.children[0].distributed_specific is True
    assert record.dimensions[2].multi_valued is True
    assert record.dimensions[2].required is False
    assert [d.order for d in record.dimensions] == [0, 1, 2], "order defaults to the position"
    assert record.category_count == 6


def test_the_checksum_ignores_formatting_but_not_content():
    compact = parse_template(json.dumps(template()), filename="a.json")
    indented = parse_template(json.dumps(template(), indent=4), filename="a.json")
    changed = parse_template(json.dumps(template(name="Another name")), filename="a.json")
    assert compact.sha256 == indented.sha256
    assert compact.sha256 != changed.sha256


def test_a_missing_category_name_names_the_file_and_the_json_path():
    data = template()
    del data["dimensions"][1]["categories"][0]["children"][1]["name"]
    assert problems_of(data) == ["gu-tosem23.json: $.dimensions[1].categories[0].children[1].name: required"]


def test_every_problem_is_reported_not_only_the_first():
    data = template(slug="Not A Slug")
    del data["name"]
    data["dimensions"][0]["categories"][1]["code"] = "fault"  # duplicate
    data["dimensions"][2]["multi_valued"] = "yes"
    lines = problems_of(data, filename="tiny.json")
    assert lines == [
        "tiny.json: $.slug: 'Not A Slug' must be lower-case letters and digits joined by single '-', '_' or '.'",
        "tiny.json: $.name: required",
        "tiny.json: $.dimensions[0].categories[1].code: duplicate code 'fault' in this dimension "
        "(also $.dimensions[0].categories[0])",
        "tiny.json: $.dimensions[2].multi_valued: must be true or false, got a string",
    ]


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d.pop("dimensions"), "$.dimensions: required"),
        (lambda d: d.update(dimensions=[]), "$.dimensions: must be a non-empty list, got a list"),
        (lambda d: d.update(citation=3), "$.citation: must be a string, got a number"),
        (lambda d: d.update(schema_version=2), "$.schema_version: unsupported version 2 (this reads 1)"),
        (lambda d: d.update(colour="red"), "$.colour: unknown field"),
        (lambda d: d["dimensions"].append("stage"), "$.dimensions[3]: must be an object, got a string"),
        (lambda d: d["dimensions"][1].pop("key"), "$.dimensions[1].key: required"),
        (lambda d: d["dimensions"][2].update(key="issue_type"), "$.dimensions[2].key: duplicate key 'issue_type'"),
        (lambda d: d["dimensions"][2].pop("categories"), "$.dimensions[2].categories: required"),
        (lambda d: d["dimensions"][2].update(order=-1), "$.dimensions[2].order: must be a whole number from 0"),
        (
            lambda d: d["dimensions"][1].update(level_names=["only one"]),
            "$.dimensions[1].level_names: names 1 levels but the category tree is 2 deep",
        ),
        (
            lambda d: d["dimensions"][1].update(applies_when={"nope": ["fault"]}),
            "$.dimensions[1].applies_when.nope: no dimension with key 'nope' in this template",
        ),
        (
            lambda d: d["dimensions"][1].update(applies_when={"issue_type": ["bug"]}),
            "$.dimensions[1].applies_when.issue_type[0]: no category with code 'bug' in dimension 'issue_type'",
        ),
        (
            lambda d: d["dimensions"][1].update(applies_when={"symptom": ["other"]}),
            "$.dimensions[1].applies_when.symptom: a dimension cannot depend on itself",
        ),
        (
            lambda d: d["dimensions"][1]["categories"][0]["children"][0].update(distributed_specific="yes"),
            "$.dimensions[1].categories[0].children[0].distributed_specific: must be true, false or null",
        ),
        (
            lambda d: d["dimensions"][1]["categories"][0]["children"][0].update(aliases=["ok", ""]),
            "$.dimensions[1].categories[0].children[0].aliases[1]: must be a non-empty string",
        ),
        (
            lambda d: d["dimensions"][1]["categories"][1].update(children={"code": "x"}),
            "$.dimensions[1].categories[1].children: must be a list, got an object",
        ),
        (
            lambda d: d["dimensions"][1]["categories"][1].update(code="Other Things"),
            "$.dimensions[1].categories[1].code: 'Other Things' must be lower-case",
        ),
        (
            lambda d: d["dimensions"][1]["categories"][1].update(name="x" * 201),
            "$.dimensions[1].categories[1].name: too long (201 characters, at most 200)",
        ),
        (
            lambda d: d["dimensions"][0]["categories"][0].update(children=[{"code": "fault", "name": "again"}]),
            "$.dimensions[0].categories[0].children[0].code: duplicate code 'fault' in this dimension",
        ),
        (
            lambda d: d["dimensions"][0].update(categories=[{"code": "a", "name": "a", "selectable": False}]),
            "$.dimensions[0].categories: no category is selectable",
        ),
    ],
)
def test_each_kind_of_problem_names_the_file_and_path(mutate, expected):
    data = template()
    mutate(data)
    lines = problems_of(data, filename="tiny.json")
    assert any(line.startswith(f"tiny.json: {expected}") for line in lines), lines


def test_broken_json_reports_line_and_column():
    assert problems_of('{"slug": "x",\n  "name": }', filename="bad.json") == [
        "bad.json: $: invalid JSON at line 2 column 11: Expecting value"
    ]


def test_a_template_that_is_not_an_object_is_rejected():
    assert problems_of("[1, 2]", filename="list.json") == ["list.json: $: must be an object, got a list"]


def test_too_deep_a_tree_is_rejected():
    data = template()
    node = {"code": "l1", "name": "l1"}
    data["dimensions"][2]["categories"] = [node]
    for level in range(2, 11):
        child = {"code": f"l{level}", "name": f"l{level}"}
        node["children"] = [child]
        node = child
    lines = problems_of(data, filename="deep.json")
    assert any("children: the tree may be at most 8 levels deep" in line for line in lines), lines
