"""The replication package: built by a task from the export page, its contents and checksums, and the round
trip (export, import under a new name, same labels and same agreement figures)."""

import csv
import hashlib
import io
import json
import zipfile

import pytest
from django.core.management import call_command

from annotator.models import Annotation, ExportJob, Resolution, Study
from annotator.services.agreement import agreement_report
from annotator.services.exports import replication_package_write
from annotator.services.exports.importing import PackageError, study_export_import
from tests.annotator.final_labels import values_of

EXPECTED = {
    "README.md",
    "SHA256SUMS",
    "study.json",
    "taxonomy/taxonomy.json",
    "taxonomy/taxonomy.csv",
    "taxonomy/codebook.md",
    "data/issues.jsonl",
    "data/sample.jsonl",
    "data/labels.csv",
    "data/labels.jsonl",
    "data/final_labels.csv",
    "data/final_labels.jsonl",
    "data/fixes.csv",
    "agreement/agreement.json",
    "agreement/agreement.csv",
}


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def package(world, tmp_path):
    target = tmp_path / "package.zip"
    replication_package_write(study=world.study, target=target)
    return target


def _files(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        root = archive.namelist()[0].split("/")[0] + "/"
        return {name.removeprefix(root): archive.read(name) for name in archive.namelist()}


def test_the_owner_builds_a_package_from_the_export_page(world, client_for, django_capture_on_commit_callbacks):
    owner = client_for("owner")
    with django_capture_on_commit_callbacks(execute=True):  # the task runs eagerly once the request commits
        response = owner.post(f"/studies/{world.study.pk}/exports/replication/")
    assert response.status_code == 302
    job = ExportJob.objects.get()
    assert job.status == ExportJob.Status.DONE, job.error
    assert job.counts["data/final_labels.jsonl"] == 6
    page = owner.get(f"/studies/{world.study.pk}/exports/").content.decode()
    assert f"/exports/replication/{job.pk}.zip" in page
    download = owner.get(f"/studies/{world.study.pk}/exports/replication/{job.pk}.zip")
    assert download.status_code == 200
    body = b"".join(download.streaming_content)
    assert hashlib.sha256(body).hexdigest() == job.sha256
    assert client_for("rater_a").get(f"/studies/{world.study.pk}/exports/replication/{job.pk}.zip").status_code == 403


def test_the_package_holds_every_file_and_its_checksums_verify(package):
    files = _files(package)
    assert set(files) == EXPECTED
    listed = {}
    for line in files["SHA256SUMS"].decode().splitlines():
        digest, name = line.split("  ", 1)
        listed[name] = digest
    assert set(listed) == EXPECTED - {"SHA256SUMS"}
    for name, digest in listed.items():
        assert hashlib.sha256(files[name]).hexdigest() == digest, name


def test_the_readme_gives_the_sample_frame_seed_and_citation(world, package):
    readme = _files(package)["README.md"].decode()
    assert "## Sample frame and seed" in readme
    assert f"| {world.round.number} | {world.round.kind} |" in readme
    assert f"| {world.round.seed} |" in readme
    assert "## How to cite" in readme
    study = json.loads(_files(package)["study.json"])
    assert study["rounds"][0]["seed"] == world.round.seed


def test_the_readme_names_the_exact_versions_the_figures_were_computed_with(package):
    from importlib.metadata import version

    readme = _files(package)["README.md"].decode()
    assert "## Software" in readme
    for name in ("Django", "numpy", "scipy", "statsmodels", "krippendorff"):
        assert f"- {name} {version(name)}\n" in readme, name


def test_raters_are_pseudonymised_everywhere_in_the_package(package):
    files = _files(package)
    for name, data in files.items():
        assert b"rater_a" not in data and b"rater_b" not in data, name
    labels = list(csv.DictReader(io.StringIO(files["data/labels.csv"].decode())))
    assert {row["rater"] for row in labels} == {"R1", "R2"}


def test_a_damaged_package_imports_nothing(world, package, tmp_path):
    damaged = tmp_path / "damaged.zip"
    with zipfile.ZipFile(package) as source, zipfile.ZipFile(damaged, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            target.writestr(
                item, data.replace(b"symptom-0", b"symptom-1") if "final_labels.jsonl" in item.filename else data
            )
    before = Study.objects.count()
    with pytest.raises(PackageError, match="Checksums do not match"):
        study_export_import(path=damaged, name="Damaged copy")
    assert Study.objects.count() == before


def _labels_by_rater(study: Study, names: dict[int, str]) -> set:
    out = set()
    for annotation in Annotation.objects.filter(assignment__study_issue__study=study).select_related(
        "assignment__study_issue__issue"
    ):
        codes = tuple(sorted(annotation.values.values_list("dimension__key", "category__code")))
        out.add((annotation.assignment.study_issue.issue.url, names[annotation.assignment.rater_id], codes))
    return out


def _final(study: Study) -> set:
    from taxonomy.models import Category

    codes = dict(Category.objects.values_list("pk", "code"))
    return {
        (r.study_issue.issue.url, key, tuple(sorted(codes[pk] for pk in ids)), r.method, r.excluded)
        for r in Resolution.objects.filter(study_issue__study=study).select_related("study_issue__issue")
        for key, ids in values_of(r).items()
    }


def _figures(report: dict) -> dict:
    keep = ("n", "percent", "kappa", "low", "high", "alpha", "ac1")
    return {d["key"]: {k: d["summary"][k] for k in keep} for d in report["dimensions"]}


def test_round_trip_gives_the_same_labels_and_agreement(world, users, package):
    call_command("import_study_export", str(package), "--name", "Imported copy")
    copy = Study.objects.get(name="Imported copy")
    original_names = {users["rater_a"].pk: "R1", users["rater_b"].pk: "R2"}
    copy_names = {u.pk: u.username for u in (users["rater_a"].__class__.objects.filter(username__in=["R1", "R2"]))}
    assert _labels_by_rater(copy, copy_names) == _labels_by_rater(world.study, original_names)
    assert _final(copy) == _final(world.study)
    assert _figures(agreement_report(study=copy)) == _figures(agreement_report(study=world.study))
    assert list(copy.rounds.values_list("seed", "size")) == list(world.study.rounds.values_list("seed", "size"))
    assert not users["rater_a"].__class__.objects.get(username="R1").is_active


def test_importing_under_an_existing_name_is_refused(world, package):
    with pytest.raises(PackageError, match="exists already"):
        study_export_import(path=package)


def test_a_final_label_settled_on_a_proposal_survives_the_round_trip(users, tmp_path):
    from annotator.selectors.resolution_values import ProposedLabel, resolution_labels_fresh
    from tests.annotator.adjudication.proposal_world import PROPOSAL, proposal_world, settle_on_proposal

    world = proposal_world(users, n_issues=1)
    settle_on_proposal(world, users)
    target = tmp_path / "proposal.zip"
    replication_package_write(study=world.study, target=target)
    final = _files(target)["data/final_labels.jsonl"].decode()
    assert f"proposal: {PROPOSAL}" in final
    copy = study_export_import(path=target, name="Copy with a proposal").study
    resolution = Resolution.objects.get(study_issue__study=copy)
    labels = resolution_labels_fresh(resolution)
    proposer = Annotation.objects.get(assignment__study_issue__study=copy, proposals__symptom=PROPOSAL)
    assert labels["symptom"] == [ProposedLabel(PROPOSAL, proposer.pk)]


def test_a_proposal_no_rater_of_the_issue_made_is_refused():
    from annotator.services.exports.importing import _final_labels

    record = {"issue_url": "https://x/1", "labels": {"symptom": {"codes": ["proposal: nobody wrote this"]}}}
    with pytest.raises(PackageError, match="no rater of the issue proposed 'nobody wrote this' in 'symptom'"):
        _final_labels({}, record, {("symptom", "somebody wrote this"): 7})
