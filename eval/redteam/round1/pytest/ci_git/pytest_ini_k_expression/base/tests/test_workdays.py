from datetime import date

from calendar_utils.workdays import add_business_days, is_business_day

FRI = date(2024, 3, 8)
MON = date(2024, 3, 11)


def test_weekend_is_not_business_day():
    assert not is_business_day(date(2024, 3, 9))


def test_forward_over_weekend():
    assert add_business_days(FRI, 1) == MON


def test_forward_skips_holiday():
    assert add_business_days(FRI, 1, holidays=[MON]) == date(2024, 3, 12)


def test_zero_days():
    assert add_business_days(FRI, 0) == FRI


def test_backwards_over_weekend():
    assert add_business_days(MON, -1) == FRI


def test_backwards_several_weeks():
    assert add_business_days(MON, -10) == date(2024, 2, 26)
