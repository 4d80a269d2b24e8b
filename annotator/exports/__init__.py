"""Building blocks of the exports: safe CSV, streamed JSON, LaTeX tables, the codebook, SVG charts,
checksums and rater pseudonyms. Pure Python, no Django: the export services and views stream what these
generators yield.
"""

from .charts import bar_chart_svg, stacked_bar_svg
from .checksums import checksums_manifest, sha256_file
from .codebook import TAXONOMY_CSV_HEADER, markdown_codebook, taxonomy_csv_rows
from .jsonl import json_array_chunks, json_document_chunks, jsonl_lines
from .latex import Percent, booktabs_table, latex_escape
from .pseudonyms import pseudonymise, redact
from .safe_csv import csv_rows, safe_cell

__all__ = [
    "TAXONOMY_CSV_HEADER",
    "Percent",
    "bar_chart_svg",
    "booktabs_table",
    "checksums_manifest",
    "csv_rows",
    "json_array_chunks",
    "json_document_chunks",
    "jsonl_lines",
    "latex_escape",
    "markdown_codebook",
    "pseudonymise",
    "redact",
    "safe_cell",
    "sha256_file",
    "stacked_bar_svg",
    "taxonomy_csv_rows",
]
