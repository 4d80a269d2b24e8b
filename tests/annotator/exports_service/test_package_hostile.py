"""A replication package is untrusted: no value becomes a path, every field is checked before anything is
written, and decompression is bounded (files built here, from a real package, with valid checksums)."""

import hashlib
import json
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotator.models import Annotation, Issue, Study
from annotator.services.exports import replication_package_write
from annotator.services.exports.importing import PackageError, study_export_import
from taxonomy.models import Taxonomy, TaxonomyVersion

ROOT = "copy-replication/"


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def files(world, tmp_path) -> dict[str, bytes]:
    target = tmp_path / "package.zip"
    replication_package_write(study=world.study, target=target)
    with zipfile.ZipFile(target) as archive:
        root = archive.namelist()[0].split("/")[0] + "/"
        return {name.removeprefix(root): archive.read(name) for name in archive.namelist()}


def repack(files: dict[str, bytes], target: Path, changes: dict[str, bytes] | None = None) -> Path:
    """The package with some files replaced and SHA256SUMS written again, as an attacker would."""
    contents = {**files, **(changes or {})}
    contents.pop("SHA256SUMS")
    manifest = "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(contents.items()))
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in contents.items():
            archive.writestr(ROOT + name, data)
        archive.writestr(ROOT + "SHA256SUMS", manifest)
    return target


def edit_study(files: dict[str, bytes], **fields) -> bytes:
    record = json.loads(files["study.json"])
    for key, value in fields.items():
        if isinstance(value, dict) and isinstance(record.get(key), dict):
            record[key] = {**record[key], **value}
        else:
            record[key] = value
    return json.dumps(record).encode()


def edit_jsonl(data: bytes, line: int, **fields) -> bytes:
    records = [json.loads(text) for text in data.decode().splitlines()]
    records[line - 1].update(fields)
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def state() -> tuple:
    return (
        Study.objects.count(),
        Taxonomy.objects.count(),
        TaxonomyVersion.objects.count(),
        Issue.objects.count(),
        Annotation.objects.count(),
    )


@pytest.mark.parametrize("slug", ["/ABSOLUTE/evil", "../../evil", "evil/../../x"])
def test_a_taxonomy_slug_never_becomes_a_path(files, tmp_path, slug):
    absolute = slug.replace("/ABSOLUTE", str(tmp_path))
    package = repack(files, tmp_path / "evil.zip", {"study.json": edit_study(files, taxonomy={"slug": absolute})})
    before = state()
    with pytest.raises(PackageError) as caught:
        study_export_import(path=package, name="Evil copy")
    assert "study.json: $.taxonomy.slug" in caught.value.message
    assert not (tmp_path / "evil.json").exists()
    assert not list(tmp_path.parent.glob("*.json")) and not list(Path("/tmp").glob("evil*.json"))
    assert state() == before


def test_a_taxonomy_is_loaded_from_the_package_content_not_a_file(files, tmp_path):
    """The taxonomy's slug comes from taxonomy.json (itself checked) and must agree with study.json."""
    template = json.loads(files["taxonomy/taxonomy.json"])
    template["slug"] = "../escape"
    package = repack(files, tmp_path / "p.zip", {"taxonomy/taxonomy.json": json.dumps(template).encode()})
    before = state()
    with pytest.raises(PackageError) as caught:
        study_export_import(path=package, name="Copy")
    assert "taxonomy/taxonomy.json: $.slug" in caught.value.message
    assert state() == before


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"raters_per_issue": "two"}, "study.json: $.raters_per_issue: 'two' is not of type 'integer'"),
        ({"phase": "finished"}, "study.json: $.phase"),
        ({"name": "x" * 300}, "study.json: $.name"),
        ({"raters": ["../../R1"]}, "study.json: $.raters[0]"),
        ({"rounds": [{"number": 1, "seed": 2**70}]}, "study.json: $.rounds[0].seed"),
        ({"guidelines": "nul \x00 here"}, "study.json: $.guidelines: contains a NUL character"),
        ({"dimensions": ["no_such_dimension"]}, "study.json: $.dimensions[0]: no dimension 'no_such_dimension'"),
        ({"unexpected": 1}, "study.json: $: unknown field"),
    ],
)
def test_every_field_of_study_json_is_checked_before_anything_is_written(files, tmp_path, change, where):
    package = repack(files, tmp_path / "p.zip", {"study.json": edit_study(files, **change)})
    before = state()
    with pytest.raises(PackageError) as caught:
        study_export_import(path=package, name="Copy")
    assert where in caught.value.message
    assert state() == before


@pytest.mark.parametrize(
    ("name", "change", "where"),
    [
        ("data/labels.jsonl", {"confidence": 7}, "data/labels.jsonl line 1: $.confidence"),
        ("data/labels.jsonl", {"note": "\ud800"}, "data/labels.jsonl line 1: $.note"),
        ("data/labels.jsonl", {"rater": "R9"}, "data/labels.jsonl line 1: $.rater: 'R9' is not among"),
        ("data/labels.jsonl", {"labels": {"symptom": ["nope"]}}, "line 1: $.labels.symptom: no category with code"),
        ("data/labels.jsonl", {"submitted_at": "0001-01-01T00:00:00+05:00"}, "line 1: $.submitted_at"),
        ("data/labels.jsonl", {"time_spent_seconds": 2**40}, "line 1: $.time_spent_seconds"),
        ("data/issues.jsonl", {"title": 5}, "data/issues.jsonl line 1: $.title"),
        ("data/issues.jsonl", {"html_url": "file:///etc/passwd"}, "data/issues.jsonl line 1: $.html_url"),
        ("data/sample.jsonl", {"round": 99}, "data/sample.jsonl line 1: $.round: round 99 is not in study.json"),
        ("data/final_labels.jsonl", {"method": "coin toss"}, "data/final_labels.jsonl line 1: $.method"),
    ],
)
def test_every_record_is_checked_and_named_by_file_line_and_field(files, tmp_path, name, change, where):
    data = edit_jsonl(files[name], 1, **change)
    package = repack(files, tmp_path / "p.zip", {name: data})
    before = state()
    with pytest.raises(PackageError) as caught:
        study_export_import(path=package, name="Copy")
    assert where in caught.value.message
    assert state() == before


def test_nan_and_deep_nesting_are_refused_with_the_line(files, tmp_path):
    labels = files["data/labels.jsonl"].replace(b'"confidence": null', b'"confidence": NaN', 1)
    labels = labels if labels != files["data/labels.jsonl"] else b'{"confidence": NaN}\n' + labels
    package = repack(files, tmp_path / "nan.zip", {"data/labels.jsonl": labels})
    with pytest.raises(PackageError, match=r"data/labels.jsonl line 1 is NaN is not a number"):
        study_export_import(path=package, name="Copy")
    deep = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    package = repack(files, tmp_path / "deep.zip", {"data/sample.jsonl": deep})
    with pytest.raises(PackageError, match=r"data/sample.jsonl line 1 is nested too deeply"):
        study_export_import(path=package, name="Copy")


def test_a_reference_that_does_not_hold_rolls_everything_back(files, tmp_path):
    """Checked while writing, inside the one transaction: nothing of the import stays."""
    sample = edit_jsonl(files["data/sample.jsonl"], 2, issue_url="https://github.com/no/such/issues/1")
    package = repack(files, tmp_path / "p.zip", {"data/sample.jsonl": sample})
    before = state()
    with pytest.raises(PackageError, match=r"names issues missing from data/issues\.jsonl"):
        study_export_import(path=package, name="Copy")
    assert state() == before


def test_the_command_reports_a_hostile_package_without_a_traceback(files, tmp_path):
    package = repack(files, tmp_path / "p.zip", {"study.json": edit_study(files, taxonomy={"slug": "../../x"})})
    with pytest.raises(CommandError, match=r"study.json: \$.taxonomy.slug"):
        call_command("import_study_export", str(package), "--name", "Copy")


# --- bounded decompression ------------------------------------------------------------------------------


def _bomb(files: dict[str, bytes], target: Path, *, size: int, newlines: bool) -> Path:
    """A package whose issues.jsonl expands to ``size`` bytes from a few hundred kilobytes (checksums valid)."""
    chunk = (b" " * 1023 + b"\n" if newlines else b" " * 1024) * 1024
    digest = hashlib.sha256()
    for _ in range(size // len(chunk)):
        digest.update(chunk)
    contents = {name: data for name, data in files.items() if name not in ("data/issues.jsonl", "SHA256SUMS")}
    manifest = {name: hashlib.sha256(data).hexdigest() for name, data in contents.items()}
    manifest["data/issues.jsonl"] = digest.hexdigest()
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in contents.items():
            archive.writestr(ROOT + name, data)
        archive.writestr(ROOT + "SHA256SUMS", "".join(f"{d}  {n}\n" for n, d in sorted(manifest.items())))
        with archive.open(ROOT + "data/issues.jsonl", "w", force_zip64=True) as handle:
            for _ in range(size // len(chunk)):
                handle.write(chunk)
    return target


def refused_with_peak(package: Path) -> tuple[str, int]:
    """Import a package that must be refused: (the message, the peak of traced memory in bytes)."""
    tracemalloc.start()
    try:
        with pytest.raises(PackageError) as caught:
            study_export_import(path=package, name="Copy")
        return caught.value.message, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_package_that_expands_beyond_the_limit_is_refused_before_reading(files, tmp_path, settings):
    settings.PACKAGE_MAX_ENTRY_BYTES = 16 << 20
    package = _bomb(files, tmp_path / "bomb.zip", size=128 << 20, newlines=True)
    assert package.stat().st_size < 2 << 20
    before = state()
    message, peak = refused_with_peak(package)
    assert "data/issues.jsonl expands to 128.0 MiB; at most 16.0 MiB per file is read" in message
    assert peak < 4 << 20, f"peak {peak} bytes"
    assert state() == before


def test_a_package_with_too_many_files_or_too_much_in_all_is_refused(files, tmp_path, settings):
    package = repack(files, tmp_path / "p.zip")
    settings.PACKAGE_MAX_ENTRIES = 5
    with pytest.raises(PackageError, match="holds 15 files; at most 5 are read"):
        study_export_import(path=package, name="Copy")
    settings.PACKAGE_MAX_ENTRIES = 100
    settings.PACKAGE_MAX_UNCOMPRESSED_BYTES = 1000
    with pytest.raises(PackageError, match="at most 1000 bytes is read"):
        study_export_import(path=package, name="Copy")


def test_a_huge_line_within_the_limits_is_streamed_and_refused_with_memory_bounded(files, tmp_path):
    """issues.jsonl is read line by line from the zip stream, never whole, and no line may be huge."""
    package = _bomb(files, tmp_path / "line.zip", size=64 << 20, newlines=False)
    message, peak = refused_with_peak(package)
    assert "data/issues.jsonl line 1 is longer than 4.0 MiB" in message
    assert peak < 24 << 20, f"peak {peak} bytes"


def test_a_package_stating_a_false_size_ends_as_damaged(files, tmp_path):
    """zipfile never decompresses past the stated size; the entry then fails its CRC check."""
    package = repack(files, tmp_path / "p.zip")
    data = bytearray(package.read_bytes())
    name = (ROOT + "data/issues.jsonl").encode()
    central = data.find(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(name)] != name:  # the file's central directory record
        central = data.find(b"PK\x01\x02", central + 4)
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")  # its uncompressed size: 10 bytes
    package.write_bytes(bytes(data))
    with pytest.raises(PackageError, match="damaged"):
        study_export_import(path=package, name="Copy")


def test_a_file_that_is_not_a_zip_is_refused(tmp_path, db):
    path = tmp_path / "not.zip"
    path.write_bytes(b"hello")
    with pytest.raises(PackageError, match="not a readable zip"):
        study_export_import(path=path)
