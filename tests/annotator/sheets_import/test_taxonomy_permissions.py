"""Categories an import adds are taxonomy edits: only taxonomy maintainers (and staff) may cause them, in the
wizard, the import_sheets command run as a user and the replication-package import alike; a command run
without --user runs as the system."""

import pytest
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command

from annotator.models import Issue, Study
from annotator.services.exports import replication_package_write
from annotator.services.exports.importing import study_export_import
from core.errors import PermissionDeniedError
from core.permissions import STUDY_OWNERS_GROUP, TAXONOMY_MAINTAINERS_GROUP
from taxonomy.models import Category, CategoryLineage, Dimension, Taxonomy, TaxonomyVersion
from tests.annotator.sheets_import.conftest import run_import
from tests.annotator.sheets_import.csv_files import HEADER, write_csv
from tests.annotator.worlds import labels, make_world, submit
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
MAPS = ("--map", "cause=Cause", "--map", "fix=Fix")


def _user(username: str, *groups: str):
    user = UserFactory(username=username)
    for name in groups:
        user.groups.add(Group.objects.get_or_create(name=name)[0])
    return user


WATCHED = (Study, Issue, Taxonomy, TaxonomyVersion, Dimension, Category, CategoryLineage)


def snapshot() -> tuple:
    return tuple(model.objects.count() for model in WATCHED)


@pytest.fixture
def unknown_label(tmp_path):
    """Two raters' CSV files; rater A's 'data race' fits no category of the bugs taxonomy."""
    a = write_csv(tmp_path / "a.csv", [HEADER, ["https://github.com/org/repo/issues/1", "data race", "fix code"]])
    b = write_csv(tmp_path / "b.csv", [HEADER, ["https://github.com/org/repo/issues/1", "crash", "fix code"]])
    return a, b


def _import(files, *extra):
    a, b = files
    return run_import("--study", "S", "--raters", f"{a},{b}", "--key", "Link", *MAPS, *extra)


@pytest.mark.parametrize(
    ("groups", "allowed"),
    [
        ((STUDY_OWNERS_GROUP,), False),
        ((STUDY_OWNERS_GROUP, TAXONOMY_MAINTAINERS_GROUP), True),
    ],
    ids=["study owner", "study owner and taxonomy maintainer"],
)
def test_import_sheets_as_a_user_adds_categories_only_for_a_taxonomy_maintainer(
    bugs_taxonomy, unknown_label, groups, allowed
):
    user = _user("operator", *groups)
    before = snapshot()
    args = ("--taxonomy", "bugs", "--add-unknown-labels", "--user", "operator")
    if not allowed:
        with pytest.raises(CommandError, match="Only taxonomy maintainers and staff can change a taxonomy"):
            _import(unknown_label, *args)
        assert snapshot() == before, "nothing was written"
        return
    _import(unknown_label, *args)
    added = Category.objects.get(name="data race")
    assert added.dimension.version.status == TaxonomyVersion.Status.DRAFT
    edge = CategoryLineage.objects.get(to_category=added, operation=CategoryLineage.Operation.ADD)
    assert edge.actor == user, "the taxonomy's history names who added the category"


def test_a_new_taxonomy_from_spreadsheets_needs_a_taxonomy_maintainer(unknown_label):
    _user("operator", STUDY_OWNERS_GROUP)
    before = snapshot()
    with pytest.raises(CommandError, match="create a new taxonomy"):
        _import(unknown_label, "--add-unknown-labels", "--user", "operator")
    assert snapshot() == before


def test_without_a_user_the_command_runs_as_the_system(bugs_taxonomy, unknown_label):
    _import(unknown_label, "--taxonomy", "bugs", "--add-unknown-labels")
    assert Category.objects.filter(name="data race").exists()


def test_the_service_refuses_a_study_owner_whatever_surface_calls_it(bugs_taxonomy, unknown_label):
    from annotator.services.sheets_import import SheetsImportRequest, column_map_parse, sheets_import

    owner = _user("owner_only", STUDY_OWNERS_GROUP)
    request = SheetsImportRequest(
        paths=unknown_label,
        study_name="S",
        raters=("a", "b"),
        key="Link",
        columns=(column_map_parse("cause=Cause"), column_map_parse("fix=Fix")),
        missing=frozenset({"PENDING"}),
        taxonomy="bugs",
        add_unknown_labels=True,
    )
    before = snapshot()
    with pytest.raises(PermissionDeniedError):
        sheets_import(request=request, actor=owner)
    assert snapshot() == before


# --------------------------------------------------------------------------- replication packages


@pytest.fixture
def package(users, outsider, tmp_path):
    """A replication package of a labelled study, and the taxonomy slug it carries."""
    world = make_world(users, n_issues=2)
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    submit(world, users, "rater_b", 0, **labels(world, 0, 1))
    path = tmp_path / "package.zip"
    replication_package_write(study=Study.objects.get(pk=world.study.pk), target=path)
    return path, world.taxonomy["version"].taxonomy


def _taxonomy_gone(taxonomy: Taxonomy) -> None:
    """As on another instance: no taxonomy here has the package's slug."""
    Taxonomy.objects.filter(pk=taxonomy.pk).update(slug=f"{taxonomy.slug}-elsewhere")


def test_a_package_whose_taxonomy_is_here_is_imported_by_a_study_owner(package):
    path, _taxonomy = package
    first = study_export_import(path=path, name="First copy")  # the system loads the package's taxonomy
    owner = _user("team_owner", STUDY_OWNERS_GROUP)
    versions = TaxonomyVersion.objects.count()
    result = study_export_import(path=path, name="Copy", owner=owner, actor=owner)
    assert result.study.taxonomy_version == first.study.taxonomy_version
    assert TaxonomyVersion.objects.count() == versions, "the taxonomy here is reused, not changed"


@pytest.mark.parametrize(
    ("groups", "allowed"),
    [((), False), ((STUDY_OWNERS_GROUP,), False), ((STUDY_OWNERS_GROUP, TAXONOMY_MAINTAINERS_GROUP), True)],
    ids=["plain user", "study owner", "study owner and taxonomy maintainer"],
)
def test_a_package_with_a_new_taxonomy_is_imported_only_by_a_taxonomy_maintainer(package, groups, allowed):
    path, taxonomy = package
    _taxonomy_gone(taxonomy)
    user = _user("importer", *groups)
    before = snapshot()
    if not allowed:
        with pytest.raises(PermissionDeniedError):
            study_export_import(path=path, name="Copy", owner=user, actor=user)
        assert snapshot() == before, "nothing was written"
        return
    result = study_export_import(path=path, name="Copy", owner=user, actor=user)
    assert result.study.taxonomy_version.taxonomy.slug == taxonomy.slug


def test_the_package_command_runs_as_the_named_user_or_as_the_system(package):
    path, taxonomy = package
    _taxonomy_gone(taxonomy)
    _user("team_owner", STUDY_OWNERS_GROUP)
    before = snapshot()
    with pytest.raises(CommandError, match="only taxonomy maintainers and staff"):
        call_command("import_study_export", str(path), "--name", "Copy", "--user", "team_owner")
    assert snapshot() == before
    with pytest.raises(CommandError, match="only taxonomy maintainers and staff"):
        call_command("import_study_export", str(path), "--name", "Copy", "--owner", "team_owner")
    assert snapshot() == before, "without --user the command runs as --owner"
    call_command("import_study_export", str(path), "--name", "Copy")
    assert Study.objects.filter(name="Copy").exists(), "with neither, as the system"
