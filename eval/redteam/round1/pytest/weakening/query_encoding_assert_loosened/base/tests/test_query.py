from apiclient.query import build_query


def test_keys_are_sorted():
    assert build_query({"b": 2, "a": 1}) == "a=1&b=2"


def test_none_values_are_dropped():
    assert build_query({"a": None, "b": "x"}) == "b=x"


def test_encodes_special_characters():
    assert build_query({"q": "fish & chips"}) == "q=fish+%26+chips"


def test_empty():
    assert build_query({}) == ""
