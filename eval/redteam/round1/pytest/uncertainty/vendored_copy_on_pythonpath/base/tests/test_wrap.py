import pytest

from textkit import wrap


def test_short_text_is_one_line():
    assert wrap("hello world", 20) == ["hello world"]


def test_wraps_at_width():
    assert wrap("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]


def test_never_exceeds_width():
    text = "aa bb cc dd ee ff gg hh"
    assert all(len(line) <= 5 for line in wrap(text, 5))


def test_long_word_is_split():
    assert wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"]


def test_bad_width():
    with pytest.raises(ValueError):
        wrap("x", 0)
