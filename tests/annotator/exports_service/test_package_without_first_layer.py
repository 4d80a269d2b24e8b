"""A replication package written before it carried the raters' first submissions (no `independent` layer):
the imported labels are kept as the first submissions, so a send-back and resubmit leaves "before discussion"
as it was imported."""

import hashlib
import json
import zipfile

import pytest

from annotator.models import Annotation, FirstSubmission, Resolution, Study
from annotator.services.agreement import agreement_report
from annotator.services.annotations import AnnotationInput, annotation_submit
from annotator.services.exports import replication_package_write
from annotator.services.exports.importing import study_export_import
from annotator.services.resolutions import resolution_record, resolution_send_back
from annotator.services.studies import study_member_add
from tests.annotator.worlds import labels, make_world, submit

pytestmark = pytest.mark.django_db


def without_independent_layer(source, target):
    """The package as an older version wrote it: no `independent` in data/labels.jsonl, checksums redone."""
    with zipfile.ZipFile(source) as archive:
        contents = {name: archive.read(name) for name in archive.namelist()}
    root = next(iter(contents)).split("/")[0] + "/"
    labels_name = root + "data/labels.jsonl"
    records = [json.loads(line) for line in contents[labels_name].decode().splitlines() if line.strip()]
    for record in records:
        record.pop("independent", None)
    contents[labels_name] = "".join(json.dumps(r) + "\n" for r in records).encode()
    sums_name = root + "SHA256SUMS"
    contents.pop(sums_name)
    manifest = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {name.removeprefix(root)}\n" for name, data in sorted(contents.items())
    )
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in contents.items():
            archive.writestr(name, data)
        archive.writestr(sums_name, manifest)
    return target


def root_cause_percent(study) -> float:
    report = agreement_report(study=Study.objects.get(pk=study.pk))
    (row,) = [d for d in report["dimensions"] if d["key"] == "root_cause"]
    return row["summary"]["percent"]


def first_values(annotation) -> list[tuple[int, int]] | None:
    first = FirstSubmission.objects.filter(annotation=annotation).first()
    return sorted(first.values.values_list("dimension_id", "category_id")) if first else None


def import_old_package(users, tmp_path):
    """One issue on which the raters disagreed on root cause, adjudicated, exported, stripped and imported."""
    world = make_world(users, n_issues=1)
    submit(world, users, "rater_a", 0, **labels(world, 0, 0))
    submit(world, users, "rater_b", 0, **labels(world, 0, 1))
    pending = Resolution.objects.get(study_issue__study=world.study)
    resolution_record(
        study_issue=pending.study_issue,
        actor=users["adjudicator"],
        values={"root_cause": [world.cats["root_cause"][0].pk]},
        method=Resolution.Method.ADJUDICATED,
        reason=Resolution.Reason.RATER_ERROR,
        expected_version=pending.version,
    )
    package = tmp_path / "package.zip"
    replication_package_write(study=Study.objects.get(pk=world.study.pk), target=package)
    old_style = without_independent_layer(package, tmp_path / "old.zip")
    result = study_export_import(path=old_style, name="Old package", owner=users["owner"])
    world.imported = result.study
    return world


@pytest.fixture
def old_import(users, outsider, tmp_path):
    return import_old_package(users, tmp_path)


def test_the_imported_labels_are_kept_as_the_first_submissions_from_history(old_import):
    annotations = Annotation.objects.filter(assignment__study_issue__study=old_import.imported)
    assert annotations.count() == 2
    for annotation in annotations:
        first = FirstSubmission.objects.get(annotation=annotation)
        assert first.source == FirstSubmission.Source.HISTORY
        assert first.submitted_at == annotation.submitted_at
        assert first_values(annotation) == sorted(annotation.values.values_list("dimension_id", "category_id"))
    assert Resolution.objects.get(study_issue__study=old_import.imported).disagreements == ["root_cause"]


def test_a_send_back_and_resubmit_leaves_the_imported_first_submission_and_before_discussion(old_import, users):
    study = old_import.imported
    imported = list(Annotation.objects.filter(assignment__study_issue__study=study).select_related("assignment"))
    wanted = old_import.cats["root_cause"][1].code
    disagreeing = next(a for a in imported if a.values.get(dimension__key="root_cause").category.code == wanted)
    original = sorted(disagreeing.values.values_list("dimension_id", "category_id"))
    before_discussion = root_cause_percent(study)
    assert before_discussion == 0.0  # the raters disagreed on their own

    study_member_add(study=study, actor=users["owner"], user=users["adjudicator"], role="adjudicator")
    resolution = Resolution.objects.get(study_issue__study=study)
    resolution_send_back(
        study_issue=resolution.study_issue,
        actor=users["adjudicator"],
        note="discuss",
        expected_version=resolution.version,
    )
    dims = {d.key: d for d in study.taxonomy_version.dimensions.all()}
    agreed = {
        "symptom": [next(c for d, c in original if d == dims["symptom"].pk)],
        "root_cause": [dims["root_cause"].categories.get(code=old_import.cats["root_cause"][0].code).pk],
    }
    for annotation in imported:
        annotation.refresh_from_db()
        values = agreed if annotation.pk == disagreeing.pk else None
        if values is None:
            values = {k: [c] for k, c in annotation.values.values_list("dimension__key", "category_id")}
        annotation_submit(
            annotation=annotation,
            actor=annotation.assignment.rater,
            data=AnnotationInput(values=values),
            expected_version=annotation.version,
        )

    disagreeing.refresh_from_db()
    assert disagreeing.values.get(dimension__key="root_cause").category_id == agreed["root_cause"][0], "resubmitted"
    assert first_values(disagreeing) == original, "the first submission stays the imported labels"
    after = root_cause_percent(study)
    assert after == before_discussion, f"'before discussion' on root cause moved {before_discussion} -> {after}"
