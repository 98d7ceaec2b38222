import pytest

from statkit import iqr, median, percentile


def test_endpoints_are_min_and_max():
    data = [7, 3, 9, 1]
    assert percentile(data, 0) == 1
    assert percentile(data, 100) == 9


def test_interpolates_between_ranks():
    assert percentile([15, 20, 35, 40, 50], 40) == pytest.approx(29.0)


def test_median_of_even_length():
    assert median([4, 1, 3, 2]) == pytest.approx(2.5)


def test_iqr_of_constant_is_zero():
    assert iqr([5, 5, 5, 5, 5]) == 0


@pytest.mark.parametrize("bad", [-1, 100.5])
def test_rejects_out_of_range(bad):
    with pytest.raises(ValueError):
        percentile([1, 2, 3], bad)


def test_rejects_empty():
    with pytest.raises(ValueError):
        percentile([], 50)
