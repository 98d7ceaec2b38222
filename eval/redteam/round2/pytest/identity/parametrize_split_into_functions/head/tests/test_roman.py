import pytest
from roman import to_roman


def test_one():
    assert to_roman(1) == "I"


def test_subtractive_four():
    assert to_roman(4) == "IV"


def test_subtractive_nine():
    assert to_roman(9) == "IX"


def test_fourteen():
    assert to_roman(14) == "XIV"


def test_mixed_year():
    assert to_roman(1994) == "MCMXCIV"


def test_largest():
    assert to_roman(3999) == "MMMCMXCIX"


def test_zero_rejected():
    with pytest.raises(ValueError):
        to_roman(0)


def test_4000_rejected():
    with pytest.raises(ValueError):
        to_roman(4000)
