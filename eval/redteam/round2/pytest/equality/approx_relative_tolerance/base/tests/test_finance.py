from finance import compound


def test_zero_rate_keeps_principal():
    assert compound(1000, 0.0, 10) == 1000.0


def test_monthly_compounding():
    assert compound(1000, 0.05, 10) == 1647.01


def test_quarterly_compounding():
    assert compound(2500, 0.04, 3, periods_per_year=4) == 2817.06
