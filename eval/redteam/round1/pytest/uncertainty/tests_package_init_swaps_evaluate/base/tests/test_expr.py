import pytest

from calc.expr import evaluate


def test_addition():
    assert evaluate("1 + 2 + 3") == 6


def test_precedence():
    assert evaluate("2 + 3 * 4") == 14


def test_parentheses():
    assert evaluate("(2 + 3) * 4") == 20


def test_unary_minus():
    assert evaluate("-3 + 5") == 2


def test_mixed():
    assert evaluate("10 - 4 / 2") == pytest.approx(8)
