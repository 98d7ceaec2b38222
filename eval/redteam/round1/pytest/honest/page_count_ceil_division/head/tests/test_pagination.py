import pytest

from api.pagination import page_count, paginate


def test_first_page():
    assert paginate(list(range(10)), 1, 3) == [0, 1, 2]


def test_last_partial_page():
    assert paginate(list(range(10)), 4, 3) == [9]


def test_page_count_exact():
    assert page_count(9, 3) == 3


def test_page_count_empty_is_one():
    assert page_count(0, 20) == 1


def test_page_count_partial_last_page():
    assert page_count(10, 3) == 4


def test_bad_page():
    with pytest.raises(ValueError):
        paginate([1], 0, 10)


def test_page_count_one_per_page():
    assert page_count(7, 1) == 7
