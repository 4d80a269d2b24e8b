"""Moving a study to a new taxonomy version takes back the final labels a split or deprecation undid.

In the evolution world every issue is submitted by both raters: symptom leaf i % 3 for both, root cause
leaf 1 (A) / leaf i % 2 (B), stage leaves 0+1 for A only. So every resolution starts pending (stage, and
on issues 0, 2, 4 root cause, are disputed) until the adjudicator decides it.
"""

import threading
import time

import pytest
from django.db import DatabaseError, connection, connections, transaction
from django.urls import reverse

from annotator.models import (
    Annotation,
    AnnotationValue,
    Resolution,
    ResolutionHistory,
    StudyIssue,
    StudyLabelsVersion,
    StudyVersionMove,
)
from annotator.selectors.resolutions import next_pending
from annotator.services.migration import study_version_move, study_version_preview
from annotator.services.resolutions import auto as resolution_services
from annotator.services.resolutions import (
    resolution_record,
    resolution_reset,
    resolution_send_back,
    resolutions_ensure,
)
from core.errors import ConflictError, DomainError, PermissionDeniedError
from taxonomy.models import Category
from taxonomy.services.operations import (
    categories_merge,
    category_rename,
    category_split,
    version_draft_from,
    version_publish_with_changelog,
)
from tests.annotator.evolution.test_migration import evolve
from tests.annotator.final_labels import values_of
from tests.concurrency import run_in_thread


def issue(world, index: int) -> StudyIssue:
    return StudyIssue.objects.get(pk=world.assignments["rater_a"][index].study_issue_id)


def resolution_of(world, index: int) -> Resolution:
    return Resolution.objects.get(study_issue=issue(world, index))


def decide(world, users, index: int, values: dict[str, list[int]]) -> Resolution:
    current = resolution_of(world, index)
    return resolution_record(
        study_issue=issue(world, index),
        actor=users["adjudicator"],
        values=values,
        method=Resolution.Method.ADJUDICATED,
        reason=Resolution.Reason.GUIDELINE_GAP,
        note="decided before the move",
        expected_version=current.version,
    )


def in_version(version, category) -> Category:
    return Category.objects.get(dimension__version=version, lineage_id=category.lineage_id)


def evolve_unused_split(world, actor):
    """v2: root cause leaf 2 (which no rater chose) split, symptom leaves 0+1 merged, stage leaf 0 renamed."""
    draft = version_draft_from(version=world.study.taxonomy_version, actor=actor)
    merged = categories_merge(
        categories=[in_version(draft, world.cats["symptom"][0]), in_version(draft, world.cats["symptom"][1])],
        actor=actor,
        name="hang and timeout",
    )
    parts = category_split(
        category=in_version(draft, world.cats["root_cause"][2]), actor=actor, parts=[{"name": "p1"}, {"name": "p2"}]
    )
    category_rename(category=in_version(draft, world.cats["stage"][0]), actor=actor, name="launch")
    return version_publish_with_changelog(version=draft, actor=actor), merged, parts


def snapshot(resolution: Resolution) -> tuple:
    resolution.refresh_from_db()
    return (resolution.status, values_of(resolution), resolution.method, resolution.version, resolution.decided_by_id)


# --- a split only the adjudicator had chosen --------------------------------------------------------------


@pytest.fixture
def decided_on_a_split(world, users):
    """Issue 0 decided on root cause leaf 2 (split in v2); issue 1 decided on categories v2 renames or merges."""
    cats = world.cats
    decide(world, users, 0, {"root_cause": [cats["root_cause"][2].pk], "stage": [cats["stage"][0].pk]})
    decide(world, users, 1, {"stage": [cats["stage"][0].pk]})
    v2, merged, parts = evolve_unused_split(world, users["owner"])
    return v2, merged, parts


def test_a_decision_on_a_split_category_goes_back_to_adjudication(world, users, decided_on_a_split):
    v2, merged, _parts = decided_on_a_split
    before = resolution_of(world, 0)
    old_values, old_version = dict(values_of(before)), before.version
    history_before = ResolutionHistory.objects.filter(resolution=before).count()
    move = study_version_move(study=world.study, to_version=v2, actor=users["owner"])
    after = resolution_of(world, 0)
    assert after.status == Resolution.Status.PENDING, "the decision should be taken back"
    assert after.method == "" and after.decided_by is None
    assert "root_cause" not in values_of(after) and "root_cause" in after.disagreements
    assert values_of(after)["symptom"] == [merged.pk], "the merged symptom is carried, not taken back"
    assert values_of(after)["stage"] == [in_version(v2, world.cats["stage"][0]).pk]
    assert after.version == old_version + 2, "one bump for carrying, one for taking the decision back"
    assert move.counts["resolutions_reset"] == 1
    # Nothing deleted: the decision is in the history, with why it was taken back.
    entries = list(ResolutionHistory.objects.filter(resolution=after).order_by("at", "id"))
    assert len(entries) == history_before + 2
    assert entries[-2].before["values"] == old_values
    assert entries[-1].action == ResolutionHistory.Action.REVISE and entries[-1].version == after.version
    assert entries[-1].before["method"] == Resolution.Method.ADJUDICATED
    assert entries[-1].before["decided_by"] == users["adjudicator"].pk
    assert entries[-1].after["reason"] == f"Category 'root_cause leaf 2' was split in v{v2.number}; re-adjudicate."
    assert move.before["resolutions"][str(after.pk)] == old_values
    # The raters' labels did not use the split: nothing is reopened, the issue is with the adjudicator.
    assert Annotation.objects.filter(assignment__study_issue=after.study_issue, frozen=True).count() == 2


def test_a_decision_on_renamed_and_merged_categories_is_carried(world, users, decided_on_a_split):
    v2, merged, _parts = decided_on_a_split
    kept = resolution_of(world, 1)
    version = kept.version
    study_version_move(study=world.study, to_version=v2, actor=users["owner"])
    kept.refresh_from_db()
    assert kept.status == Resolution.Status.RESOLVED and kept.method == Resolution.Method.ADJUDICATED
    assert kept.decided_by == users["adjudicator"]
    assert values_of(kept) == {
        "root_cause": [in_version(v2, world.cats["root_cause"][1]).pk],
        "stage": [in_version(v2, world.cats["stage"][0]).pk],
        "symptom": [merged.pk],
    }
    assert kept.version == version + 1
    entry = ResolutionHistory.objects.filter(resolution=kept).latest("id")
    assert entry.after["needs_readjudication"] is False and "reason" in entry.after


def test_the_taken_back_decision_is_made_again_on_the_new_categories(world, users, decided_on_a_split):
    v2, _merged, parts = decided_on_a_split
    study_version_move(study=world.study, to_version=v2, actor=users["owner"])
    world.study.refresh_from_db()
    assert next_pending(study=world.study) == issue(world, 0)
    current = resolution_of(world, 0)
    with pytest.raises(DomainError, match="Choose the final category for Root Cause"):
        resolution_record(
            study_issue=issue(world, 0),
            actor=users["adjudicator"],
            values={},
            method=Resolution.Method.ADJUDICATED,
            reason=Resolution.Reason.TAXONOMY_GAP,
            expected_version=current.version,
        )
    resolved = resolution_record(
        study_issue=issue(world, 0),
        actor=users["adjudicator"],
        values={"root_cause": [parts[0].pk]},
        method=Resolution.Method.ADJUDICATED,
        reason=Resolution.Reason.TAXONOMY_GAP,
        expected_version=current.version,
    )
    assert resolved.status == Resolution.Status.RESOLVED and values_of(resolved)["root_cause"] == [parts[0].pk]


def test_a_stale_version_of_the_resolution_is_refused_after_the_move(world, users, decided_on_a_split):
    v2, _merged, parts = decided_on_a_split
    stale_version = resolution_of(world, 0).version
    study_version_move(study=world.study, to_version=v2, actor=users["owner"])
    before = snapshot(resolution_of(world, 0))
    with pytest.raises(ConflictError, match="reload the page"):
        resolution_record(
            study_issue=issue(world, 0),
            actor=users["adjudicator"],
            values={"root_cause": [parts[0].pk]},
            method=Resolution.Method.ADJUDICATED,
            reason=Resolution.Reason.TAXONOMY_GAP,
            expected_version=stale_version,
        )
    assert snapshot(resolution_of(world, 0)) == before


# --- a split the raters had used: their annotations are reopened ------------------------------------------


def test_decisions_on_reopened_annotations_go_back_to_pending(world, users):
    """v2 splits root cause leaf 1: every annotation of A is reopened, and B's on issues 1 and 3."""
    cats = world.cats
    decide(world, users, 0, {"root_cause": [cats["root_cause"][0].pk], "stage": [cats["stage"][1].pk]})
    decide(world, users, 1, {"stage": [cats["stage"][1].pk]})
    v2, merged, _parts = evolve(world, users["owner"])
    preview = study_version_preview(study=world.study, to_version=v2)
    move = study_version_move(study=world.study, to_version=v2, actor=users["owner"])
    # Issue 0: decided on leaf 0 (kept) but A, who used leaf 1, re-labels. Issue 1: decided on leaf 1 (split).
    # Issue 3: still pending, its agreed leaf 1 is taken back. Issues 2 and 4: pending, nothing split decided.
    assert preview.resolutions_to_reset == move.counts["resolutions_reset"] == 3
    first, second, third = resolution_of(world, 0), resolution_of(world, 1), resolution_of(world, 3)
    assert first.status == second.status == third.status == Resolution.Status.PENDING
    assert values_of(first)["root_cause"] == [in_version(v2, cats["root_cause"][0]).pk]
    assert "root_cause" not in values_of(second) and "root_cause" not in values_of(third)
    reason = ResolutionHistory.objects.filter(resolution=first).latest("id").after["reason"]
    assert reason.startswith(f"Category 'root_cause leaf 1' was split in v{v2.number}")
    assert "reopened" in reason
    for index in (2, 4):
        untouched = resolution_of(world, index)
        assert untouched.status == Resolution.Status.PENDING
        reasons = [e.after.get("reason", "") for e in ResolutionHistory.objects.filter(resolution=untouched)]
        assert not [r for r in reasons if "re-adjudicate" in r], f"issue {index} was reset: {reasons}"
    assert values_of(resolution_of(world, 4))["symptom"] == [merged.pk]


def test_a_reset_issue_is_compared_again_when_its_raters_resubmit(world, users):
    from annotator.services.annotations import AnnotationInput, annotation_submit

    cats = world.cats
    decide(world, users, 1, {"stage": [cats["stage"][1].pk]})
    v2, merged, parts = evolve(world, users["owner"])
    study_version_move(study=world.study, to_version=v2, actor=users["owner"])
    for role in ("rater_a", "rater_b"):
        annotation = world.assignments[role][1].annotation
        annotation.refresh_from_db()
        annotation_submit(
            annotation=annotation,
            actor=users[role],
            data=AnnotationInput(values={"symptom": [merged.pk], "root_cause": [parts[0].pk]}),
            expected_version=annotation.version,
        )
    resolution = resolution_of(world, 1)
    assert resolution.status == Resolution.Status.RESOLVED and resolution.method == Resolution.Method.UNANIMOUS
    assert values_of(resolution) == {"root_cause": [parts[0].pk], "stage": [], "symptom": [merged.pk]}


def test_a_sent_back_issue_stays_with_its_raters(world, users):
    """A split of the agreed symptom of a sent-back issue: the value is taken back, the discussion goes on."""
    send_back = resolution_of(world, 0)
    resolution_send_back(
        study_issue=issue(world, 0), actor=users["adjudicator"], note="discuss", expected_version=send_back.version
    )
    draft = version_draft_from(version=world.study.taxonomy_version, actor=users["owner"])
    category_split(
        category=in_version(draft, world.cats["symptom"][0]), actor=users["owner"], parts=[{"name": "a"}, {"name": "b"}]
    )
    v2 = version_publish_with_changelog(version=draft, actor=users["owner"])
    disputed = resolution_of(world, 0).disagreements
    move = study_version_move(study=world.study, to_version=v2, actor=users["owner"])
    resolution = resolution_of(world, 0)
    assert resolution.status == Resolution.Status.SENT_BACK
    assert "symptom" not in values_of(resolution) and resolution.disagreements == disputed
    assert move.counts["resolutions_reset"] == 2  # issues 0 and 3 used symptom leaf 0


# --- the page -----------------------------------------------------------------------------------------------


def test_the_page_says_how_many_resolutions_go_back_to_adjudication(world, users, client_for, decided_on_a_split):
    v2, _merged, _parts = decided_on_a_split
    client = client_for("owner")
    url = reverse("annotator:study_version", args=[world.study.pk])
    html = client.get(url, {"to": v2.pk}).content.decode()
    assert 'data-testid="n-resolutions-reset">1<' in html
    client.post(url, {"to": v2.pk, "from": world.study.taxonomy_version_id})
    assert StudyVersionMove.objects.get().counts["resolutions_reset"] == 1
    assert "1 resolution reset" in client.get(url).content.decode()


# --- the service --------------------------------------------------------------------------------------------


def test_only_adjudicators_and_owners_take_a_decision_back(world, users):
    resolution = decide(world, users, 1, {"stage": [world.cats["stage"][1].pk]})
    before = snapshot(resolution)
    with pytest.raises(PermissionDeniedError):
        resolution_reset(
            study_issue=issue(world, 1), actor=users["rater_a"], reason="why", expected_version=resolution.version
        )
    with pytest.raises(ConflictError):
        resolution_reset(
            study_issue=issue(world, 1), actor=users["owner"], reason="why", expected_version=resolution.version - 1
        )
    with pytest.raises(DomainError, match="Say why"):
        resolution_reset(
            study_issue=issue(world, 1), actor=users["owner"], reason="  ", expected_version=resolution.version
        )
    assert snapshot(resolution) == before


def test_a_move_of_renames_only_marks_the_labels_changed(world, users):
    draft = version_draft_from(version=world.study.taxonomy_version, actor=users["owner"])
    category_rename(category=in_version(draft, world.cats["stage"][0]), actor=users["owner"], name="launch")
    v2 = version_publish_with_changelog(version=draft, actor=users["owner"])
    number = StudyLabelsVersion.objects.get(study=world.study).number
    move = study_version_move(study=world.study, to_version=v2, actor=users["owner"])
    assert move.counts["reopened"] == 0 and move.counts["resolutions_reset"] == 0
    assert StudyLabelsVersion.objects.get(study=world.study).number > number


# --- backfill: never redo a decision, never hold the labels version across issues --------------------------


def _without_resolutions():
    ResolutionHistory.objects.all().delete()
    Resolution.objects.all().delete()


def test_backfill_leaves_a_resolution_created_meanwhile_alone(world, users, monkeypatch):
    _without_resolutions()
    first, later = issue(world, 0), issue(world, 4)
    real_auto = resolution_services.resolution_auto
    calls = []

    def auto_then_another_request_decides(*, study_issue, actor=None):
        calls.append(study_issue.pk)
        result = real_auto(study_issue=study_issue, actor=actor)
        if study_issue.pk == first.pk:  # meanwhile, another page view creates the later one and it is decided
            created = real_auto(study_issue=later)
            decide(world, users, 4, {"root_cause": [world.cats["root_cause"][0].pk], "stage": []})
            assert created is not None
        return result

    monkeypatch.setattr(resolution_services, "resolution_auto", auto_then_another_request_decides)
    assert resolutions_ensure(study=world.study) == 4
    assert later.pk not in calls
    decided = Resolution.objects.get(study_issue=later)
    assert decided.status == Resolution.Status.RESOLVED and decided.decided_by == users["adjudicator"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_backfill_does_not_hold_the_labels_version_while_locking_the_next_issue(users, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL row-lock order (SQLite takes one lock for the whole database)")
    from taxonomy.services import version_publish
    from tests.annotator.worlds import build_world, label_all
    from tests.factories import make_taxonomy_maintainer

    make_taxonomy_maintainer(users["owner"])  # the owner also drafts the next version
    world = build_world(users, n_issues=3)
    version_publish(version=world.study.taxonomy_version)
    label_all(world, users)
    _without_resolutions()
    real_auto = resolution_services.resolution_auto
    seen = []

    def probe_labels_version():
        with transaction.atomic():
            return StudyLabelsVersion.objects.select_for_update(nowait=True).get(study=world.study).number

    def auto_with_probe(*, study_issue, actor=None):
        # Another transaction (an owner reopening this issue, say) needs the labels version last: it must be free.
        seen.append(run_in_thread(probe_labels_version))
        return real_auto(study_issue=study_issue, actor=actor)

    monkeypatch.setattr(resolution_services, "resolution_auto", auto_with_probe)
    assert resolutions_ensure(study=world.study) == 3
    assert not [o for o in seen if isinstance(o, DatabaseError)], f"labels version was locked: {seen}"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_move_and_an_autosave_of_one_annotation_do_not_deadlock(users):
    """An autosave holds its annotation, then replaces its labels; the move must not take the labels first."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL row-lock order (SQLite takes one lock for the whole database)")
    from taxonomy.services import version_publish
    from tests.annotator.worlds import build_world, label_all
    from tests.factories import make_taxonomy_maintainer

    make_taxonomy_maintainer(users["owner"])  # the owner also drafts the next version
    world = build_world(users, n_issues=3)
    version_publish(version=world.study.taxonomy_version)
    label_all(world, users)
    v2, _merged, _parts = evolve(world, users["owner"])
    annotation_id = world.assignments["rater_b"][0].annotation.pk
    holding, go = threading.Event(), threading.Event()

    def autosave():
        with transaction.atomic():
            Annotation.objects.select_for_update().get(pk=annotation_id)
            holding.set()
            go.wait(timeout=20)
            rows = list(
                AnnotationValue.objects.filter(annotation_id=annotation_id).values("dimension_id", "category_id")
            )
            AnnotationValue.objects.filter(annotation_id=annotation_id).delete()
            AnnotationValue.objects.bulk_create([AnnotationValue(annotation_id=annotation_id, **row) for row in rows])
        return "saved"

    outcomes: dict = {}

    def run(name, job):
        try:
            outcomes[name] = job()
        except Exception as exc:  # reported to the test
            outcomes[name] = exc
        finally:
            connections.close_all()

    saver = threading.Thread(target=run, args=("autosave", autosave))
    saver.start()
    assert holding.wait(timeout=20)
    mover = threading.Thread(
        target=run,
        args=("move", lambda: study_version_move(study=world.study, to_version=v2, actor=users["owner"])),
    )
    mover.start()
    deadline = time.monotonic() + 20
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:  # until the move waits for the autosave's lock
            cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
            if cursor.fetchone()[0]:
                break
            time.sleep(0.05)
    go.set()
    saver.join(timeout=30)
    mover.join(timeout=30)
    assert outcomes["autosave"] == "saved", outcomes
    assert isinstance(outcomes["move"], StudyVersionMove), outcomes
    values = AnnotationValue.objects.filter(annotation_id=annotation_id)
    assert set(values.values_list("category__dimension__version_id", flat=True)) == {v2.pk}
