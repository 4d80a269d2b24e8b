"""Reading zip archives from outside (replication packages, .xlsx workbooks) within limits. Pure: no Django.

A zip states each entry's uncompressed size in its central directory, and ``zipfile`` never decompresses
more than that (an entry that expands further fails its CRC check), so checking the stated sizes before
reading bounds the work: a small archive that would expand to gigabytes is refused before anything is read.
"""

import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO


class ArchiveTooLarge(ValueError):
    """An archive beyond the configured limits; the message says which limit and what to do."""


@dataclass(frozen=True, slots=True)
class ArchiveLimits:
    max_total_bytes: int  # all entries together, uncompressed
    max_entry_bytes: int  # any one entry, uncompressed
    max_entries: int


def format_bytes(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def archive_check(archive: zipfile.ZipFile, limits: ArchiveLimits, *, name: str) -> None:
    """Refuse an archive with too many entries or entries that expand beyond the limits."""
    entries = archive.infolist()
    if len(entries) > limits.max_entries:
        raise ArchiveTooLarge(f"{name} holds {len(entries)} files; at most {limits.max_entries} are read.")
    total = 0
    for entry in entries:
        if entry.file_size > limits.max_entry_bytes:
            raise ArchiveTooLarge(
                f"{name}: {entry.filename} expands to {format_bytes(entry.file_size)}; "
                f"at most {format_bytes(limits.max_entry_bytes)} per file is read."
            )
        total += entry.file_size
    if total > limits.max_total_bytes:
        raise ArchiveTooLarge(
            f"{name} expands to {format_bytes(total)}; at most {format_bytes(limits.max_total_bytes)} is read."
        )


def bounded_lines(handle: IO[bytes], *, max_line_bytes: int, name: str) -> Iterator[tuple[int, bytes]]:
    """(line number, line) from a binary stream, one line in memory at a time, none longer than the limit."""
    number = 0
    while line := handle.readline(max_line_bytes + 1):
        number += 1
        if len(line) > max_line_bytes and not line.endswith(b"\n"):
            raise ArchiveTooLarge(
                f"{name} line {number} is longer than {format_bytes(max_line_bytes)}; no record is that long."
            )
        yield number, line
