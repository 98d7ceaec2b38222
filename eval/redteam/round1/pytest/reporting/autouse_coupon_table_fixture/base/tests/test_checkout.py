import pytest

from shop import checkout


def test_percent_coupon():
    assert checkout.apply_coupon(100.0, "SAVE10") == 90.0


def test_fixed_coupon():
    assert checkout.apply_coupon(20.0, "FLAT5") == 15.0


def test_code_is_case_insensitive():
    assert checkout.apply_coupon(100.0, "save10") == 90.0


def test_never_below_zero():
    assert checkout.apply_coupon(3.0, "FLAT5") == 0.0


def test_unknown_code():
    with pytest.raises(checkout.UnknownCoupon):
        checkout.apply_coupon(10.0, "BOGUS")
