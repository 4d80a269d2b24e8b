"""The data migration 0016: the JSON final labels become ResolutionValue rows, and it refuses to lose a value."""

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotator.models import Resolution
from tests.annotator.final_labels import values_of
from tests.annotator.worlds import labelled_world

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("annotator", "0015_first_submissions_append_only")]
AFTER = [("annotator", "0016_resolution_values_rows")]


def migrate(targets):
    """Migrate the test database to `targets`; the historical models there."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


@pytest.fixture
def back_to_latest():
    yield
    call_command("migrate", verbosity=0)  # the next tests expect the current schema


def current() -> dict[int, tuple[dict, dict]]:
    return {r.pk: (values_of(r), dict(r.methods)) for r in Resolution.objects.order_by("pk")}


def test_json_values_become_rows_and_nothing_is_lost(users, back_to_latest):
    world = labelled_world(users)
    before = current()
    assert any(values for values, _ in before.values()), "the world has final labels"
    old = migrate(BEFORE).get_model("annotator", "Resolution")
    as_json = {r.pk: r.values for r in old.objects.order_by("pk")}
    assert as_json == {pk: values for pk, (values, _) in before.items()}, "the way back writes the JSON"
    # An old final label whose decided dimension lacks its method (written before methods were kept) stays decided.
    first = old.objects.order_by("pk").first()
    methods = {key: m for key, m in first.methods.items() if key != "symptom"}
    old.objects.filter(pk=first.pk).update(methods=methods)
    migrate(AFTER)
    after = current()
    assert {pk: values for pk, (values, _) in after.items()} == {pk: values for pk, (values, _) in before.items()}
    assert after[first.pk][1]["symptom"] == first.method, "the missing method is filled in, not the value dropped"
    assert world.study.pk


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ([987654], "category id 987654 does not exist"),
        (["x"], "'x' is no category id"),
        ("root", "is not a list of ids"),
    ],
)
def test_an_id_with_no_category_stops_the_migration_naming_where_it_is(users, back_to_latest, bad, said):
    world = labelled_world(users)
    old = migrate(BEFORE).get_model("annotator", "Resolution")
    victim = old.objects.select_related("study_issue__issue").order_by("pk").first()
    good = dict(victim.values)
    old.objects.filter(pk=victim.pk).update(values={**good, "symptom": bad})
    with pytest.raises(Exception) as raised:
        migrate(AFTER)
    message = str(raised.value)
    assert type(raised.value).__name__ == "FinalLabelLost"
    assert world.study.name in message and victim.study_issue.issue.url in message
    assert "dimension 'symptom'" in message and said in message
    # Nothing was changed: the JSON is still there, and the rows' table was never kept.
    still = migrate(BEFORE).get_model("annotator", "Resolution")
    assert still.objects.get(pk=victim.pk).values["symptom"] == bad
    assert "annotator_resolutionvalue" not in connection.introspection.table_names()
    still.objects.filter(pk=victim.pk).update(values=good)  # repaired: the migration goes through
    migrate(AFTER)
    assert values_of(Resolution.objects.get(pk=victim.pk))["symptom"] == good["symptom"]


def test_a_category_of_another_dimension_is_refused(users, back_to_latest):
    world = labelled_world(users)
    old = migrate(BEFORE).get_model("annotator", "Resolution")
    victim = old.objects.order_by("pk").first()
    old.objects.filter(pk=victim.pk).update(values={**victim.values, "symptom": [world.cats["root_cause"][0].pk]})
    with pytest.raises(Exception, match="belongs to dimension 'root_cause'"):
        migrate(AFTER)
    migrate(BEFORE).get_model("annotator", "Resolution").objects.filter(pk=victim.pk).update(values=victim.values)
