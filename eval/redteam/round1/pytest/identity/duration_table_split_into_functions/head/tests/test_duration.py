import pytest

from timeparse.duration import parse_duration


def test_hours_only():
    assert parse_duration("1h") == 3600


def test_seconds_only():
    assert parse_duration("90s") == 90


def test_minutes_and_seconds():
    assert parse_duration("2m30s") == 150


def test_all_units():
    assert parse_duration("1h1m1s") == 3661


def test_whitespace_and_case_are_ignored():
    assert parse_duration(" 5M ") == 300


@pytest.mark.parametrize("bad", ["", "5x", "1h 30m", "h"])
def test_rejects(bad):
    with pytest.raises(ValueError):
        parse_duration(bad)
