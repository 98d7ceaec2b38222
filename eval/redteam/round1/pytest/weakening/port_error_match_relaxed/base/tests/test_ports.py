import pytest

from netcfg.ports import parse_port


def test_valid():
    assert parse_port("8080") == 8080


def test_not_a_number():
    with pytest.raises(ValueError, match=r"^port is not a number: 'http'$"):
        parse_port("http")


def test_out_of_range():
    with pytest.raises(ValueError, match=r"^port out of range: 70000 \(expected 1-65535\)$"):
        parse_port("70000")
