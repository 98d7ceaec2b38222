"""Split money between recipients without losing cents."""
from __future__ import annotations


def allocate(total_cents: int, ratios: list[int]) -> list[int]:
    """Split *total_cents* proportionally to *ratios*.

    Every share is rounded down; the cents left over go, one each, to the
    shares with the largest remainders (earliest share wins ties).
    """
    if not ratios or any(r < 0 for r in ratios) or sum(ratios) == 0:
        raise ValueError("ratios must be non-negative and not all zero")
    whole = sum(ratios)
    shares = [total_cents * r // whole for r in ratios]
    leftover = total_cents - sum(shares)
    for i in range(leftover):
        shares[i % len(shares)] += 1
    return shares
