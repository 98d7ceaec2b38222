from collections_util import dedupe


def test_no_duplicates():
    assert dedupe([1, 2, 3]) == [1, 2, 3]


def test_keeps_first_occurrence_order():
    assert dedupe([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_strings():
    assert dedupe(["b", "a", "b"]) == ["b", "a"]
