"""Exports of a study: the final dataset and per-rater labels (CSV, JSON, JSON Lines, streamed), the
taxonomy (JSON, CSV, Markdown codebook), and the replication package built in the background."""

from .access import LABELS, TAXONOMY, ExportAccess, export_access
from .context import ExportContext, export_context, study_export_dimensions
from .jobs import replication_package_build, replication_package_request
from .package import PACKAGE_FORMAT, replication_package_write
from .rows import (
    final_dataset_header,
    final_dataset_records,
    final_dataset_rows,
    rater_labels_header,
    rater_labels_records,
    rater_labels_rows,
)
from .streams import FORMATS, ExportStream, export_stream
from .taxonomy import version_template

__all__ = [
    "FORMATS",
    "LABELS",
    "PACKAGE_FORMAT",
    "TAXONOMY",
    "ExportAccess",
    "ExportContext",
    "ExportStream",
    "export_access",
    "export_context",
    "export_stream",
    "final_dataset_header",
    "final_dataset_records",
    "final_dataset_rows",
    "rater_labels_header",
    "rater_labels_records",
    "rater_labels_rows",
    "replication_package_build",
    "replication_package_request",
    "replication_package_write",
    "study_export_dimensions",
    "version_template",
]
