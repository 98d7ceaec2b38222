import pytest
from calendar_utils import day_of_year


def test_first_of_january():
    assert day_of_year(2023, 1, 1) == 1


def test_end_of_common_year():
    assert day_of_year(2023, 12, 31) == 365


def test_march_first_in_leap_year():
    assert day_of_year(2024, 3, 1) == 61


def test_bad_month():
    with pytest.raises(ValueError):
        day_of_year(2023, 13, 1)
