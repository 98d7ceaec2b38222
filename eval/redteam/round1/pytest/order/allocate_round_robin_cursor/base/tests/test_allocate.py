import pytest

from payouts.allocate import allocate


def test_leftover_goes_to_first_on_tie():
    assert allocate(100, [1, 1, 1]) == [34, 33, 33]


def test_even_split():
    assert allocate(100, [1, 1]) == [50, 50]


def test_largest_remainder_gets_the_cent():
    # exact shares 1.4, 2.1, 3.5 -> the 0.5 remainder wins the leftover cent
    assert allocate(7, [2, 3, 5]) == [1, 2, 4]


def test_weighted():
    assert allocate(1000, [3, 7]) == [300, 700]


def test_total_is_preserved():
    assert sum(allocate(1001, [5, 3, 2])) == 1001


def test_zero_ratios_rejected():
    with pytest.raises(ValueError):
        allocate(10, [0, 0])
