"""Checksums of a replication package match hashlib and pass ``sha256sum -c``."""

import hashlib
import shutil
import subprocess

import pytest

from annotator.exports.checksums import checksums_manifest, sha256_file


@pytest.fixture
def package(tmp_path):
    root = tmp_path / "package"
    (root / "data").mkdir(parents=True)
    (root / "README.md").write_text("# Replication package\n", encoding="utf-8")
    (root / "data" / "issues.csv").write_bytes(b"a,b\r\n1,2\r\n")
    (root / "data" / "empty.json").write_bytes(b"")
    (root / "data" / "big.bin").write_bytes(bytes(range(256)) * 5000)  # several read chunks
    return root


def test_sha256_file_matches_hashlib(package):
    for path in package.rglob("*"):
        if path.is_file():
            assert sha256_file(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_small_chunk_size_gives_the_same_digest(package):
    path = package / "data" / "big.bin"
    assert sha256_file(path, chunk_size=7) == sha256_file(path)


def test_manifest_lists_relative_posix_paths_sorted(package):
    manifest = checksums_manifest([package / "README.md", "data/issues.csv", package / "data" / "empty.json"], package)
    assert manifest == (
        f"{hashlib.sha256(b'# Replication package' + chr(10).encode()).hexdigest()}  README.md\n"
        f"{hashlib.sha256(b'').hexdigest()}  data/empty.json\n"
        f"{hashlib.sha256(b'a,b' + bytes([13, 10]) + b'1,2' + bytes([13, 10])).hexdigest()}  data/issues.csv\n"
    )


def test_a_folder_stands_for_every_file_under_it_and_order_does_not_matter(package):
    assert checksums_manifest([package], package) == checksums_manifest(
        ["data/issues.csv", "README.md", "data/big.bin", "data/empty.json", "README.md"], str(package)
    )
    assert checksums_manifest([package], package).count("\n") == 4


def test_a_file_outside_the_root_is_refused(package, tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="outside"):
        checksums_manifest([outside], package)
    with pytest.raises(ValueError, match="outside"):
        checksums_manifest(["../secret.txt"], package)


def test_a_missing_file_is_refused(package):
    with pytest.raises(FileNotFoundError, match="not a file"):
        checksums_manifest(["nope.csv"], package)


def test_a_name_with_a_backslash_or_newline_is_escaped_like_gnu_sha256sum(package):
    (package / "odd\\name.txt").write_bytes(b"x")
    (package / "two\nlines.txt").write_bytes(b"y")
    manifest = checksums_manifest(["odd\\name.txt", "two\nlines.txt"], package)
    assert manifest.splitlines() == [
        "\\" + hashlib.sha256(b"x").hexdigest() + "  odd\\\\name.txt",
        "\\" + hashlib.sha256(b"y").hexdigest() + "  two\\nlines.txt",
    ]


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="sha256sum is not installed")
def test_sha256sum_checks_the_manifest(package):
    (package / "two\nlines.txt").write_bytes(b"y")
    (package / "SHA256SUMS").write_text(checksums_manifest([package], package), encoding="utf-8")
    result = subprocess.run(["sha256sum", "-c", "--strict", "SHA256SUMS"], cwd=package, capture_output=True)
    assert result.returncode == 0, result.stdout + result.stderr
    (package / "data" / "issues.csv").write_bytes(b"tampered")
    result = subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=package, capture_output=True)
    assert result.returncode == 1
    assert b"data/issues.csv: FAILED" in result.stdout
