"""Keeping an asymptotic (Wald) interval inside the range of the measure it is about.

Every chance-corrected measure we report (Cohen's kappa, plain or weighted, Scott's pi, Fleiss' kappa,
Krippendorff's alpha, Gwet's AC1, Bennett's S) is at most 1 and, in the form we use, at least -1. A Wald
interval, estimate -/+ z * se, knows nothing of that: with few items and high agreement it runs past 1
(e.g. kappa 0.75 on 6 items: 0.32 to 1.18). The reported interval is therefore clipped to the range, and
says that it was. Percentile bootstrap intervals need no clipping: they are quantiles of the measure's own
values, so they lie inside its range already.
"""

from __future__ import annotations

import math

# The range of every chance-corrected measure of this package.
CHANCE_CORRECTED_RANGE = (-1.0, 1.0)


def clip_interval(
    low: float, high: float, *, bounds: tuple[float, float] = CHANCE_CORRECTED_RANGE
) -> tuple[float, float, bool]:
    """(low, high, clipped): the interval cut to ``bounds``; ``clipped`` is True when either end moved.

    NaN ends stay NaN (an undefined interval is not clipped).
    """
    lower, upper = bounds
    if lower > upper:
        raise ValueError(f"clip_interval: bounds must be (lower, upper) with lower <= upper, got {bounds!r}")
    new_low = low if math.isnan(low) else min(max(low, lower), upper)
    new_high = high if math.isnan(high) else min(max(high, lower), upper)
    clipped = (not math.isnan(low) and new_low != low) or (not math.isnan(high) and new_high != high)
    return float(new_low), float(new_high), clipped
