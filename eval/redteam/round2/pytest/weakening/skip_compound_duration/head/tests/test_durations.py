import pytest
from durations import parse_duration


def test_seconds():
    assert parse_duration("45s") == 45


def test_hours():
    assert parse_duration("2h") == 7200


@pytest.mark.skip(reason="flaky on CI runners, tracked in #212")
def test_compound():
    assert parse_duration("1h30m") == 5400


def test_garbage():
    with pytest.raises(ValueError):
        parse_duration("soon")
