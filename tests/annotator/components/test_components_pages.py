"""The Components pages: who may read and edit a repository's rules, and the unmapped paths of its fixes."""

import pytest
from django.urls import reverse

from annotator.models import ComponentRule, FixDetail, FixFile, Issue, IssueLink
from tests.annotator.components.conftest import rules_of

pytestmark = pytest.mark.django_db

ROLE_STATUS = [
    ("anonymous", 302),
    ("rater_a", 403),
    ("adjudicator", 403),
    ("owner", 200),
    ("rater_b", 200),  # a taxonomy maintainer
    ("staff", 200),
]


def page(repository) -> str:
    return reverse("annotator:repository_components", args=[repository.pk])


@pytest.mark.parametrize(("role", "status"), ROLE_STATUS)
def test_who_sees_the_components_pages(client_as, editors, deepspeed, role, status):
    client = client_as(role)

    assert client.get(reverse("annotator:component_repositories")).status_code == status
    response = client.get(page(deepspeed))
    assert response.status_code == status
    if status == 200:
        assert b"deepspeed/runtime/zero/stage3.py" in response.content


@pytest.mark.parametrize(("role", "status"), [(r, 302 if s == 200 else s) for r, s in ROLE_STATUS])
def test_only_editors_add_remove_or_move_a_rule(client_as, editors, deepspeed, role, status):
    before = rules_of(deepspeed)
    client = client_as(role)
    first = ComponentRule.objects.filter(repository=deepspeed).order_by("position").first()
    change = reverse("annotator:repository_component_change", args=[deepspeed.pk, first.pk])

    added = client.post(page(deepspeed), {"pattern": "deepspeed/moe/**", "component": "Mixture of Experts"})
    moved = client.post(change, {"action": "down"})

    assert (added.status_code, moved.status_code) == (status, status)
    if role in ("anonymous", "rater_a", "adjudicator"):
        assert rules_of(deepspeed) == before
    else:
        assert rules_of(deepspeed)[0] == before[1] and rules_of(deepspeed)[-1] == (
            "deepspeed/moe/**",
            "Mixture of Experts",
        )
        client.post(change, {"action": "remove"})
        assert first.pattern not in [p for p, _ in rules_of(deepspeed)]


def test_a_bad_pattern_is_explained_on_the_page(client_as, editors, deepspeed):
    response = client_as("owner").post(page(deepspeed), {"pattern": "../../etc", "component": "X"})

    assert response.status_code == 400
    assert b"cannot hold a .. folder" in response.content
    assert len(rules_of(deepspeed)) == 3


def test_the_field_of_a_refused_pattern_is_marked_and_described_by_its_error(client_as, editors, deepspeed):
    response = client_as("owner").post(page(deepspeed), {"pattern": "deepspeed/[zero", "component": "ZeRO"})

    html = response.content.decode()
    assert response.status_code == 400 and "never closed" in html
    assert 'aria-invalid="true" aria-describedby="id_pattern-error"' in html
    assert 'id="id_pattern-error"' in html
    assert html.count('aria-invalid="true"') == 1, "the component's field was marked too"


@pytest.mark.parametrize(
    ("role", "shown"),
    [("owner", True), ("rater_b", True), ("staff", True), ("rater_a", False), ("adjudicator", False)],
)
def test_the_navigation_links_the_components_page_for_those_who_edit_it(client_as, editors, role, shown):
    html = client_as(role).get(reverse("annotator:study_list")).content.decode()
    nav = html[html.index('<nav class="mainnav"') : html.index("</nav>")]

    assert (f'href="{reverse("annotator:component_repositories")}"' in nav) is shown
    assert ('href="/imports/"' in nav) is (role in ("owner", "staff")), "the Imports link changed with it"


def test_on_the_components_page_the_components_link_is_the_current_one(client_as, editors, deepspeed):
    html = client_as("owner").get(page(deepspeed)).content.decode()
    nav = html[html.index('<nav class="mainnav"') : html.index("</nav>")]

    assert 'aria-current="page">Components<' in nav and 'aria-current="page">Imports<' not in nav


def test_unmapped_paths_are_listed_most_frequent_first(client_as, editors, deepspeed):
    issue = Issue.objects.create(repository=deepspeed, number=1, url="https://github.com/d/D/issues/1", title="Bug")
    paths_by_fix = [
        ["deepspeed/runtime/zero/stage3.py", "setup.py", "README.md"],
        ["setup.py", "deepspeed/runtime/pipe/engine.py"],
        ["setup.py", "README.md", "docs/index.md"],
    ]
    for n, paths in enumerate(paths_by_fix, start=1):
        link = IssueLink.objects.create(
            issue=issue, kind="pull", relation="cross_referenced", url=f"https://github.com/d/D/pull/{n}", number=n
        )
        detail = FixDetail.objects.create(link=link)
        FixFile.objects.bulk_create([FixFile(detail=detail, path=p) for p in paths])

    response = client_as("owner").get(page(deepspeed))

    assert response.context["unmapped"] == [("setup.py", 3), ("README.md", 2), ("docs/index.md", 1)]
    html = response.content.decode()
    assert html.index("setup.py") < html.index("README.md") < html.index("docs/index.md")


def test_the_github_page_links_each_repository_to_its_components(client_as, editors, deepspeed, settings):
    settings.GITHUB_WEB_HOST = deepspeed.host
    response = client_as("owner").get(reverse("annotator:github_import"))

    assert page(deepspeed).encode() in response.content
