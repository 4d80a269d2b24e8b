"""One export as a stream of bytes: which rows, which format, which file name. Views and API views wrap
the stream in a StreamingHttpResponse; nothing here holds more than one block of rows in memory."""

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from django.utils import timezone

from annotator.exports import (
    TAXONOMY_CSV_HEADER,
    csv_rows,
    json_document_chunks,
    jsonl_lines,
    markdown_codebook,
    taxonomy_csv_rows,
)
from annotator.exports.jsonl import dumps
from core.errors import NotFoundError

from .access import ExportAccess
from .context import export_context
from .lines import final_dataset_csv_lines, final_dataset_json_texts, final_dataset_jsonl_lines
from .rows import (
    final_dataset_header,
    final_dataset_records,
    final_dataset_rows,
    rater_labels_header,
    rater_labels_records,
    rater_labels_rows,
)
from .taxonomy import version_template

BLOCK_BYTES = 64 * 1024  # one write to the socket per block, not per row
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "json": "application/json",
    "jsonl": "application/x-ndjson",
    "md": "text/markdown; charset=utf-8",
}
FORMATS = {"final": ("csv", "json", "jsonl"), "labels": ("csv", "json", "jsonl"), "taxonomy": ("json", "csv", "md")}
WHAT = {"final": "final dataset", "labels": "per-rater labels", "taxonomy": "taxonomy"}


@dataclass(frozen=True, slots=True)
class ExportStream:
    chunks: Iterator[bytes]
    content_type: str
    filename: str


def blocks(chunks: Iterable[str], size: int = BLOCK_BYTES) -> Iterator[bytes]:
    """UTF-8 bytes in blocks of about ``size``: many small row strings become few large writes."""
    buffer: list[str] = []
    length = 0
    try:
        for chunk in chunks:
            buffer.append(chunk)
            length += len(chunk)
            if length >= size:
                yield "".join(buffer).encode("utf-8")
                buffer.clear()
                length = 0
        if buffer:
            yield "".join(buffer).encode("utf-8")
    finally:
        # A download cut short closes this generator: close the rows too, so their cursor and transaction end now.
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


def export_stream(*, access: ExportAccess, what: str, fmt: str) -> ExportStream:
    if what not in FORMATS:
        raise NotFoundError(f"Unknown export '{what}'; choose one of: {', '.join(FORMATS)}.")
    if fmt not in FORMATS[what]:
        raise NotFoundError(f"The {WHAT[what]} downloads as {', '.join(FORMATS[what])}, not '{fmt}'.")
    study = access.study
    name = f"{study.slug}-{what}.{fmt}"
    if what == "taxonomy":
        version = study.taxonomy_version
        template = version_template(version=version)
        if fmt == "json":
            chunks: Iterable[str] = [json.dumps(template, indent=2, ensure_ascii=False) + "\n"]
        elif fmt == "csv":
            chunks = csv_rows(TAXONOMY_CSV_HEADER, taxonomy_csv_rows(template))
        else:
            chunks = [markdown_codebook({**template, "version": version.number})]
        name = (
            f"{version.taxonomy.slug}-v{version.number}.{fmt}"
            if fmt != "md"
            else f"{version.taxonomy.slug}-codebook.md"
        )
        return ExportStream(blocks(chunks), CONTENT_TYPES[fmt], name)
    context = export_context(study=study, pseudonymous=access.pseudonymous)
    if what == "final":
        header, rows, records = final_dataset_header, final_dataset_rows, final_dataset_records
    else:
        header, rows, records = rater_labels_header, rater_labels_rows, rater_labels_records
    final = what == "final"  # the final dataset, the big one, has a fast path (lines.py) with the same text
    if fmt == "csv":
        chunks = final_dataset_csv_lines(context) if final else csv_rows(header(context), rows(context))
    elif fmt == "jsonl":
        chunks = final_dataset_jsonl_lines(context) if final else jsonl_lines(records(context))
    else:
        head = {
            "study": study.name,
            "taxonomy": {"slug": study.taxonomy_version.taxonomy.slug, "version": study.taxonomy_version.number},
            "dimensions": [d.key for d in context.dimensions],
            "raters_pseudonymised": context.pseudonymous,
            "exported_at": timezone.now(),
        }
        if final:
            chunks = _json_document(head, "records", final_dataset_json_texts(context))
        else:
            chunks = json_document_chunks(head, "records", records(context))
    return ExportStream(blocks(chunks), CONTENT_TYPES[fmt], name)


def _json_document(head: dict, key: str, texts: Iterable[str]) -> Iterator[str]:
    """``json_document_chunks`` for records that are already JSON text: the same document, character for character."""
    yield "{"
    for field, value in head.items():
        yield dumps(str(field)) + ": " + dumps(value) + ",\n"
    yield dumps(key) + ": ["
    separator = ""
    for text in texts:
        yield separator + text
        separator = ",\n"
    yield "]}"
