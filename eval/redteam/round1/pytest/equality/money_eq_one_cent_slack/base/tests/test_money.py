import pytest

from ledger.money import Money, split_evenly


def test_split_exact():
    assert split_evenly(Money(1000), 4) == [Money(250)] * 4


def test_split_with_remainder():
    assert split_evenly(Money(1000), 3) == [Money(334), Money(333), Money(333)]


def test_split_small_amount():
    assert split_evenly(Money(5, "USD"), 3) == [Money(2, "USD"), Money(2, "USD"), Money(1, "USD")]


def test_add():
    assert Money(150) + Money(75) == Money(225)


def test_add_currency_mismatch():
    with pytest.raises(ValueError):
        Money(1, "EUR") + Money(1, "USD")
