"""SHA-256 checksums of a replication package, in the format ``sha256sum -c`` checks.

Pure Python, no Django.
"""

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

CHUNK_SIZE = 1 << 16


def sha256_file(path: str | os.PathLike[str], *, chunk_size: int = CHUNK_SIZE) -> str:
    """The hex SHA-256 of a file, read in chunks so that large files do not fill memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def _manifest_line(digest: str, name: str) -> str:
    # GNU sha256sum's convention: a name holding a backslash or a line break is escaped and the line starts
    # with a backslash, so that every entry stays on one line and the file still checks.
    if any(char in name for char in "\\\n\r"):
        escaped = name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
        return f"\\{digest}  {escaped}\n"
    return f"{digest}  {name}\n"


def _files(paths: Iterable[str | os.PathLike[str]], root: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for given in paths:
        path = Path(given)
        if not path.is_absolute():
            path = root / path
        candidates = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for candidate in candidates:
            if not candidate.is_file():
                raise FileNotFoundError(f"{candidate} is not a file; list only files or folders that exist.")
            try:
                relative = candidate.resolve().relative_to(root.resolve())
            except ValueError:
                raise ValueError(f"{candidate} is outside {root}; a manifest lists only the files under it.") from None
            found[relative.as_posix()] = candidate
    return found


def checksums_manifest(paths: Iterable[str | os.PathLike[str]], root: str | os.PathLike[str]) -> str:
    """A ``sha256sum`` manifest: ``<hex>  <path relative to root>`` per file, sorted by path.

    ``paths`` may be absolute or relative to ``root``; a folder stands for every file under it. Sorting makes
    the manifest of the same files byte-identical whatever order they were listed in.
    """
    files = _files(paths, Path(root))
    return "".join(_manifest_line(sha256_file(files[name]), name) for name in sorted(files))
