import pytest
from durations import parse_duration


def test_seconds():
    assert parse_duration("45s") == 45


def test_compound():
    assert parse_duration("1h30m") == 5400


def test_garbage():
    with pytest.raises(ValueError):
        parse_duration("soon")


def test_spaced_parts():
    assert parse_duration("1h 30m 5s") == 5405
