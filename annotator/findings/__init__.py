"""Findings from the final labels and the fix measures: pure statistics and summaries (no Django)."""
