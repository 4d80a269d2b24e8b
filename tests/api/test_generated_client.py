"""A Python client generated from the live schema by openapi-python-client works for every operation.

The schema is read from the running server (pytest-django's live_server on 127.0.0.1) into a file and the
generator is given that file: it fetches nothing (its proxies point at a closed port, so any fetch would
fail). The client is imported from a temporary directory and every operation of the schema is called once,
as the role that may call it, and must answer its documented success with a parsed model (or the file).
A new operation without a call here fails the test: add one to CALLS.
"""

import importlib
import json
import os
import subprocess
import sys
import urllib.request
import zipfile
from io import BytesIO
from pathlib import Path

import pytest

from annotator.models import ExportJob, Resolution
from tests.api.conftest import build_api_world

PACKAGE = "taxonomist_client"
# Downloads are bytes to a client: it reads every one of these answers as a File.
CONFIG = {
    "post_hooks": [],
    "content_type_overrides": dict.fromkeys(
        ["text/csv", "text/markdown", "application/x-ndjson", "application/x-tex", "image/svg+xml", "application/zip"],
        "application/octet-stream",
    ),
}
CLOSED_PORT = "http://127.0.0.1:9"
OUT = ["--output-path", PACKAGE, "--config", "config.json"]


def _generate(schema: dict, directory: Path) -> None:
    (directory / "schema.json").write_text(json.dumps(schema))
    (directory / "config.json").write_text(json.dumps(CONFIG))
    offline = {**os.environ, "HTTP_PROXY": CLOSED_PORT, "HTTPS_PROXY": CLOSED_PORT, "NO_PROXY": ""}
    result = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", "schema.json", "--meta", "none", *OUT],
        cwd=directory,
        env=offline,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr  # no operation skipped


@pytest.fixture
def client_package(live_server, tmp_path):
    with urllib.request.urlopen(f"{live_server.url}/api/schema/?format=json", timeout=30) as answer:
        schema = json.load(answer)
    _generate(schema, tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        yield SimpleImport(importlib.import_module(PACKAGE), schema)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]


class SimpleImport:
    def __init__(self, package, schema: dict):
        self.package = package
        self.schema = schema

    def operation(self, tag: str, operation_id: str):
        return importlib.import_module(f"{PACKAGE}.api.{tag}.{operation_id}")

    def model(self, name: str):
        return getattr(importlib.import_module(f"{PACKAGE}.models"), name)

    def operations(self) -> dict[str, str]:
        """operation id -> its tag (the module the generator puts it in)."""
        return {
            operation["operationId"]: operation["tags"][0]
            for path in self.schema["paths"].values()
            for operation in path.values()
            if isinstance(operation, dict) and "operationId" in operation
        }


@pytest.mark.django_db(transaction=True)
def test_a_generated_client_calls_every_operation_and_parses_each_answer(
    client_package, live_server, users, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path / "media"
    data = build_api_world(users)
    api = client_package
    as_owner = api.package.AuthenticatedClient(base_url=live_server.url, token=data.owner, prefix="Token")
    as_rater = api.package.AuthenticatedClient(base_url=live_server.url, token=data.rater, prefix="Token")
    anonymous = api.package.Client(base_url=live_server.url)
    published, open_study = data.published.pk, data.open_study.pk
    annotation = data.ids["annotations"][0]
    taxonomy = data.published.taxonomy_version
    resolved = Resolution.objects.filter(study_issue__study=data.published).order_by("pk").first()
    model = api.model

    def draft_body(version: int):
        return model("AnnotationDraftInputRequest").from_dict({"note": "from the generated client", "version": version})

    # operation id -> (client, keyword arguments, the parsed type of its success); ordered where one needs another.
    calls: dict = {
        "api_index": (anonymous, {}, "ApiIndexOutput"),
        "repositories_list": (as_owner, {"limit": 10}, "PaginatedRepositoryOutputList"),
        "repositories_retrieve": (as_owner, {"id": data.ids["repositories"][0]}, "RepositoryOutput"),
        "repository_components_list": (
            as_owner,
            {"id": data.ids["repositories"][0], "limit": 10},
            "PaginatedComponentRuleOutputList",
        ),
        "repository_components_replace": (
            as_owner,
            {
                "id": data.ids["repositories"][0],
                "body": model("ComponentRulesReplaceInputRequest").from_dict(
                    {"rules": [{"pattern": "deepspeed/runtime/pipe/**", "component": "Pipeline parallelism"}]}
                ),
            },
            "ComponentRulesOutput",
        ),
        "issues_list": (as_owner, {"page_size": 2}, "PaginatedIssueListOutputList"),
        "issues_retrieve": (as_owner, {"id": data.ids["issues"][0]}, "IssueDetailOutput"),
        "studies_list": (as_owner, {"limit": 10, "offset": 0}, "PaginatedStudyOutputList"),
        "studies_retrieve": (as_owner, {"id": published}, "StudyOutput"),
        "studies_create": (
            as_owner,
            {
                "body": model("StudyCreateInputRequest").from_dict(
                    {
                        "name": "From the generated client",
                        "taxonomy_version": taxonomy.pk,
                        "raters": ["rater_a", "rater_b"],
                        "frame": {"kind": "repositories", "repositories": [data.ids["repositories"][0]]},
                    }
                )
            },
            "StudyCreatedOutput",
        ),
        "study_category_counts": (
            as_owner,
            {"id": published, "source": model("StudyCategoryCountsSource")("raters")},
            "CategoryCountsOutput",
        ),
        "me_annotations_list": (as_rater, {"submitted": False}, "PaginatedAnnotationOutputList"),
        "import_jobs_list": (as_owner, {}, "PaginatedImportJobOutputList"),
        "import_jobs_retrieve": (as_owner, {"id": data.ids["import-jobs"][0]}, "ImportJobDetailOutput"),
        "study_assignments_next": (as_rater, {"id": open_study}, "RaterNextAssignmentOutput"),
        "study_assignments_mine": (as_rater, {"id": open_study, "limit": 2}, "RaterAssignmentPageOutput"),
        "annotation_retrieve": (as_rater, {"id": annotation}, "AnnotationOutput"),
        "annotation_draft": (as_rater, {"id": annotation, "body": draft_body(1)}, "AnnotationOutput"),
        "annotation_submit": (as_rater, {"id": annotation, "body": None}, "AnnotationOutput"),
        "study_agreement": (as_owner, {"id": published, "bootstrap": False}, "AgreementReportOutput"),
        "study_resolutions": (
            as_owner,
            {"id": published, "status": model("StudyResolutionsStatus")("resolved")},
            "PaginatedResolutionOutputList",
        ),
        "study_issue_resolution": (as_owner, {"id": resolved.study_issue_id}, "ResolutionOutput"),
        "study_issue_resolution_record": (as_owner, {"id": resolved.study_issue_id, "body": None}, "ResolutionOutput"),
        # The recorded decision changed a final label: it is published as release 2, hidden and shown again.
        "study_publish": (
            as_owner,
            {"id": published, "body": model("PublishInputRequest").from_dict({"change_note": "One decision revised."})},
            "PublishedOutput",
        ),
        "study_release_list": (as_owner, {"id": published}, "PaginatedOwnerReleaseOutputList"),
        "study_unpublish": (
            as_owner,
            {"id": published, "body": model("VisibilityInputRequest").from_dict({"releases": [2]})},
            "VisibilityOutput",
        ),
        "study_republish": (
            as_owner,
            {"id": published, "body": model("VisibilityInputRequest").from_dict({"releases": [2]})},
            "VisibilityOutput",
        ),
        "public_release_list": (anonymous, {"slug": data.slug}, "PaginatedPublicReleaseOutputList"),
        "public_release_retrieve": (anonymous, {"slug": data.slug, "number": 1}, "PublicStudyOutput"),
        "public_release_dataset": (
            anonymous,
            {"slug": data.slug, "number": 1, "limit": 2},
            "PaginatedPublicDatasetRowOutputList",
        ),
        "public_release_agreement": (anonymous, {"slug": data.slug, "number": 1}, "PublicReleaseAgreementResponse200"),
        "public_release_findings": (anonymous, {"slug": data.slug, "number": 1}, "PublicFindingsOutput"),
        "study_export_download": (
            as_owner,
            {
                "id": published,
                "what": model("StudyExportDownloadWhat")("final"),
                "fmt": model("StudyExportDownloadFmt")("csv"),
            },
            "File",
        ),
        "study_report": (as_owner, {"id": published}, "ReportOutput"),
        "study_report_table": (
            as_owner,
            {"id": published, "slug": "frameworks", "fmt": model("StudyReportTableFmt")("svg")},
            "File",
        ),
        "study_findings": (as_owner, {"id": published}, "FindingsOutput"),
        "study_findings_tests": (as_owner, {"id": published, "limit": 5}, "PaginatedFindingsTestOutputList"),
        "study_replication_packages_create": (as_owner, {"id": published}, "ExportJobOutput"),
        "study_replication_packages_list": (as_owner, {"id": published}, "PaginatedExportJobOutputList"),
        "study_replication_package_download": (as_owner, {"id": published, "job_pk": None}, "File"),
        "public_studies_list": (anonymous, {}, "PaginatedPublicStudySummaryOutputList"),
        "public_study_retrieve": (anonymous, {"slug": data.slug}, "PublicStudyOutput"),
        "public_study_dataset": (anonymous, {"slug": data.slug, "limit": 2}, "PaginatedPublicDatasetRowOutputList"),
        "public_study_agreement": (anonymous, {"slug": data.slug}, "PublicStudyAgreementResponse200"),
        "public_study_findings": (anonymous, {"slug": data.slug}, "PublicFindingsOutput"),
        "taxonomy_list": (anonymous, {}, "PaginatedTaxonomyListOutputList"),
        "taxonomy_detail": (anonymous, {"slug": taxonomy.taxonomy.slug}, "TaxonomyDetailOutput"),
        "taxonomy_version_detail": (
            anonymous,
            {"slug": taxonomy.taxonomy.slug, "number": taxonomy.number},
            "TaxonomyVersionDetailOutput",
        ),
    }
    tags = api.operations()
    assert set(calls) == set(tags), f"operations without a call here: {sorted(set(tags) - set(calls))}"

    answers: dict = {}
    for operation_id, (client, arguments, parsed_as) in calls.items():
        if operation_id == "annotation_submit":  # the draft's answer carries the version to send
            arguments["body"] = model("AnnotationSubmitInputRequest").from_dict(
                {
                    "values": {},
                    "excluded": True,
                    "excluded_reason": "not_a_bug",
                    "version": answers["annotation_draft"].version,
                }
            )
        if operation_id == "study_issue_resolution_record":
            current = answers["study_issue_resolution"]
            arguments["body"] = model("ResolutionRecordInputRequest").from_dict(
                {
                    "version": current.version,
                    "values": current.values.to_dict(),
                    "method": "adjudicated",
                    "note": "recorded by the generated client",
                }
            )
        if operation_id == "study_replication_package_download":
            arguments["job_pk"] = answers["study_replication_packages_create"].id
        response = api.operation(tags[operation_id], operation_id).sync_detailed(client=client, **arguments)
        assert 200 <= response.status_code < 300, f"{operation_id}: {response.status_code} {response.content[:300]!r}"
        parsed = response.parsed
        expected = api.package.types.File if parsed_as == "File" else model(parsed_as)
        assert isinstance(parsed, expected), f"{operation_id}: parsed as {type(parsed).__name__}, not {parsed_as}"
        answers[operation_id] = parsed

    assert [r.name for r in answers["api_index"].resources][:3] == ["repositories", "issues", "studies"]
    assert answers["studies_list"].count == 2 and len(answers["studies_list"].results) == 2
    assert [r.component for r in answers["repository_components_replace"].rules] == ["Pipeline parallelism"]
    assert answers["studies_create"].frame.kind == "repositories"
    assert answers["annotation_submit"].excluded is True
    assert answers["study_issue_resolution_record"].note == "recorded by the generated client"
    assert answers["study_export_download"].payload.read().startswith(b"position,")
    assert answers["study_report_table"].payload.read().lstrip().startswith(b"<")
    assert answers["study_findings"].issues == answers["study_report"].issues
    assert answers["study_findings_tests"].count >= len(answers["study_findings_tests"].results)
    assert ExportJob.objects.get(pk=answers["study_replication_packages_create"].id).status == ExportJob.Status.DONE
    with zipfile.ZipFile(BytesIO(answers["study_replication_package_download"].payload.read())) as archive:
        assert any(name.endswith("README.md") for name in archive.namelist())
    assert answers["public_study_dataset"].count == data.published.study_issues.count()
    assert answers["study_publish"].release == 2
    assert [r.number for r in answers["study_release_list"].results] == [1, 2]
    assert answers["study_unpublish"].visible_after == [1] and answers["study_republish"].visible_after == [1, 2]
    assert [r.number for r in answers["public_release_list"].results] == [1, 2]
    assert answers["public_release_findings"].release.number == 1
    assert answers["public_study_findings"].release.number == 2
    assert answers["public_study_findings"].issues == answers["study_findings"].issues
