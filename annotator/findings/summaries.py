"""Five numbers and a share for a list of fix measures (lines changed, hours to fix): pure Python.

Quartiles interpolate linearly between order statistics (R's default type 7, numpy's "linear"), so the
figures match what a reader gets in R or pandas from the replication package's tidy CSV.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass

SMALL_FIX_LOC = 10  # "minimal code changes": the <= 10 lines threshold of Yu et al. (arXiv 2506.10426)


@dataclass(frozen=True, slots=True)
class Summary:
    n: int
    median: float | None
    q1: float | None
    q3: float | None
    minimum: float | None
    maximum: float | None

    @property
    def iqr(self) -> float | None:
        return None if self.q1 is None or self.q3 is None else self.q3 - self.q1


def quantile(ordered: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of an ascending, non-empty list, interpolated linearly (type 7)."""
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def known(values: Iterable[float | None]) -> list[float]:
    """The values that are there: no None, no NaN."""
    return [float(v) for v in values if v is not None and v == v]  # NaN is the one value unequal to itself


def summarise(values: Iterable[float | None]) -> Summary:
    ordered = sorted(known(values))
    if not ordered:
        return Summary(0, None, None, None, None, None)
    return Summary(
        len(ordered),
        quantile(ordered, 0.5),
        quantile(ordered, 0.25),
        quantile(ordered, 0.75),
        ordered[0],
        ordered[-1],
    )


def share_at_most(values: Iterable[float | None], limit: float = SMALL_FIX_LOC) -> float | None:
    """The percentage of the known values that are at most ``limit``; None when there is none."""
    present = known(values)
    if not present:
        return None
    return 100.0 * sum(1 for v in present if v <= limit) / len(present)
