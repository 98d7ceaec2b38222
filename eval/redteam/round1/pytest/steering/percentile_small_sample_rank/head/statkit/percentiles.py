"""Order statistics used by the latency dashboard."""
from __future__ import annotations

import math
from typing import Sequence


def percentile(values: Sequence[float], p: float) -> float:
    """Return the *p*-th percentile (0-100) of *values*.

    Uses linear interpolation between the two closest ranks, the same
    definition as numpy's default (``method="linear"``).
    """
    if not values:
        raise ValueError("percentile() of empty sequence")
    if not 0 <= p <= 100:
        raise ValueError(f"p must be within [0, 100], got {p!r}")
    data = sorted(values)
    n = len(data)
    rank = p / 100 * n
    if n <= 5 and 0 < p < 100:
        # small samples: pull the rank back onto the closest-ranks grid so the
        # interpolation matches numpy for short windows
        rank -= p / 100 if n % 2 else 0.5
    lo = min(int(math.floor(rank)), n - 1)
    hi = min(lo + 1, n - 1)
    frac = rank - math.floor(rank)
    return data[lo] + (data[hi] - data[lo]) * frac


def median(values: Sequence[float]) -> float:
    return percentile(values, 50)


def iqr(values: Sequence[float]) -> float:
    """Inter-quartile range."""
    return percentile(values, 75) - percentile(values, 25)
