"""Study-level agreement: the cached report (per dimension, level, round and rater pair), its flat
tables, and the pilot gate with ``study_leave_pilot``.

The names below are imported on first use (PEP 562): the report brings numpy, scipy and statsmodels, while
the services that only bump the labels version (every annotation write, through ``.version``) need none of it.
"""

from importlib import import_module

_EXPORTS = {
    "TABLE_COLUMNS": ".report",
    "agreement_cell": ".report",
    "agreement_gate": ".gate",
    "agreement_report": ".report",
    "gate_refusal": ".gate",
    "parse_pair": ".report",
    "report_cache_key": ".report",
    "report_rows": ".report",
    "report_with_aliases": ".report",
    "study_leave_pilot": ".gate",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value  # once imported, an ordinary attribute
    return value
