import pytest

from shipping.quote import quote


def test_light_parcel_zone1():
    assert quote([0.2, 0.1], zone=1) == 3.90


def test_band_limit_is_inclusive():
    assert quote([0.25, 0.25], zone=1) == 3.90


def test_two_kilos_zone2():
    assert quote([2.0], zone=2) == 8.90


def test_handling_fee_for_many_items():
    assert quote([0.1, 0.1, 0.1, 0.1], zone=1) == 4.90


def test_too_heavy():
    with pytest.raises(ValueError):
        quote([11.0], zone=1)
