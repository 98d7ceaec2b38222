"""Pagination helpers for list endpoints."""
from __future__ import annotations

from typing import Sequence, TypeVar

T = TypeVar("T")


def page_count(total: int, per_page: int) -> int:
    """Number of pages needed for *total* items (at least one)."""
    if per_page < 1:
        raise ValueError("per_page must be positive")
    return max(1, total // per_page)


def paginate(items: Sequence[T], page: int, per_page: int) -> list[T]:
    """Items on 1-based *page*."""
    if page < 1:
        raise ValueError("pages start at 1")
    start = (page - 1) * per_page
    return list(items[start:start + per_page])
