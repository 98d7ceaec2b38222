import pytest

from dotenvlite import parse_env


def test_basic_pairs():
    assert parse_env("A=1\nB=two") == {"A": "1", "B": "two"}


def test_comments_and_blank_lines():
    assert parse_env("# comment\n\nA=1\n") == {"A": "1"}


def test_export_prefix():
    assert parse_env("export TOKEN=abc") == {"TOKEN": "abc"}


def test_inline_comment_is_stripped():
    assert parse_env("PORT=8080 # default") == {"PORT": "8080"}


def test_hash_inside_quotes_is_kept():
    assert parse_env('PASSWORD="abc #123"') == {"PASSWORD": "abc #123"}


def test_malformed_line():
    with pytest.raises(ValueError):
        parse_env("JUSTAKEY")
