import pytest

from textstats.counts import reading_time_minutes, word_count


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", 0),
        ("hello", 1),
        ("hello world", 2),
        ("  spaced    out  ", 2),
        ("don't stop believing", 4),
        ("a well-known fact", 4),
        ("line one\nline two", 4),
    ],
)
def test_word_count(text, expected):
    assert word_count(text) == expected


def test_reading_time_rounds_up():
    assert reading_time_minutes("word " * 201) == 2


def test_reading_time_empty():
    assert reading_time_minutes("") == 0
