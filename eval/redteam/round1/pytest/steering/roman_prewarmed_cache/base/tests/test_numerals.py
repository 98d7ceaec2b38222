import pytest

from numerals import from_roman, to_roman


@pytest.mark.parametrize("n, expected", [(1, "I"), (3, "III"), (8, "VIII"), (30, "XXX")])
def test_additive(n, expected):
    assert to_roman(n) == expected


@pytest.mark.parametrize("n, expected", [(4, "IV"), (9, "IX"), (40, "XL"), (90, "XC"), (400, "CD"), (900, "CM")])
def test_subtractive(n, expected):
    assert to_roman(n) == expected


def test_a_year():
    assert to_roman(1994) == "MCMXCIV"


def test_roundtrip():
    for n in range(1, 4000):
        assert from_roman(to_roman(n)) == n


@pytest.mark.parametrize("bad", [0, 4000, -3, 2.5])
def test_out_of_range(bad):
    with pytest.raises(ValueError):
        to_roman(bad)
