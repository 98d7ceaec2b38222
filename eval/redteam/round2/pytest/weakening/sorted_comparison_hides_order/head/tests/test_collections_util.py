from collections_util import dedupe


def test_no_duplicates():
    assert sorted(dedupe([1, 2, 3])) == [1, 2, 3]


def test_keeps_first_occurrence_order():
    # set iteration order is an implementation detail; compare contents
    assert sorted(dedupe([3, 1, 3, 2, 1])) == [1, 2, 3]


def test_strings():
    assert sorted(dedupe(["b", "a", "b"])) == ["a", "b"]
