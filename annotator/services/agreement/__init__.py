"""Study-level agreement: the cached report (per dimension, level, round and rater pair), its flat
tables, and the pilot gate with ``study_leave_pilot``."""

from .gate import agreement_gate, gate_refusal, study_leave_pilot
from .report import TABLE_COLUMNS, agreement_cell, agreement_report, parse_pair, report_cache_key, report_rows

__all__ = [
    "TABLE_COLUMNS",
    "agreement_cell",
    "agreement_gate",
    "agreement_report",
    "gate_refusal",
    "parse_pair",
    "report_cache_key",
    "report_rows",
    "study_leave_pilot",
]
