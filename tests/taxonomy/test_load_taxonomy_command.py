"""The load_taxonomy command: progress, a summary line, and errors that say where."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from taxonomy.models import Category, TaxonomyVersion
from tests.taxonomy.factories import template, write_template

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command("load_taxonomy", *args, stdout=out)
    return out.getvalue()


def test_loading_a_shipped_template_prints_its_summary():
    assert run("gu-tosem23").strip() == "loaded gu-tosem23 v1: 6 dimensions, 156 categories"
    assert TaxonomyVersion.objects.get(taxonomy__slug="gu-tosem23").is_published


def test_loading_again_reports_unchanged():
    run("gu-tosem23")
    assert run("gu-tosem23").strip() == "gu-tosem23 unchanged (v1)"
    assert TaxonomyVersion.objects.count() == 1


def test_all_loads_every_shipped_template_with_progress():
    lines = run("--all").strip().splitlines()
    assert lines == [
        "[1/2] ddl-2025.json",
        "loaded ddl-2025 v1: 4 dimensions, 17 categories",
        "[2/2] gu-tosem23.json",
        "loaded gu-tosem23 v1: 6 dimensions, 156 categories",
        "2 templates: 2 loaded, 0 unchanged",
    ]
    assert run("--all").strip().splitlines()[-1] == "2 templates: 0 loaded, 2 unchanged"


def test_draft_option_loads_a_draft(tmp_path):
    path = write_template(tmp_path, template())
    assert run(str(path), "--draft").strip() == "loaded tiny v1 (draft): 3 dimensions, 6 categories"
    assert TaxonomyVersion.objects.get().status == "draft"


def test_a_bad_template_fails_with_file_and_path_and_writes_nothing(tmp_path):
    data = template()
    del data["dimensions"][1]["categories"][1]["name"]
    path = write_template(tmp_path, data, name="bad.json")
    with pytest.raises(CommandError) as caught:
        run(str(path))
    assert "bad.json: $.dimensions[1].categories[1].name: required" in str(caught.value)
    assert TaxonomyVersion.objects.count() == 0
    assert Category.objects.count() == 0


def test_an_unknown_slug_lists_the_shipped_ones():
    with pytest.raises(CommandError, match=r"shipped: ddl-2025, gu-tosem23"):
        run("no-such-taxonomy")


def test_a_template_or_all_is_required():
    with pytest.raises(CommandError, match="either a template"):
        run()


def test_verbosity_zero_is_silent_but_still_loads():
    out = StringIO()
    call_command("load_taxonomy", "--all", verbosity=0, stdout=out)
    assert out.getvalue() == ""
    assert TaxonomyVersion.objects.count() == 2
