"""Loading templates: the shipped ones, idempotence, new versions, and nothing written on error."""

import json
from collections import Counter

import pytest

from taxonomy.errors import TemplateError
from taxonomy.models import Category, Dimension, Taxonomy, TaxonomyVersion
from taxonomy.selectors import category_tree
from taxonomy.services import shipped_templates, taxonomy_template_load
from tests.taxonomy.factories import template, write_template

pytestmark = pytest.mark.django_db


def row_counts() -> tuple[int, int, int, int]:
    return (
        Taxonomy.objects.count(),
        TaxonomyVersion.objects.count(),
        Dimension.objects.count(),
        Category.objects.count(),
    )


def test_the_two_templates_ship():
    assert [p.name for p in shipped_templates()] == ["ddl-2025.json", "gu-tosem23.json"]


def test_gu_tosem23_loads_with_its_dimensions_and_categories():
    result = taxonomy_template_load(source="gu-tosem23")
    version = result.version
    assert result.created
    assert result.summary == "loaded gu-tosem23 v1: 6 dimensions, 156 categories"
    assert version.is_published and version.published_at is not None
    assert version.source == "gu-tosem23.json"
    assert len(version.source_sha256) == 64
    counts = Counter(Category.objects.filter(dimension__version=version).values_list("dimension__key", flat=True))
    assert dict(counts) == {
        "issue_type": 2,
        "distributed_specific": 2,
        "stage": 4,
        "symptom": 44,
        "fix_pattern": 73,
        "howto_topic": 31,
    }
    keys = list(version.dimensions.values_list("key", flat=True))
    assert keys == ["issue_type", "distributed_specific", "stage", "symptom", "fix_pattern", "howto_topic"]
    taxonomy = version.taxonomy
    assert taxonomy.license == "Apache-2.0"
    assert "arXiv:2112.06222" in taxonomy.citation
    assert "Rise of Distributed Deep Learning Training in the Big Model Era" in taxonomy.citation
    assert "gudiandian/TOSEM23-DistributedTraining" in taxonomy.attribution


def test_gu_tosem23_symptom_is_a_three_level_tree_whose_leaves_are_selectable():
    version = taxonomy_template_load(source="gu-tosem23").version
    symptom = next(t for t in category_tree(version=version) if t.dimension.key == "symptom")
    assert symptom.depth == 3
    assert symptom.dimension.level_names == ["stage", "inner category", "leaf category"]
    assert symptom.dimension.applies_when == {"issue_type": ["fault"]}
    assert [root.category.name for root in symptom.roots] == [
        "package build & import",
        "communication setup",
        "data and model preparation",
        "training & evaluation",
    ]
    for node in symptom.walk():
        assert node.category.selectable == (not node.children), node.category.code
    oom = Category.objects.get(
        dimension=symptom.dimension, code="training-and-evaluation.program-failure.out-of-memory"
    )
    assert oom.parent.name == "program failure"
    assert oom.parent.parent.name == "training & evaluation"
    assert (
        oom.provenance
        == "Gu et al. TOSEM 2023, final_categories.xlsx (faults sheet, 21 issues; 21 distributed-specific)"
    )
    assert oom.distributed_specific is True


def test_gu_tosem23_merges_hand_typed_variants_and_keeps_them_as_aliases():
    version = taxonomy_template_load(source="gu-tosem23").version

    def category(key: str, code: str) -> Category:
        return Category.objects.get(dimension__version=version, dimension__key=key, code=code)

    hang = category("symptom", "communication-setup.hang-and-timeout")
    assert hang.name == "hang and timeout"
    assert set(hang.aliases) >= {"hang & timeout", "Hang & Timeout"}
    assert "netowrk" in " ".join(category("fix_pattern", "fix-network-setting").aliases)
    assert "fx communication configuration" in category("fix_pattern", "fix-communication-configuration").aliases
    intermediate = category("symptom", "training-and-evaluation.unexpected-performance.unexpected-intermediate-result")
    assert "unexpected  intermediate result" in intermediate.aliases  # the double space, as typed
    assert "API usage " in category("howto_topic", "api-usage").aliases  # the trailing space, as typed
    names = list(
        Category.objects.filter(dimension__version=version, dimension__key="stage").values_list("name", flat=True)
    )
    assert len(names) == len({n.lower().replace("&", "and") for n in names}) == 4
    fix = Dimension.objects.get(version=version, key="fix_pattern")
    assert fix.multi_valued is True


def test_gu_tosem23_how_to_topics_apply_to_how_to_questions():
    version = taxonomy_template_load(source="gu-tosem23").version
    howto = Dimension.objects.get(version=version, key="howto_topic")
    assert howto.applies_when == {"issue_type": ["how-to"]}
    function_support = Category.objects.get(dimension=howto, code="function-support")
    assert function_support.children.count() == 4
    assert function_support.selectable, "questions were labelled with the topic alone"
    assert not Category.objects.get(dimension=howto, code="communication").selectable


def test_ddl_2025_loads_and_says_it_is_incomplete():
    result = taxonomy_template_load(source="ddl-2025")
    version = result.version
    assert result.summary == "loaded ddl-2025 v1: 4 dimensions, 17 categories"
    assert list(version.dimensions.values_list("key", flat=True)) == ["stage", "symptom", "root_cause", "fix_pattern"]
    counts = Counter(Category.objects.filter(dimension__version=version).values_list("dimension__key", flat=True))
    assert dict(counts) == {"stage": 5, "symptom": 4, "root_cause": 6, "fix_pattern": 2}
    taxonomy = version.taxonomy
    assert "INCOMPLETE" in taxonomy.description
    for figure in ("34 symptoms", "28 root causes", "6 fix patterns", "open coding"):
        assert figure in taxonomy.description
    assert "arXiv:2512.20345" in taxonomy.citation
    provenances = Category.objects.filter(dimension__version=version).values_list("provenance", flat=True)
    assert all(p.split(" ")[0] in {"abstract", "secondary", "predecessor"} for p in provenances), list(provenances)
    setup = Category.objects.get(dimension__version=version, code="communication-setup")
    assert "95%" in setup.provenance


def test_loading_the_same_template_twice_changes_nothing():
    first = taxonomy_template_load(source="gu-tosem23")
    before = row_counts()
    second = taxonomy_template_load(source="gu-tosem23")
    assert not second.created
    assert second.version.pk == first.version.pk
    assert second.summary == "gu-tosem23 unchanged (v1)"
    assert row_counts() == before


def test_reformatting_a_template_is_not_a_change(tmp_path):
    taxonomy_template_load(source=write_template(tmp_path, template()))
    before = row_counts()
    reformatted = write_template(tmp_path, json.dumps(template(), indent=8, sort_keys=True))
    assert not taxonomy_template_load(source=reformatted).created
    assert row_counts() == before


def test_a_changed_template_becomes_a_new_version_keeping_lineage(tmp_path):
    first = taxonomy_template_load(source=write_template(tmp_path, template())).version
    changed = template(name="A tiny taxonomy, renamed")
    changed["dimensions"][1]["categories"][1]["name"] = "something else"
    changed["dimensions"][1]["categories"].append({"code": "new", "name": "new"})
    second = taxonomy_template_load(source=write_template(tmp_path, changed)).version
    assert (first.number, second.number) == (1, 2)
    assert second.based_on == first
    assert second.taxonomy.pk == first.taxonomy.pk
    assert Taxonomy.objects.get(slug="tiny").name == "A tiny taxonomy, renamed"

    def lineage(version, code):
        return Category.objects.get(dimension__version=version, code=code).lineage_id

    assert lineage(first, "other") == lineage(second, "other"), "same code, same category across versions"
    assert lineage(first, "setup.hang") == lineage(second, "setup.hang")
    assert lineage(second, "new") not in set(Category.objects.values_list("lineage_id", flat=True).exclude(code="new"))
    assert Category.objects.filter(dimension__version=first).count() == 6, "the old version is untouched"


def test_a_bad_template_writes_nothing_and_names_file_and_path(tmp_path):
    taxonomy_template_load(source="ddl-2025")
    before = row_counts()
    data = template()
    del data["dimensions"][1]["categories"][0]["children"][1]["name"]
    data["dimensions"][2]["key"] = ""
    with pytest.raises(TemplateError) as caught:
        taxonomy_template_load(source=write_template(tmp_path, data, name="broken.json"))
    assert caught.value.problems == [
        "broken.json: $.dimensions[1].categories[0].children[1].name: required",
        "broken.json: $.dimensions[2].key: required (must not be empty)",
    ]
    assert "2 problems" in caught.value.message
    assert row_counts() == before


def test_a_draft_load_is_a_draft(tmp_path):
    result = taxonomy_template_load(source=write_template(tmp_path, template()), status=TaxonomyVersion.Status.DRAFT)
    assert result.version.status == "draft"
    assert result.version.published_at is None
    assert result.summary == "loaded tiny v1 (draft): 3 dimensions, 6 categories"


def test_category_fields_are_stored(tmp_path):
    version = taxonomy_template_load(source=write_template(tmp_path, template())).version
    hang = Category.objects.get(dimension__version=version, code="setup.hang")
    assert (hang.name, hang.aliases, hang.distributed_specific, hang.selectable) == ("hang", ["Hang "], True, True)
    crash = Category.objects.get(dimension__version=version, code="setup.crash")
    assert (crash.provenance, crash.examples, crash.order, crash.distributed_specific) == ("a paper", ["#12"], 1, None)
    assert crash.parent.code == "setup"
    fix = Dimension.objects.get(version=version, key="fix")
    assert (fix.multi_valued, fix.required, fix.order) == (True, False, 2)


def test_reloading_with_a_draft_after_it_publishes_no_duplicate(users):
    """A draft in the editor (or from a spreadsheet import) must not make an unchanged template look new."""
    from taxonomy.services.operations.drafts import version_draft_from

    first = taxonomy_template_load(source="gu-tosem23").version
    draft = version_draft_from(version=first, actor=users["staff"])
    again = taxonomy_template_load(source="gu-tosem23")
    assert not again.created and again.version.pk == first.pk
    assert list(TaxonomyVersion.objects.filter(taxonomy=first.taxonomy).values_list("number", "status")) == [
        (1, "published"),
        (draft.number, "draft"),
    ]


def test_the_same_content_with_another_changelog_or_order_is_not_a_new_version(tmp_path):
    first = taxonomy_template_load(source=write_template(tmp_path, template())).version
    other = template()
    other["changelog"] = "Exported from a replication package."
    other["dimensions"][1]["categories"].reverse()
    again = taxonomy_template_load(source=write_template(tmp_path, other, name="exported.json"))
    assert not again.created and again.version.pk == first.pk


def test_an_edited_draft_is_not_mistaken_for_the_template(tmp_path, users):
    from taxonomy.services.operations.categories import category_rename

    first = taxonomy_template_load(source=write_template(tmp_path, template()), status="draft").version
    category = Category.objects.get(dimension__version=first, code="other")
    category_rename(category=category, name="renamed", actor=users["staff"])
    again = taxonomy_template_load(source=write_template(tmp_path, template()), status="draft")
    assert again.created and again.version.number == 2
