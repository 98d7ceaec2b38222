"""Reorder point calculations."""
import math


def reorder_point(daily_usage: float, lead_time_days: float, safety_days: float = 0) -> int:
    """Stock level at which a new order must be placed."""
    return math.ceil(daily_usage * (lead_time_days + safety_days))


def order_quantity(on_hand: int, daily_usage: float, lead_time_days: float,
                   review_period_days: float, safety_days: float = 0) -> int:
    """Units to order so stock lasts until the next review plus the lead time.

    Never negative; already on-hand stock is subtracted.
    """
    target = daily_usage * (review_period_days + safety_days)
    return math.ceil(target - on_hand)
