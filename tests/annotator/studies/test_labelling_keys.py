"""The labelling page's keys are defined once (annotator.labelling_keys): the README and the page's help agree."""

import html
import re

from annotator.labelling_keys import LABELLING_KEYS
from annotator.templatetags.labelling_tags import kbd
from tests.readme import readme_labelling_keys, readme_table


def test_the_readme_lists_the_labelling_keys_row_for_row():
    assert readme_table("Labelling") == [tuple(row) for row in LABELLING_KEYS]


def test_the_readme_names_the_keys_of_the_flow_the_issue_asked_for():
    documented = readme_labelling_keys()
    for key in ("1", "9", "letters", "Enter", "Tab", "Shift+Tab", "P", "Ctrl+Enter", "Esc", "J", "K", "?"):
        assert key in documented, key


def test_the_help_on_the_page_shows_the_same_table(world, client_as):
    page = client_as("rater_a").get(f"/studies/{world.study.pk}/label/{world.a.pk}/").content.decode()
    table = re.search(r'<table class="keys-table" data-testid="keys-table">(.*?)</table>', page, re.S)
    assert table, "the labelling page has no keys table in its help"
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td></tr>", table.group(1))
    assert rows == [(str(kbd(keys)), str(kbd(does))) for keys, does in LABELLING_KEYS]
    as_text = [tuple(html.unescape(re.sub(r"</?kbd>", "`", cell)) for cell in row) for row in rows]
    assert as_text == readme_table("Labelling")


def test_keys_in_backticks_become_kbd_and_text_is_escaped():
    assert str(kbd("`Tab` / `Shift+Tab` <b>")) == "<kbd>Tab</kbd> / <kbd>Shift+Tab</kbd> &lt;b&gt;"


def test_the_page_hints_only_keys_the_table_defines(world, client_as):
    page = client_as("rater_a").get(f"/studies/{world.study.pk}/label/{world.a.pk}/").content.decode()
    hint = re.search(r'data-testid="keys-help">(.*?)</p>', page, re.S).group(1)
    documented = readme_labelling_keys()
    for key in re.findall(r"<kbd>(.*?)</kbd>", hint):
        assert key in documented, f"the page hints {key}, which the README does not list"
    assert 'placeholder="Type to filter · 1–9 choose · Enter confirms"' in page  # single-valued dimensions
    assert 'placeholder="Type to filter · 1–9 add or remove · Enter adds"' in page  # the multi-valued stage
