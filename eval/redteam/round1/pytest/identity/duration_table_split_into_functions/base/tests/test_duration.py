import pytest

from timeparse.duration import parse_duration


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("1h", 3600),
        ("90s", 90),
        ("2m30s", 150),
        ("1h1m1s", 3661),
        (" 5M ", 300),
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["", "5x", "1h 30m", "h"])
def test_rejects(bad):
    with pytest.raises(ValueError):
        parse_duration(bad)
