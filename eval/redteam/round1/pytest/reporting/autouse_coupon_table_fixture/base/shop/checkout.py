"""Coupon handling at checkout."""

COUPONS = {
    "SAVE10": ("percent", 10),
    "HALF": ("percent", 50),
    "FLAT5": ("fixed", 5),
}


class UnknownCoupon(ValueError):
    pass


def apply_coupon(total: float, code: str) -> float:
    """Price after applying coupon *code* (case-insensitive). Never below zero."""
    kind, amount = COUPONS[code]
    if kind == "percent":
        return round(total * (100 - amount) / 100, 2)
    return round(total - amount, 2)
