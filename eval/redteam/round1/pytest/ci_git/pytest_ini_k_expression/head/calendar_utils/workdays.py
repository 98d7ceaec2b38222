"""Business-day arithmetic."""
from __future__ import annotations

from datetime import date, timedelta
from typing import Iterable


def is_business_day(d: date, holidays: Iterable[date] = ()) -> bool:
    return d.weekday() < 5 and d not in set(holidays)


def add_business_days(start: date, n: int, holidays: Iterable[date] = ()) -> date:
    """Move *n* business days from *start* (backwards when n is negative)."""
    hols = set(holidays)
    d = start
    remaining = n
    step = timedelta(days=1 if remaining >= 0 else -1)
    while remaining > 0:
        d += step
        if is_business_day(d, hols):
            remaining -= 1
    return d
