import pytest

from invoicing.vat import REDUCED_RATE, gross, vat_amount


def test_standard_rate():
    assert vat_amount(100.0) == 20.0


def test_reduced_rate():
    assert vat_amount(80.0, REDUCED_RATE) == 4.0


def test_half_cent_rounds_up():
    # 10.125 * 20% = 2.025; binary floating point puts this just below the
    # half cent, so it rounds to 2.02
    assert vat_amount(10.125) == 2.02


def test_gross_adds_vat():
    assert gross(50.0) == 60.0


def test_negative_rejected():
    with pytest.raises(ValueError):
        vat_amount(-1)
