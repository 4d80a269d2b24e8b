"""The labelling page's pickers: what the type-ahead searches, and codes only where they say more than the name."""

import pytest

from annotator.selectors.labelling import code_adds_to_name, labelling_page
from taxonomy.models import Category


@pytest.mark.parametrize(
    ("code", "name", "adds"),
    [
        ("communication-setup", "communication setup", False),
        ("package-build-and-import", "package build and import (environment setup)", False),
        ("function-support.keras-multi-gpu", "keras multi gpu", False),
        ("S1", "setup failure", True),
        ("oom", "memory issue", True),
        ("---", "anything", False),
    ],
)
def test_a_code_is_shown_only_where_it_says_more_than_the_name(code, name, adds):
    assert code_adds_to_name(code, name) is adds


def test_the_picker_searches_names_aliases_and_codes_apart_from_definitions(world, client_as):
    leaf = world.cats["symptom"][0]
    Category.objects.filter(pk=leaf.pk).update(aliases=["OOM", "Out of Memory"], code="sym-x1")
    page = client_as("rater_a").get(f"/studies/{world.study.pk}/label/{world.a.pk}/").content.decode()
    assert f'data-names="symptom group › {leaf.name} sym-x1 oom out of memory"' in page
    assert f'data-definition="{leaf.definition.lower()}"' in page
    assert '<span class="opt-alias" hidden>Out of Memory</span>' in page
    assert '<span class="opt-code">sym-x1</span>' in page  # says more than "symptom leaf 0"


def test_codes_that_repeat_the_name_are_left_out(world, client_as):
    other = world.cats["symptom"][1]
    Category.objects.filter(pk=other.pk).update(code="symptom-leaf-1")
    context = labelling_page(assignment=world.a)
    options = {o.category.pk: o for picker in context["pickers"] for o in picker.options}
    assert options[other.pk].show_code is False
    assert options[world.cats["symptom"][0].pk].show_code is True  # "symptom-0" is not in "symptom leaf 0"
    page = client_as("rater_a").get(f"/studies/{world.study.pk}/label/{world.a.pk}/").content.decode()
    assert '<span class="opt-code">symptom-leaf-1</span>' not in page
    assert '<span class="opt-code">symptom-0</span>' in page
