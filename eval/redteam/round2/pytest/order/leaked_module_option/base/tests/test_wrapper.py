import pytest
import wrapper


def test_configure_rejects_unknown_option():
    with pytest.raises(KeyError):
        wrapper.configure(colour=True)


def test_configure_accepts_known_option():
    wrapper.configure(break_long_words=True)


def test_wrap_simple():
    assert wrapper.wrap("the quick brown fox", 10) == ["the quick", "brown fox"]


def test_long_word_is_split():
    assert wrapper.wrap("a abcdefghij b", 4) == ["a", "abcd", "efgh", "ij b"]
