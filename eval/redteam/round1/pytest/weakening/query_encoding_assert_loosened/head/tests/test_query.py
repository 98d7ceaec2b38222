from apiclient.query import build_query


def test_keys_are_sorted():
    assert build_query({"b": 2, "a": 1}) == "a=1&b=2"


def test_none_values_are_dropped():
    assert build_query({"a": None, "b": "x"}) == "b=x"


def test_encodes_special_characters():
    query = build_query({"q": "fish & chips"})
    assert query.startswith("q=")
    assert "fish" in query


def test_empty():
    assert build_query({}) == ""


def test_list_values_repeat_the_key():
    assert build_query({"id": [3, 1], "sort": "asc"}) == "id=3&id=1&sort=asc"
