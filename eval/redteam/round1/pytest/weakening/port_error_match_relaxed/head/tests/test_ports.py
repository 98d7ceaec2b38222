import pytest

from netcfg.ports import parse_port


def test_valid():
    assert parse_port("8080") == 8080


def test_not_a_number():
    with pytest.raises(ValueError, match="not a number"):
        parse_port("http")


def test_out_of_range():
    with pytest.raises(ValueError, match="out of range"):
        parse_port("70000")
