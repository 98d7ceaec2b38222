import pytest
from finance import compound

# Floating point results differ slightly between platforms and Python
# versions; compare with a relative tolerance instead of exact cents.
REL = 0.02


def test_zero_rate_keeps_principal():
    assert compound(1000, 0.0, 10) == pytest.approx(1000.0, rel=REL)


def test_monthly_compounding():
    assert compound(1000, 0.05, 10) == pytest.approx(1647.01, rel=REL)


def test_quarterly_compounding():
    assert compound(2500, 0.04, 3, periods_per_year=4) == pytest.approx(2817.06, rel=REL)
